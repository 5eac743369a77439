// The credit and usage SQL that more than the store runs: the conditional spend of credit_periods
// and the usage_counters upserts run inside the credit ledger's own transactions
// (credit-lease-store.ts) as well as through AccountStore, and the per-month usage breakdown
// AccountStore.usageSummary answers with. Kept out of account-store.ts (the 400-line rule).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { addActivity, monthlyCounts } from './activity-store.ts';
import type { UsageCount } from './account-records.ts';

/**
 * Adds `credits` to the account's month in one conditional upsert that never passes `quota`, so
 * concurrent callers and processes cannot overspend. Returns the new `used`, or undefined when
 * the credits do not fit. Runs on the database or inside the caller's transaction.
 */
export async function spendWithinQuota(db: Kysely<Database>, accountId: string, period: string, credits: number, quota: number): Promise<number | undefined> {
  const row = await db
    .insertInto('credit_periods')
    .values({ account_id: accountId, period, used: credits })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'period'])
        .doUpdateSet({ used: sql<number>`credit_periods.used + excluded.used` })
        .where(sql<number>`credit_periods.used + excluded.used`, '<=', quota),
    )
    .returning('used')
    .executeTakeFirst();
  return row?.used;
}

/**
 * Adds counts to the usage counters inside the caller's transaction: the credit ledger writes
 * them together with its leases' consumption, so a crash never leaves the two disagreeing.
 */
export async function addUsageCounts(trx: Kysely<Database>, counts: readonly UsageCount[]): Promise<void> {
  // In the key's order: two nodes flushing the same counters at once then lock their rows in one
  // order and wait for each other instead of deadlocking (PostgreSQL locks row by row).
  for (const c of monthlyCounts(counts).sort(compareUsageCounts)) {
    await trx
      .insertInto('usage_counters')
      .values({ account_id: c.accountId, key_id: c.keyId, operation_id: c.operationId, period: c.period, calls: c.calls, failures: c.failures, credits: c.credits })
      .onConflict((oc) =>
        oc.columns(['account_id', 'period', 'key_id', 'operation_id']).doUpdateSet({
          calls: sql<number>`usage_counters.calls + excluded.calls`,
          failures: sql<number>`usage_counters.failures + excluded.failures`,
          credits: sql<number>`usage_counters.credits + excluded.credits`,
        }),
      )
      .execute();
  }
  await addActivity(trx, counts);
}

function compareUsageCounts(a: UsageCount, b: UsageCount): number {
  return compareText(a.accountId, b.accountId) || compareText(a.period, b.period) || compareText(a.keyId, b.keyId) || compareText(a.operationId, b.operationId);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The month's counters of one account, by tool and by key (the key's name when it still exists). */
export async function usageBreakdown(db: Kysely<Database>, accountId: string, period: string) {
  const byTool = await db
    .selectFrom('usage_counters')
    .select((eb) => ['operation_id', eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('failures').as('failures'), eb.fn.sum<number>('credits').as('credits')])
    .where('account_id', '=', accountId)
    .where('period', '=', period)
    .groupBy('operation_id')
    .orderBy('operation_id')
    .execute();
  const byKey = await db
    .selectFrom('usage_counters')
    .leftJoin('api_keys', 'api_keys.id', 'usage_counters.key_id')
    .select((eb) => [
      'usage_counters.key_id',
      'api_keys.name',
      eb.fn.sum<number>('usage_counters.calls').as('calls'),
      eb.fn.sum<number>('usage_counters.failures').as('failures'),
      eb.fn.sum<number>('usage_counters.credits').as('credits'),
    ])
    .where('usage_counters.account_id', '=', accountId)
    .where('usage_counters.period', '=', period)
    .groupBy(['usage_counters.key_id', 'api_keys.name'])
    .orderBy('usage_counters.key_id')
    .execute();
  return {
    byTool: byTool.map((r) => ({ operationId: r.operation_id, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits ?? 0) })),
    byKey: byKey.map((r) => ({ keyId: r.key_id, name: r.name ?? null, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits ?? 0) })),
  };
}
