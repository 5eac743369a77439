import type { UsageCount } from './account-store.ts';
import type { CreditLedger } from './credit-ledger.ts';
import { periodOf } from './periods.ts';

/**
 * Usage is counted in memory per (account, key, tool, UTC day) and added to the database a few
 * times a second: a handful of upserts however many calls there were. The flush writes the
 * month's counters (usage_counters), the days (usage_days) and each key's latest call
 * (api_keys.last_used_at) from the same batch, in one transaction (see addUsageCounts). A
 * reader in this process (GET /usage) flushes first, so it sees its own calls; another
 * process's show within the flush interval.
 *
 * The counts are written by the credit ledger, in the same transaction as the consumption of its
 * leases: a finished call's credits become final in the ledger exactly when its usage is
 * written, so a crash loses both or neither and the two always agree.
 */
export class UsageRecorder {
  readonly #ledger: CreditLedger;
  #pending = new Map<string, UsageCount>();
  /**
   * The time a call is counted at: its day, its month and its key's last use. The service reads
   * the real clock; a test sets another to count calls made over the API on other days.
   */
  clock: () => Date = () => new Date();

  constructor(ledger: CreditLedger) {
    this.#ledger = ledger;
    ledger.attachUsage({ take: () => this.#take(), putBack: (counts) => this.#putBack(counts) });
  }

  record(event: { accountId: string; keyId: string; operationId: string; credits: number; statusCode: number }, at = this.clock()): void {
    // One ISO string per call gives the last use and the day (dayOf's slice of it).
    const stamp = at.toISOString();
    const count = this.#count(event.accountId, event.keyId, event.operationId, periodOf(at), stamp.slice(0, 10));
    count.calls += 1;
    if (stamp > count.lastAt) count.lastAt = stamp;
    count.credits += event.credits;
    if (event.statusCode >= 400) count.failures += 1;
    if (event.credits > 0) this.#ledger.settle(event.accountId, event.credits);
  }

  /** Writes what was counted so far (with the leases' consumption); resolves once it is in the database. */
  flush(): Promise<void> {
    return this.#ledger.checkpoint();
  }

  #count(accountId: string, keyId: string, operationId: string, period: string, day: string): UsageCount {
    const id = `${accountId}\n${keyId}\n${operationId}\n${day}`;
    let count = this.#pending.get(id);
    if (!count) {
      count = { accountId, keyId, operationId, period, day, calls: 0, failures: 0, credits: 0, lastAt: '' };
      this.#pending.set(id, count);
    }
    return count;
  }

  #take(): UsageCount[] {
    if (this.#pending.size === 0) return [];
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    return batch;
  }

  /** A write failed: its counts join the ones counted since, for the next flush. */
  #putBack(counts: readonly UsageCount[]): void {
    for (const c of counts) {
      const count = this.#count(c.accountId, c.keyId, c.operationId, c.period, c.day);
      count.calls += c.calls;
      if (c.lastAt > count.lastAt) count.lastAt = c.lastAt;
      count.failures += c.failures;
      count.credits += c.credits;
    }
  }
}
