import { openDatabase, type Db } from '../../src/db/database.ts';

/**
 * Runs `work` on a connection of its own to the app's database (SQLite file or PostgreSQL), as the
 * CLI or another process would change it, and closes that connection after. Tests go through this
 * rather than node:sqlite so they check the same thing on both databases.
 */
export async function onOtherConnection<T>(databaseUrl: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(databaseUrl);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** Sets an account's columns from another connection. */
export function updateAccount(databaseUrl: string, accountId: string, values: { status?: string; email_verified_at?: string | null }): Promise<void> {
  return onOtherConnection(databaseUrl, async (db) => {
    const result = await db.updateTable('accounts').set(values).where('id', '=', accountId).executeTakeFirst();
    if (result.numUpdatedRows !== 1n) throw new Error(`account ${accountId} not found`);
  });
}
