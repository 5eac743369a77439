import type { AccountStore, UsageCount } from './account-store.ts';
import { periodOf } from './periods.ts';

/**
 * Usage is counted in memory per (account, key, tool, month) and added to the database a few
 * times a second: a handful of upserts however many calls there were. A reader in this process
 * (GET /usage) flushes first, so it sees its own calls; another process's show within the
 * flush interval.
 */
export class UsageRecorder {
  readonly #store: AccountStore;
  #pending = new Map<string, UsageCount>();
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: AccountStore) {
    this.#store = store;
  }

  record(event: { accountId: string; keyId: string; operationId: string; credits: number; statusCode: number }, at = new Date()): void {
    const period = periodOf(at);
    const id = `${event.accountId}\n${event.keyId}\n${event.operationId}\n${period}`;
    let count = this.#pending.get(id);
    if (!count) {
      count = { accountId: event.accountId, keyId: event.keyId, operationId: event.operationId, period, calls: 0, failures: 0, credits: 0 };
      this.#pending.set(id, count);
    }
    count.calls += 1;
    count.credits += event.credits;
    if (event.statusCode >= 400) count.failures += 1;
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#flushing = this.#flushing.then(() => this.#store.addUsage(batch));
    return this.#flushing;
  }
}
