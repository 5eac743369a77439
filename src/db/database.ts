import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { isPostgresUrl, sqlitePath } from '../config.ts';
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
 *
 * PostgreSQL has no such counter: there the answer is a new value on every call, so the caches
 * built on it (AccountStore's callers) are never used and every call reads the database, which
 * is correct with any number of nodes. A version row bumped by the writers, or LISTEN/NOTIFY, could
 * bring the cache back later.
 */
export function changeCounter(db: Db): () => number {
  const handle = handles.get(db);
  if (!handle) return () => Math.random();
  const statement = handle.raw.prepare('PRAGMA data_version');
  // data_version is positive: these never repeat and never equal it.
  let unknown = 0;
  return () => (handle.raw.isTransaction ? --unknown : Number((statement.get() as { data_version: number }).data_version));
}

/** `sqlite:<path>` (the default) or `postgres://user:pass@host:port/db` (see config.ts for the checks). */
export function openDatabase(databaseUrl: string): Db {
  return isPostgresUrl(databaseUrl) ? openPostgres(databaseUrl) : openSqlite(databaseUrl);
}

const INT8_OID = 20;

/**
 * pg answers int8 (bigint, and count(*) and sum() of integers) as strings, since it can pass
 * 2^53. What this schema keeps in them are epoch milliseconds and counts, far below 2^53
 * (Number.MAX_SAFE_INTEGER is the year 287396 in ms), so they are read as numbers; a value past
 * the safe range throws rather than silently losing precision.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} is outside the safe integer range`);
  return value;
}

const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

function openPostgres(databaseUrl: string): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, types: pgTypes });
  // An idle client's error (the server restarted, a network cut) would otherwise be an uncaught
  // 'error' event; the pool drops that client and the next query opens a new one.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function openSqlite(databaseUrl: string): Db {
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
