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
 * Reading it takes a read lock, which costs as much as the rest of an authenticated call, so it
 * is read at most every `maxAgeMs`: a change made by another process is seen within that time
 * (25 ms by default); changes made by this process are seen at once by the caches themselves.
 */
export function changeCounter(db: Db, maxAgeMs = 25): () => number {
  const handle = handles.get(db);
  if (!handle) return () => Math.random();
  const statement = handle.raw.prepare('PRAGMA data_version');
  let value = 0;
  let readAt = -Infinity;
  return () => {
    const now = performance.now();
    if (now - readAt >= maxAgeMs) {
      value = Number((statement.get() as { data_version: number }).data_version);
      readAt = now;
    }
    return value;
  };
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
