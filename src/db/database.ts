import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { sqlitePath } from '../config.ts';
import { migrationProvider } from './migrations.ts';
import { NodeSqliteDatabase } from './node-sqlite-adapter.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

/** Opens the database named by DATABASE_URL. Only SQLite for now; Kysely is the seam for PostgreSQL. */
export function openDatabase(databaseUrl: string): Db {
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new NodeSqliteDatabase(path);
  // WAL lets readers run beside the writer and several processes share the file; busy_timeout
  // makes a writer wait for another process's transaction instead of failing.
  sqlite.raw.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
