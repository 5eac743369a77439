import type { AccountStore, ChargeResult } from './account-store.ts';
import { periodOf } from './periods.ts';

interface Lease {
  period: string;
  /** Credits taken from the database for this process and not yet spent. */
  available: number;
  /** The account's `used` in the database when the lease was taken (leases included). */
  dbUsed: number;
  touchedAt: number;
}

export interface CreditLedgerOptions {
  /** A lease takes this share of the credits left (beyond the call's cost)... */
  leaseShare: number;
  /** ...but at most this many. */
  maxLease: number;
  /** Below this many credits left in the database, every charge goes to the database: exact at the edge. */
  directBelow: number;
  /** Unspent credits go back to the database after this long without a call. */
  idleMs: number;
}

/**
 * Spends credits with one database write per lease instead of one per call. A lease is 1% of
 * the credits left (at most 1,000).
 *
 * A lease is taken from the database with the same atomic conditional update as a direct
 * charge, so the database never hands out more than the quota: across any number of processes
 * the account can never spend past it. Far from the quota a process leases a block and spends
 * it in memory; within `directBelow` credits of the quota every charge goes to the database, so
 * the last credits are spent exactly, by whichever process gets the call. Unspent credits go back
 * when the account goes idle, at the month's end and on shutdown. A crash loses at most one
 * lease, 1% of the account's credits left for the month.
 */
export class CreditLedger {
  readonly #store: AccountStore;
  readonly #o: CreditLedgerOptions;
  readonly #leases = new Map<string, Lease>();
  /** The last `used` the database reported per account, to choose between leasing and direct. */
  readonly #lastUsed = new Map<string, { period: string; used: number }>();

  constructor(store: AccountStore, options: Partial<CreditLedgerOptions> = {}) {
    this.#store = store;
    this.#o = { leaseShare: 0.01, maxLease: 1000, directBelow: 200, idleMs: 1000, ...options };
  }

  /**
   * Spends `cost` from this process's lease when the lease covers it: no query and no promise,
   * the hot path. Undefined when the database must be asked (use charge()).
   */
  chargeFromLease(accountId: string, cost: number, quota: number, at = new Date()): ChargeResult | undefined {
    const lease = this.#leases.get(accountId);
    if (!lease || lease.available < cost || lease.period !== periodOf(at)) return undefined;
    lease.available -= cost;
    lease.touchedAt = Date.now();
    return { charged: true, used: lease.dbUsed - lease.available, remaining: Math.max(0, quota - lease.dbUsed + lease.available) };
  }

  async charge(accountId: string, cost: number, quota: number, at = new Date()): Promise<ChargeResult> {
    const spent = this.chargeFromLease(accountId, cost, quota, at);
    if (spent) return spent;
    const period = periodOf(at);
    let lease = this.#leases.get(accountId);
    if (lease && lease.period !== period) {
      await this.#release(accountId, lease);
      lease = undefined;
    }

    const fromLease = lease?.available ?? 0;
    const need = cost - fromLease;
    const last = this.#lastUsed.get(accountId);
    const knownUsed = lease?.dbUsed ?? (last?.period === period ? last.used : 0);
    const left = quota - knownUsed - need;
    const extra = left >= this.#o.directBelow ? Math.min(this.#o.maxLease, Math.floor(left * this.#o.leaseShare)) : 0;
    let granted = need + extra;
    let result = await this.#store.charge(accountId, granted, quota, at);
    if (!result.charged && extra > 0) {
      granted = need;
      result = await this.#store.charge(accountId, granted, quota, at);
    }
    this.#lastUsed.set(accountId, { period, used: result.used });
    if (!result.charged) {
      return { charged: false, used: result.used - fromLease, remaining: Math.max(0, quota - result.used + fromLease) };
    }
    const available = fromLease + granted - cost;
    if (available > 0) this.#leases.set(accountId, { period, available, dbUsed: result.used, touchedAt: Date.now() });
    else this.#leases.delete(accountId);
    return { charged: true, used: result.used - available, remaining: Math.max(0, quota - result.used + available) };
  }

  async refund(accountId: string, credits: number, at = new Date()): Promise<void> {
    const lease = this.#leases.get(accountId);
    if (lease && lease.period === periodOf(at)) {
      lease.available += credits;
      return;
    }
    await this.#store.refund(accountId, credits, at);
  }

  /** Credits spent this period: the database's count less what this process holds unspent. */
  async used(accountId: string, at = new Date()): Promise<number> {
    const lease = this.#leases.get(accountId);
    const held = lease && lease.period === periodOf(at) ? lease.available : 0;
    return (await this.#store.usedCredits(accountId, at)) - held;
  }

  /** Returns idle leases to the database. */
  async sweep(now = Date.now()): Promise<void> {
    for (const [accountId, lease] of this.#leases) {
      if (now - lease.touchedAt >= this.#o.idleMs) await this.#release(accountId, lease);
    }
    if (this.#lastUsed.size > 100_000) this.#lastUsed.clear();
  }

  /** Returns every lease (shutdown). */
  async flush(): Promise<void> {
    for (const [accountId, lease] of this.#leases) await this.#release(accountId, lease);
  }

  async #release(accountId: string, lease: Lease): Promise<void> {
    this.#leases.delete(accountId);
    if (lease.available > 0) await this.#store.refundPeriod(accountId, lease.period, lease.available);
  }
}
