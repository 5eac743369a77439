import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import { forUpdate, minusFloorZero, transactionWithRetry } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import type { UsageCount } from './account-records.ts';
import { addUsageCounts, spendWithinQuota } from './credit-usage.ts';
import type { LeaseHolder, LeaseHolderRecord } from './lease-holder.ts';

/** A process's lease on one account's credits for one month, as the ledger keeps it in memory. */
export interface Lease {
  readonly id: string;
  readonly accountId: string;
  readonly period: string;
  /** The account's quota as last seen: a lease put back after a reclaim never goes past it. */
  quota: number;
  /** Credits `credit_periods.used` counts for this lease: the row's `granted`. */
  granted: number;
  /** Credits charged from the lease in memory (calls still running included), less refunds. */
  spent: number;
  /** Credits of finished calls: each one also sits in the usage counts waiting to be written. */
  settled: number;
  /** The row's `spent`: `settled` as of the last write. */
  rowSpent: number;
  /** Whether the row was written; a written row that is gone was reclaimed by another process. */
  rowWritten: boolean;
  /** The account's `used` in the database when the lease last grew (leases included). */
  dbUsed: number;
  touchedAt: number;
  heartbeatAt: number;
  /** Grants on their way to the database: the lease is not released under them. */
  acquiring: number;
  /** The last grant was only the call's cost (near the quota): refunds go straight back to the database. */
  direct: boolean;
  /** Settles when the grant on its way is written (see CreditLedger.charge). */
  growing?: Promise<void> | undefined;
}

export function newLease(accountId: string, period: string, quota: number): Lease {
  const now = Date.now();
  return { id: randomUUID(), accountId, period, quota, granted: 0, spent: 0, settled: 0, rowSpent: 0, rowWritten: false, dbUsed: 0, touchedAt: now, heartbeatAt: now, acquiring: 0, direct: false };
}

/** One lease in a flush: its finished calls' credits to write, or its end. */
export interface LeaseWrite {
  lease: Lease;
  /** `lease.settled` when the flush was cut, in the same instant as the usage counts. */
  settled: number;
  release: boolean;
}

export interface GrantResult {
  charged: boolean;
  used: number;
  /** Credits of a reclaimed lease that could not be counted again within the quota. */
  shortfall: number;
}

type Trx = Kysely<Database>;

function compareLeases(a: Lease, b: Lease): number {
  const key = (l: Lease) => `${l.accountId}\u0000${l.period}\u0000${l.id}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/**
 * The database side of credit leases. Every change to a lease is one transaction together with
 * what it accounts for: a grant with the charge on `credit_periods`, a flush with the usage
 * counters of the calls it settles, a release or a reclaim with the credits it gives back. So
 * at any instant, crash or not, `credit_periods.used` = finished calls written to the usage
 * counters + direct charges + the unspent part of live leases.
 */
export class CreditLeaseStore {
  readonly #db: Db;
  readonly #holder: LeaseHolder;

  constructor(db: Db, holder: LeaseHolder) {
    this.#db = db;
    this.#holder = holder;
  }

  /** Charges `credits` to the account's month, within the quota, and adds them to the lease's row. */
  async grant(lease: Lease, credits: number, quota: number): Promise<GrantResult> {
    if (credits > quota) return { charged: false, used: await this.#used(this.#db, lease), shortfall: 0 };
    return transactionWithRetry(this.#db, async (trx) => {
      // The conditional upsert comes first: a write, so the transaction holds the write lock from its first statement.
      const used = await spendWithinQuota(trx, lease.accountId, lease.period, credits, quota);
      if (used === undefined) return { charged: false, used: await this.#used(trx, lease), shortfall: 0 };
      const stamp = new Date().toISOString();
      if (lease.rowWritten) {
        const updated = await trx
          .updateTable('credit_leases')
          .set({ granted: sql<number>`granted + ${credits}`, heartbeat_at: stamp })
          .where('id', '=', lease.id)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) > 0) return { charged: true, used, shortfall: 0 };
      }
      const restored = lease.rowWritten ? await this.#recount(trx, lease, lease.granted - lease.rowSpent) : { added: 0, shortfall: 0 };
      await this.#insertRow(trx, lease, lease.granted - restored.shortfall + credits, lease.rowSpent, stamp);
      return { charged: true, used: used + restored.added, shortfall: restored.shortfall };
    });
  }

  /**
   * Takes `credits` off the lease and gives them back to the account (a refund near the quota,
   * where no process may sit on credits another could spend). Answers the shortfall (see #recount).
   */
  async shrink(lease: Lease, credits: number): Promise<number> {
    return transactionWithRetry(this.#db, async (trx) => {
      const updated = await trx
        .updateTable('credit_leases')
        .set({ granted: sql<number>`granted - ${credits}` })
        .where('id', '=', lease.id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) {
        await this.#giveBack(trx, lease.accountId, lease.period, credits);
        return 0;
      }
      const { shortfall } = await this.#recount(trx, lease, lease.granted - credits - lease.rowSpent);
      await this.#insertRow(trx, lease, lease.granted - credits - shortfall, lease.rowSpent, new Date().toISOString());
      return shortfall;
    });
  }

  /**
   * Writes usage counts and the leases' consumption in one transaction. Answers, per write, the
   * credits of a reclaimed lease that could not be counted again (see #recount).
   */
  async commit(usage: readonly UsageCount[], writes: readonly LeaseWrite[], now: number): Promise<number[]> {
    const stamp = new Date(now).toISOString();
    return transactionWithRetry(this.#db, async (trx) => {
      await addUsageCounts(trx, usage);
      const shortfalls = writes.map(() => 0);
      // Accounts in one order on every node, so two flushes giving credits back lock
      // credit_periods rows in the same order (see addUsageCounts); answers stay in `writes` order.
      const order = writes.map((_, i) => i).sort((a, b) => compareLeases(writes[a]!.lease, writes[b]!.lease));
      for (const index of order) {
        const { lease, settled, release } = writes[index]!;
        if (!lease.rowWritten) continue;
        if (release) {
          const deleted = await trx.deleteFrom('credit_leases').where('id', '=', lease.id).executeTakeFirst();
          if (Number(deleted.numDeletedRows) > 0) await this.#giveBack(trx, lease.accountId, lease.period, lease.granted - settled);
          // Reclaimed already: the reclaimer gave back granted - rowSpent, and the calls settled since were really made.
          else await this.#recount(trx, lease, settled - lease.rowSpent);
          continue;
        }
        const updated = await trx.updateTable('credit_leases').set({ spent: settled, heartbeat_at: stamp }).where('id', '=', lease.id).executeTakeFirst();
        if (Number(updated.numUpdatedRows) > 0) continue;
        // Taken for dead while alive (stalled past the stale limit): count again what the reclaim gave back.
        const { shortfall } = await this.#recount(trx, lease, lease.granted - lease.rowSpent);
        await this.#insertRow(trx, lease, lease.granted - shortfall, settled, stamp);
        shortfalls[index] = shortfall;
      }
      return shortfalls;
    });
  }

  /** Leases of other holders, for the reclaim sweep to judge. */
  async othersLeases(): Promise<(LeaseHolderRecord & { id: string; heartbeat: string })[]> {
    const rows = await this.#db
      .selectFrom('credit_leases')
      .select(['id', 'holder', 'holder_pid', 'holder_host', 'heartbeat_at'])
      .where('holder', '!=', this.#holder.token)
      .execute();
    return rows.map((r) => ({ id: r.id, holder: r.holder, pid: Number(r.holder_pid), host: r.holder_host, heartbeat: r.heartbeat_at, heartbeatAt: Date.parse(r.heartbeat_at) }));
  }

  /**
   * Gives back what a dead holder's lease had not spent as of its last flush. The delete names
   * the heartbeat that was judged, so a holder that wrote in the meantime keeps its lease, and
   * two processes reclaiming at once give back once. Answers the credits given back, or
   * undefined when the lease was not there to reclaim.
   */
  async reclaim(id: string, heartbeat: string): Promise<number | undefined> {
    return transactionWithRetry(this.#db, async (trx) => {
      const row = await trx
        .deleteFrom('credit_leases')
        .where('id', '=', id)
        .where('heartbeat_at', '=', heartbeat)
        .returning(['account_id', 'period', 'granted', 'spent'])
        .executeTakeFirst();
      if (!row) return undefined;
      const unspent = Math.max(0, row.granted - row.spent);
      await this.#giveBack(trx, row.account_id, row.period, unspent);
      return unspent;
    });
  }

  async #insertRow(trx: Trx, lease: Lease, granted: number, spent: number, stamp: string): Promise<void> {
    await trx
      .insertInto('credit_leases')
      .values({
        id: lease.id,
        account_id: lease.accountId,
        period: lease.period,
        holder: this.#holder.token,
        holder_pid: this.#holder.pid,
        holder_host: this.#holder.host,
        granted,
        spent,
        heartbeat_at: stamp,
        created_at: stamp,
      })
      .execute();
  }

  async #giveBack(trx: Trx, accountId: string, period: string, credits: number): Promise<void> {
    if (credits <= 0) return;
    await trx
      .updateTable('credit_periods')
      .set({ used: minusFloorZero('used', credits) })
      .where('account_id', '=', accountId)
      .where('period', '=', period)
      .execute();
  }

  /**
   * Counts again, within the quota, credits a reclaim gave back while this process still held
   * or had spent them. What the quota no longer leaves room for (another process spent it in the
   * meantime) is the shortfall: the ledger takes it off the lease, so nothing is spent past the
   * quota; calls already made with it stay uncharged, in the customer's favour.
   */
  async #recount(trx: Trx, lease: Lease, credits: number): Promise<{ added: number; shortfall: number }> {
    if (credits <= 0) return { added: 0, shortfall: 0 };
    // A read then a write: the row is created if missing and locked first, so another node's
    // charge or recount cannot slip in between and both fill the same room (PostgreSQL; on
    // SQLite the transaction already holds the one write lock).
    await trx.insertInto('credit_periods').values({ account_id: lease.accountId, period: lease.period, used: 0 }).onConflict((oc) => oc.columns(['account_id', 'period']).doNothing()).execute();
    const row = await forUpdate(trx, trx.selectFrom('credit_periods').select('used').where('account_id', '=', lease.accountId).where('period', '=', lease.period)).executeTakeFirstOrThrow();
    const added = Math.max(0, Math.min(credits, lease.quota - row.used));
    if (added > 0) {
      await trx
        .updateTable('credit_periods')
        .set({ used: sql<number>`used + ${added}` })
        .where('account_id', '=', lease.accountId)
        .where('period', '=', lease.period)
        .execute();
    }
    return { added, shortfall: credits - added };
  }

  async #used(db: Trx, lease: Lease): Promise<number> {
    const row = await db.selectFrom('credit_periods').select('used').where('account_id', '=', lease.accountId).where('period', '=', lease.period).executeTakeFirst();
    return row?.used ?? 0;
  }
}
