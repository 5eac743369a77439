import type { AccountStore, UsageEvent } from './account-store.ts';

/**
 * Usage events are written in batches, a few times a second, instead of one commit per call.
 * A reader in this process (GET /usage) flushes first, so it sees its own calls; another
 * process's calls show within `intervalMs`.
 */
export class UsageRecorder {
  readonly #store: AccountStore;
  #buffer: UsageEvent[] = [];
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: AccountStore) {
    this.#store = store;
  }

  record(event: Omit<UsageEvent, 'createdAt'>): void {
    this.#buffer.push({ ...event, createdAt: new Date() });
    if (this.#buffer.length >= 2000) void this.flush();
  }

  flush(): Promise<void> {
    const batch = this.#buffer;
    if (batch.length === 0) return this.#flushing;
    this.#buffer = [];
    this.#flushing = this.#flushing.then(() => this.#store.recordUsageBatch(batch));
    return this.#flushing;
  }
}
