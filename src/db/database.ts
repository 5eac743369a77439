import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { isPostgresUrl, sqlitePath } from '../config.ts';
import { sqliteChangeCounter } from './change-counter.ts';
import { migrationProvider } from './migrations.ts';
import { NodeSqliteDatabase } from './node-sqlite-adapter.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

const handles = new WeakMap<Db, NodeSqliteDatabase>();

/**
 * A number that changes whenever another connection (another process, the CLI) commits to the
 * database, read on every call so such a commit is seen by the very next call: on SQLite its
 * data_version, read cheaply (change-counter.ts). Lets in-process caches stay correct across
 * processes.
 *
 * PostgreSQL has no such counter: there the answer is a new value on every call, so the caches
 * built on it (AccountStore's callers) are never used and every call reads the database, which
 * is correct with any number of nodes. A version row bumped by the writers, or LISTEN/NOTIFY, could
 * bring the cache back later.
 */
export function changeCounter(db: Db): () => number {
  const handle = handles.get(db);
  return handle ? sqliteChangeCounter(handle) : () => Math.random();
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
