import type { Db } from '../db/database.ts';
import type { AccountStore, ChargeResult, UsageCount } from './account-store.ts';
import { CreditLeaseStore, newLease, type Lease, type LeaseWrite } from './credit-lease-store.ts';
import { isHolderDead, newLeaseHolder, retireLeaseHolder, type LeaseHolder } from './lease-holder.ts';
import { periodOf } from './periods.ts';

export interface CreditLedgerOptions {
  /** A lease takes this share of the credits left (beyond the call's cost)... */
  leaseShare: number;
  /** ...but at most this many. */
  maxLease: number;
  /** Below this many credits left in the database, every charge goes to the database: exact at the edge. */
  directBelow: number;
  /** Unspent credits go back to the database after this long without a call. */
  idleMs: number;
  /** A live holder rewrites its leases' heartbeat at least this often (at its flushes). */
  heartbeatMs: number;
  /** A lease whose heartbeat is older than this is taken for dead when its holder's pid cannot tell. */
  staleMs: number;
}

/** Where the ledger takes the usage counts to write with its leases, and gives them back when the write failed. */
export interface UsageSource {
  take(): UsageCount[];
  putBack(counts: readonly UsageCount[]): void;
}

/**
 * Spends credits with one database write per lease instead of one per call. A lease is 1% of
 * the credits left (at most 1,000).
 *
 * A lease is taken from the database with the same atomic conditional update as a direct
 * charge, so the database never hands out more than the quota: across any number of processes
 * the account can never spend past it. Far from the quota a process leases a block and spends
 * it in memory; within `directBelow` credits of the quota every charge goes to the database
 * (still through the lease row), so the last credits are spent exactly, by whichever process
 * gets the call.
 *
 * Crashes fail in the customer's favour. Each lease is a row in `credit_leases` (see
 * CreditLeaseStore): `granted` is what `credit_periods.used` counts for it, `spent` what its
 * finished calls cost as of the last flush. A flush (every USAGE_FLUSH_MS and before GET /usage)
 * writes `spent` and those calls' usage counters in one transaction, from one synchronous
 * snapshot: a call counts in both or in neither. When a holder dies, any live process's sweep
 * (and the next start, before it listens) gives back `granted - spent`: what was unspent, the
 * calls still running, and the calls finished since the last flush. So after a crash the account
 * is charged exactly what its usage counters show, at most one flush interval of answered calls
 * goes uncharged, and nothing is ever charged twice. The hot path writes nothing: a charge from
 * the lease and a finished call are counted in memory.
 */
export class CreditLedger {
  readonly #store: AccountStore;
  readonly #leaseStore: CreditLeaseStore;
  readonly #holder: LeaseHolder;
  readonly #o: CreditLedgerOptions;
  /** The lease of the current month per account. */
  readonly #leases = new Map<string, Lease>();
  /** Leases of a past month with calls still running: released once they finish. Rarely any. */
  #retired: Lease[] = [];
  /** The last `used` the database reported per account, to choose between leasing and direct. */
  readonly #lastUsed = new Map<string, { period: string; used: number }>();
  #usage: UsageSource = { take: () => [], putBack: () => {} };
  /** Lease writes one after another, so each sees the state the previous one left (`granted`, `rowSpent`). */
  #chain: Promise<unknown> = Promise.resolve();
  #reclaimedAt = -Infinity;

  constructor(store: AccountStore, db: Db, options: Partial<CreditLedgerOptions> = {}) {
    this.#store = store;
    this.#holder = newLeaseHolder();
    this.#leaseStore = new CreditLeaseStore(db, this.#holder);
    this.#o = { leaseShare: 0.01, maxLease: 1000, directBelow: 200, idleMs: 1000, heartbeatMs: 1000, staleMs: 30_000, ...options };
  }

  /** This ledger's holder: the invoke path records it on Idempotency-Key claims too, judged alive or dead the same way. */
  get holder(): LeaseHolder {
    return this.#holder;
  }

  /** The usage recorder hands its counts over here, so they are written with the leases' consumption. */
  attachUsage(source: UsageSource): void {
    this.#usage = source;
  }

  /**
   * Spends `cost` from this process's lease when the lease covers it: no query and no promise,
   * the hot path. Undefined when the database must be asked (use charge()).
   */
  chargeFromLease(accountId: string, cost: number, quota: number, at = new Date()): ChargeResult | undefined {
    const lease = this.#leases.get(accountId);
    if (!lease || lease.granted - lease.spent < cost || lease.period !== periodOf(at)) return undefined;
    lease.spent += cost;
    lease.touchedAt = Date.now();
    const available = lease.granted - lease.spent;
    return { charged: true, used: lease.dbUsed - available, remaining: Math.max(0, quota - lease.dbUsed + available) };
  }

  async charge(accountId: string, cost: number, quota: number, at = new Date()): Promise<ChargeResult> {
    const spent = this.chargeFromLease(accountId, cost, quota, at);
    if (spent) return spent;
    const period = periodOf(at);
    let lease = this.#leases.get(accountId);
    // A grant already on its way usually covers this call too: wait for it rather than take a
    // second block (a burst of first calls would otherwise each lease 1% of the account).
    while (lease?.growing && lease.period === period) {
      await lease.growing;
      const fromGrown = this.chargeFromLease(accountId, cost, quota, at);
      if (fromGrown) return fromGrown;
      lease = this.#leases.get(accountId);
    }
    if (lease && lease.period !== period) {
      this.#retired.push(lease);
      lease = undefined;
    }
    if (!lease) {
      lease = newLease(accountId, period, quota);
      this.#leases.set(accountId, lease);
    }
    lease.quota = quota;
    lease.touchedAt = Date.now();
    // What is left in the lease is reserved at once, so a concurrent charge cannot count on it too.
    const fromLease = Math.max(0, lease.granted - lease.spent);
    lease.spent += fromLease;
    const need = cost - fromLease;
    const last = this.#lastUsed.get(accountId);
    const knownUsed = lease.rowWritten ? lease.dbUsed : last?.period === period ? last.used : 0;
    const left = quota - knownUsed - need;
    const extra = left >= this.#o.directBelow ? Math.min(this.#o.maxLease, Math.floor(left * this.#o.leaseShare)) : 0;
    lease.acquiring += 1;
    let grown = (): void => {};
    lease.growing = new Promise<void>((resolve) => (grown = resolve));
    try {
      return await this.#grow(lease, cost, quota, fromLease, extra);
    } finally {
      // Only now, with the lease updated, may the calls waiting for this grant look at it again.
      lease.acquiring -= 1;
      lease.growing = undefined;
      grown();
    }
  }

  async #grow(lease: Lease, cost: number, quota: number, fromLease: number, extra: number): Promise<ChargeResult> {
    const need = cost - fromLease;
    let granted = need + extra;
    let result;
    try {
      result = await this.#serial(() => this.#leaseStore.grant(lease, granted, quota));
      if (!result.charged && extra > 0) {
        granted = need;
        result = await this.#serial(() => this.#leaseStore.grant(lease, granted, quota));
      }
    } catch (err) {
      lease.spent -= fromLease;
      throw err;
    }
    this.#lastUsed.set(lease.accountId, { period: lease.period, used: result.used });
    if (!result.charged) {
      lease.spent -= fromLease;
      const available = Math.max(0, lease.granted - lease.spent);
      return { charged: false, used: result.used - available, remaining: Math.max(0, quota - result.used + available) };
    }
    lease.rowWritten = true;
    lease.direct = granted === need;
    lease.granted += granted - result.shortfall;
    lease.spent += need;
    lease.dbUsed = result.used;
    const available = Math.max(0, lease.granted - lease.spent);
    return { charged: true, used: result.used - available, remaining: Math.max(0, quota - result.used + available) };
  }

  /** Gives back the credits of a call the service failed; they never leave memory when a lease charged them. */
  async refund(accountId: string, credits: number, at = new Date()): Promise<void> {
    const lease = this.#running(accountId, credits);
    if (!lease) return this.#store.refund(accountId, credits, at);
    if (!lease.direct || !lease.rowWritten) {
      lease.spent -= credits;
      return;
    }
    // Near the quota the credits go back to the database at once. Until that is written they
    // stay spent (and the call counted as running), so nothing spends them twice meanwhile.
    const shortfall = await this.#serial(() => this.#leaseStore.shrink(lease, credits));
    lease.spent -= credits;
    lease.granted -= credits + shortfall;
  }

  /**
   * A charged call finished and its usage was recorded: its credits are now spent for good and
   * go to the database with that usage at the next flush. No query: the hot path.
   */
  settle(accountId: string, credits: number): void {
    const lease = this.#running(accountId, credits);
    if (lease) lease.settled += credits;
  }

  /**
   * The lease a running call of `credits` was charged to. Two leases of one account only exist
   * across a month's end; a call is then matched to the older one first (a mismatch moves a few
   * credits between the two months, never changes the total).
   */
  #running(accountId: string, credits: number): Lease | undefined {
    if (this.#retired.length > 0) {
      const old = this.#retired.find((l) => l.accountId === accountId && l.spent - l.settled >= credits);
      if (old) return old;
    }
    const lease = this.#leases.get(accountId);
    return lease && lease.spent - lease.settled >= credits ? lease : undefined;
  }

  /** Credits spent this period: the database's count less what this process holds unspent. */
  async used(accountId: string, at = new Date()): Promise<number> {
    const lease = this.#leases.get(accountId);
    const held = lease && lease.period === periodOf(at) ? Math.max(0, lease.granted - lease.spent) : 0;
    return (await this.#store.usedCredits(accountId, at)) - held;
  }

  /**
   * Writes the usage counts and the leases' consumption in one transaction, and releases leases
   * idle for `idleMs` with no call running (all of them when `releaseAll`, on shutdown). The
   * snapshot is cut synchronously, before anything else can run, so usage and `spent` match.
   */
  checkpoint(options: { releaseAll?: boolean } = {}, now = Date.now()): Promise<void> {
    const usage = this.#usage.take();
    const writes: LeaseWrite[] = [];
    const releaseAll = options.releaseAll === true;
    for (const [accountId, lease] of this.#leases) {
      const idle = now - lease.touchedAt >= this.#o.idleMs && lease.spent === lease.settled && lease.acquiring === 0;
      if (releaseAll || idle) {
        this.#leases.delete(accountId);
        // A lease whose grant was refused never reached the database: nothing to write.
        if (lease.rowWritten || lease.acquiring > 0) writes.push({ lease, settled: lease.settled, release: true });
      } else if (lease.rowWritten && (lease.settled !== lease.rowSpent || now - lease.heartbeatAt >= this.#o.heartbeatMs)) {
        writes.push({ lease, settled: lease.settled, release: false });
      }
    }
    if (this.#retired.length > 0) {
      const keep: Lease[] = [];
      for (const lease of this.#retired) {
        const done = releaseAll || (lease.spent === lease.settled && lease.acquiring === 0);
        if (done) writes.push({ lease, settled: lease.settled, release: true });
        else keep.push(lease);
        if (!done && lease.rowWritten) writes.push({ lease, settled: lease.settled, release: false });
      }
      this.#retired = keep;
    }
    if (usage.length === 0 && writes.length === 0) return this.#chain.then(() => undefined);
    return this.#serial(() => this.#leaseStore.commit(usage, writes, now)).then(
      (shortfalls) => {
        writes.forEach((w, i) => {
          if (w.release) return;
          w.lease.rowSpent = w.settled;
          w.lease.heartbeatAt = now;
          w.lease.granted -= shortfalls[i] ?? 0;
        });
      },
      (err: unknown) => {
        // Nothing was written: the counts go back, and released leases wait for the next flush.
        this.#usage.putBack(usage);
        for (const w of writes) if (w.release) this.#retired.push(w.lease);
        throw err;
      },
    );
  }

  /** Returns every lease (shutdown), with the usage counted so far. */
  async flush(): Promise<void> {
    await this.checkpoint({ releaseAll: true });
  }

  /** Stops holding: every lease goes back and this holder's token is no longer alive. */
  async close(): Promise<void> {
    await this.flush();
    retireLeaseHolder(this.#holder);
  }

  /**
   * Gives back the unspent credits of leases whose holder died (see isHolderDead), at most once
   * per heartbeat interval unless `force` (at start). Answers the credits given back.
   */
  async reclaimDead(now = Date.now(), force = false): Promise<number> {
    if (!force && now - this.#reclaimedAt < this.#o.heartbeatMs) return 0;
    this.#reclaimedAt = now;
    let returned = 0;
    for (const lease of await this.#leaseStore.othersLeases()) {
      if (!isHolderDead(lease, now, this.#o.staleMs)) continue;
      returned += (await this.#leaseStore.reclaim(lease.id, lease.heartbeat)) ?? 0;
    }
    if (this.#lastUsed.size > 100_000) this.#lastUsed.clear();
    return returned;
  }

  #serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(op);
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
