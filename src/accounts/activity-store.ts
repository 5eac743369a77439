// The dashboard's activity data kept with usage (issue 23): calls per account, key and UTC day
// (`usage_days`) and each key's last use (`api_keys.last_used_at`). Both are written by the
// usage flush, inside the transaction that writes usage_counters (see addUsageCounts): one
// upsert for the batch's days and one update for its keys, however many calls it holds, so the
// invoke path gains no query.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { UsageCount } from './account-store.ts';

/** Days of usage_days kept; older rows go on the retention sweep (services.ts). */
export const USAGE_DAYS_KEPT = 400;

/** Rows per statement: far under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

/** The UTC day of a time, `YYYY-MM-DD`. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** One day's figures of an account (all its keys). */
export interface DayUsage {
  day: string;
  calls: number;
  failures: number;
  credits: number;
}

/**
 * The recorder counts per day; usage_counters counts per month. Merges a batch's days into one
 * count per (account, key, tool, month), so usage_counters gets as many upserts as before.
 */
export function monthlyCounts(counts: readonly UsageCount[]): UsageCount[] {
  const merged = new Map<string, UsageCount>();
  for (const c of counts) {
    const id = `${c.accountId}\n${c.keyId}\n${c.operationId}\n${c.period}`;
    const into = merged.get(id);
    if (into === undefined) {
      merged.set(id, { ...c });
      continue;
    }
    into.calls += c.calls;
    into.failures += c.failures;
    into.credits += c.credits;
    if (c.lastAt > into.lastAt) into.lastAt = c.lastAt;
  }
  return [...merged.values()];
}

/** Adds a batch's per-day counts and its keys' last use, inside the caller's transaction (the usage flush's). */
export async function addActivity(trx: Kysely<Database>, counts: readonly UsageCount[]): Promise<void> {
  const days = new Map<string, { account_id: string; key_id: string; day: string; calls: number; failures: number; credits: number }>();
  const lastUse = new Map<string, string>();
  for (const c of counts) {
    const id = `${c.accountId}\n${c.keyId}\n${c.day}`;
    const row = days.get(id) ?? { account_id: c.accountId, key_id: c.keyId, day: c.day, calls: 0, failures: 0, credits: 0 };
    row.calls += c.calls;
    row.failures += c.failures;
    row.credits += c.credits;
    days.set(id, row);
    const last = lastUse.get(c.keyId);
    if (last === undefined || c.lastAt > last) lastUse.set(c.keyId, c.lastAt);
  }
  // In the key's order, as addUsageCounts does: two nodes flushing at once lock rows in one order.
  const rows = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto('usage_days')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['account_id', 'key_id', 'day']).doUpdateSet({
          calls: sql<number>`usage_days.calls + excluded.calls`,
          failures: sql<number>`usage_days.failures + excluded.failures`,
          credits: sql<number>`usage_days.credits + excluded.credits`,
        }),
      )
      .execute();
  }
  const keys = [...lastUse.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    // One statement for the batch's keys; a time never moves back (another node may have written a later one).
    const latest = sql<string>`case id ${sql.join(
      chunk.map(([id, at]) => sql`when ${id} then ${at}`),
      sql` `,
    )} end`;
    await trx
      .updateTable('api_keys')
      .set({ last_used_at: latest })
      .where(
        'id',
        'in',
        chunk.map(([id]) => id),
      )
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', latest)]))
      .execute();
  }
}

/** The account's calls, failures and credits per UTC day from `from` to `to` (both `YYYY-MM-DD`, inclusive); days without calls are absent. */
export async function usageDays(db: Db, accountId: string, from: string, to: string): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('usage_days')
    .select((eb) => ['day', eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('failures').as('failures'), eb.fn.sum<number>('credits').as('credits')])
    .where('account_id', '=', accountId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('day')
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits) }));
}

/** Deletes usage_days rows older than `keepDays` days before `now` (the retention sweep). */
export async function pruneUsageDays(db: Db, now = new Date(), keepDays = USAGE_DAYS_KEPT): Promise<number> {
  const cutoff = dayOf(new Date(now.getTime() - keepDays * 86_400_000));
  const result = await db.deleteFrom('usage_days').where('day', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
