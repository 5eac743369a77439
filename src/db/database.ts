import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { sqlitePath } from '../config.ts';
import { migrationProvider } from './migrations.ts';
import { NodeSqliteDatabase } from './node-sqlite-adapter.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

const handles = new WeakMap<Db, NodeSqliteDatabase>();

/**
 * A number that changes whenever another connection (another process, the CLI) commits to the
 * database: SQLite's data_version. Lets in-process caches stay correct across processes.
 *
 * It is read on every call, so such a commit is seen by the very next call: an account suspended
 * or a key revoked elsewhere must not be served a moment longer (a read costs a few microseconds,
 * a WAL read lock; an earlier at-most-every-25-ms throttle let a call right after a commit be
 * authorised with the state from before it). While this connection is inside a transaction the
 * pragma would answer from that transaction's snapshot, blind to later commits, and in a deferred
 * transaction that has not read yet it would start the snapshot itself, so the transaction's first
 * write could fail with SQLITE_BUSY_SNAPSHOT: then it is not read, and a value never answered
 * before is returned instead, which a cache takes for a change.
 */
export function changeCounter(db: Db): () => number {
  const handle = handles.get(db);
  if (!handle) return () => Math.random();
  const statement = handle.raw.prepare('PRAGMA data_version');
  // data_version is positive: these never repeat and never equal it.
  let unknown = 0;
  return () => (handle.raw.isTransaction ? --unknown : Number((statement.get() as { data_version: number }).data_version));
}

export function openDatabase(databaseUrl: string): Db {
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new NodeSqliteDatabase(path);
  // WAL lets readers run beside the writer and several processes share the file; busy_timeout
  // makes a writer wait for another process's transaction instead of failing.
  sqlite.raw.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  handles.set(db, sqlite);
  return db;
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
