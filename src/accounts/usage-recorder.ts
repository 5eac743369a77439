import type { Account, AccountStore, UsageCount } from './account-store.ts';
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
  /**
   * The counts by day, key and tool: nested maps rather than one map by a joined string, so a call
   * looks its count up by the key's and the tool's own (hash-cached) strings without building and
   * hashing a new one (a key id belongs to one account, so the account needs no level of its own).
   */
  #pending = new Map<string, Map<string, Map<string, UsageCount>>>();
  #size = 0;
  // The last call's millisecond and what follows from it: thousands of calls a second share one.
  #stampMs = Number.NaN;
  #stamp = '';
  #day = '';
  #period = '';
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
    // One ISO string per millisecond gives the last use and the day (dayOf's slice of it).
    const ms = at.getTime();
    if (ms !== this.#stampMs) {
      this.#stampMs = ms;
      this.#stamp = at.toISOString();
      this.#day = this.#stamp.slice(0, 10);
      this.#period = periodOf(at);
    }
    const stamp = this.#stamp;
    const count = this.#count(event.accountId, event.keyId, event.operationId, this.#period, this.#day);
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
    let ofDay = this.#pending.get(day);
    if (!ofDay) this.#pending.set(day, (ofDay = new Map()));
    let ofKey = ofDay.get(keyId);
    if (!ofKey) ofDay.set(keyId, (ofKey = new Map()));
    let count = ofKey.get(operationId);
    if (!count) {
      count = { accountId, keyId, operationId, period, day, calls: 0, failures: 0, credits: 0, lastAt: '' };
      ofKey.set(operationId, count);
      this.#size++;
    }
    return count;
  }

  #take(): UsageCount[] {
    if (this.#size === 0) return [];
    const batch: UsageCount[] = [];
    for (const ofDay of this.#pending.values()) for (const ofKey of ofDay.values()) for (const count of ofKey.values()) batch.push(count);
    this.#pending = new Map();
    this.#size = 0;
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

/**
 * The account's usage this month as GET /api/v1/usage and the dashboard's pages show it: this
 * process's counts are written first (so a reader sees its own calls, days and keys' last use
 * included), and `used` includes what its credit leases hold unspent.
 */
export async function currentUsage(deps: { accounts: AccountStore; ledger: CreditLedger; usage: UsageRecorder }, account: Account) {
  await deps.usage.flush();
  return deps.accounts.usageSummary(account, await deps.ledger.used(account.id));
}
