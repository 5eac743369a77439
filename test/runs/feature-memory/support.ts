// A real database, migrated, with accounts to own records: a SQLite file in a temp folder, or with
// TEST_DATABASE=postgres a fresh database of the test process's cluster (dropped on close).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../../../src/accounts/account-store.ts';
import { migrateToLatest, openDatabase, type Db } from '../../../src/db/database.ts';
import { testPostgresCluster, testsUsePostgres } from '../../support/postgres-cluster.ts';

export interface TestDb {
  db: Db;
  account(): Promise<string>;
  close(): Promise<void>;
}

let n = 0;

export async function openTestDb(): Promise<TestDb> {
  const dir = mkdtempSync(join(tmpdir(), 'feature-memory-test-'));
  const cluster = testsUsePostgres() ? await testPostgresCluster() : undefined;
  const postgresUrl = cluster ? await cluster.createDatabase() : undefined;
  const db = openDatabase(postgresUrl ?? `sqlite:${join(dir, 'tool-service.db')}`);
  const cleanUp = async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
    if (cluster && postgresUrl) await cluster.dropDatabase(postgresUrl);
  };
  try {
    await migrateToLatest(db);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const accounts = new AccountStore(db);
  return {
    db,
    async account() {
      const account = await accounts.createAccount({ email: `fm-${++n}-${Date.now()}@example.com`, verified: true });
      return account.id;
    },
    close: cleanUp,
  };
}
