import { AsyncLocalStorage } from 'node:async_hooks';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * What the surfaces take from: the in-memory RateLimiter below (one node), or the shared one
 * (shared-rate-limiter.ts, REDIS_URL) that counts every node's requests together. Callers await
 * take() whichever it is.
 */
export interface RequestLimiter {
  /** One token of `key`'s window (an account id, or `address:` and a client address). */
  take(key: string, limit: number): RateDecision | Promise<RateDecision>;
  /** Runs `work` as one request that already took its token `decision` (see RateLimiter.covered). */
  covered<T>(key: string, decision: RateDecision, work: () => T): T;
}

/** A token a surface took for a whole request, still unspent by the calls that request makes. */
interface Cover {
  accountId: string;
  decision: RateDecision;
  spent: boolean;
}

/**
 * Per-account requests-per-minute, a fixed one-minute window aligned to the clock, kept in
 * memory: it guards a node against bursts. The credit quota, which must hold across nodes,
 * lives in the database. For many nodes SharedRateLimiter counts in Redis and keeps one of these as
 * its fallback for an outage.
 */
export class RateLimiter implements RequestLimiter {
  readonly #windows = new Map<string, { window: number; count: number }>();
  readonly #covers = new AsyncLocalStorage<Cover>();
  #lastSweep = 0;

  take(accountId: string, limit: number, nowMs = Date.now()): RateDecision {
    const paid = this.spendCover(accountId);
    if (paid !== undefined) return paid;
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

  /**
   * Runs `work` as one request that has already taken its token (`decision`, allowed): the first
   * take() for the same account inside it, such as the one invoke makes for an MCP invoke_tool, is
   * that token rather than a second one. A request whose work makes several calls (a playbook's
   * steps) pays for the others as usual, and one that makes none (a free tool) still paid one.
   */
  covered<T>(accountId: string, decision: RateDecision, work: () => T): T {
    return this.#covers.run({ accountId, decision, spent: false }, work);
  }

  /**
   * The token the request in progress already took for `accountId` (see covered()), spent by
   * this call; undefined when there is none left. Synchronous, so a shared limiter checks it
   * before its first await, in the caller's async context.
   */
  spendCover(accountId: string): RateDecision | undefined {
    const cover = this.#covers.getStore();
    if (cover === undefined || cover.spent || cover.accountId !== accountId) return undefined;
    cover.spent = true;
    return cover.decision;
  }

  #sweep(window: number): void {
    this.#lastSweep = window;
    for (const [id, entry] of this.#windows) if (entry.window < window) this.#windows.delete(id);
  }
}
