export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * Per-account requests-per-minute, a fixed one-minute window aligned to the clock, kept in
 * memory: it guards a node against bursts. The credit quota, which must hold across nodes,
 * lives in the database; a shared store (Redis) replaces this class for many nodes.
 */
export class RateLimiter {
  readonly #windows = new Map<string, { window: number; count: number }>();
  #lastSweep = 0;

  take(accountId: string, limit: number, nowMs = Date.now()): RateDecision {
    const window = Math.floor(nowMs / 60_000);
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * 60_000 - nowMs) / 1000));
    if (window !== this.#lastSweep) this.#sweep(window);
    let entry = this.#windows.get(accountId);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.#windows.set(accountId, entry);
    }
    if (entry.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    entry.count += 1;
    return { allowed: true, limit, remaining: limit - entry.count, resetSeconds };
  }

  #sweep(window: number): void {
    this.#lastSweep = window;
    for (const [id, entry] of this.#windows) if (entry.window < window) this.#windows.delete(id);
  }
}
