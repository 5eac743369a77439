// A real database file in a temp folder, migrated, with accounts to own records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../../../src/accounts/account-store.ts';
import { migrateToLatest, openDatabase, type Db } from '../../../src/db/database.ts';

export interface TestDb {
  db: Db;
  account(): Promise<string>;
  close(): Promise<void>;
}

let n = 0;

export async function openTestDb(): Promise<TestDb> {
  const dir = mkdtempSync(join(tmpdir(), 'feature-memory-test-'));
  const db = openDatabase(`sqlite:${join(dir, 'tool-service.db')}`);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const accounts = new AccountStore(db);
  return {
    db,
    async account() {
      const account = await accounts.createAccount({ email: `fm-${++n}-${Date.now()}@example.com`, verified: true });
      return account.id;
    },
    async close() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
