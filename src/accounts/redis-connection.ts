// The process's one connection to Redis (REDIS_URL), for what nodes must share and read fast: the
// per-minute rate limits today (shared-rate-limiter.ts), run wake-ups and the like later. Every use
// goes through attempt(), which never waits long and never throws: Redis is an accelerator of
// sharing, not a dependency of serving, so a use that gets no answer falls back to what the node
// can do alone. The connection keeps the outage's state: one warning when Redis stops answering,
// one line when it answers again, and status() for /readyz.
//
// It lives in accounts/, the lowest room besides db/, so that every room above (runs/ included)
// may share it; it holds no account logic.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisStatus {
  /** ready: shared state is in Redis; degraded: Redis does not answer and each node works alone */
  state: 'ready' | 'degraded';
  detail?: string;
  /** ISO time the outage began (degraded only) */
  since?: string;
}

export interface RedisConnectionOptions {
  /** A use that has no answer within this is taken as an outage (the caller falls back). */
  commandTimeoutMs?: number;
  /** While Redis is out, how often a PING checks whether it answers again. */
  probeEveryMs?: number;
}

/** `redis://host:port/db` without its credentials, for log lines and /readyz. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? parsed.pathname : ''}`;
  } catch {
    return 'redis (unparsable URL)';
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class RedisConnection {
  readonly client: Redis;
  readonly #log: Logger;
  readonly #where: string;
  readonly #probeEveryMs: number;
  /** true while Redis answers; false from the first failed use (or before the first connection) until a PING answers */
  #up = false;
  #outage: { since: Date; reason: string } | undefined;
  #probe: NodeJS.Timeout | undefined;
  /** the PING in flight, if any: a second check waits for it rather than sending another */
  #checking: Promise<void> | undefined;
  #closed = false;

  constructor(url: string, log: Logger, options: RedisConnectionOptions = {}) {
    this.#log = log;
    this.#where = describeRedisUrl(url);
    this.#probeEveryMs = options.probeEveryMs ?? 1000;
    this.client = new Redis(url, {
      // No command waits for a connection: without one it fails at once and the caller falls back.
      enableOfflineQueue: false,
      // A command caught by a dropped connection fails rather than being sent again on reconnect.
      maxRetriesPerRequest: 0,
      // A Redis that accepts the connection but does not answer (overloaded, stopped) is an outage too.
      // 1 s, not less: the timer is judged on this process's event loop, and when the loop stalls
      // (a burst of work on a busy machine) an expired timer runs before the reply waiting on the
      // socket, so a short limit takes our own stall for Redis's outage and counts per node. With
      // 200 ms, 30 concurrent calls on a loaded 2-core machine did that. A hung Redis costs the
      // calls in flight this second once; after it the node is marked out and asks nothing.
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: 2000,
      // Reconnect for ever, backing off to a second: the outage ends within a second of Redis's return.
      retryStrategy: (times) => Math.min(times * 50, 1000),
    });
    // Connection errors repeat on every reconnect attempt; the outage itself is logged once (#down).
    this.client.on('error', (err: unknown) => this.#log.debug({ err: errorText(err), redis: this.#where }, 'redis connection error'));
    this.client.on('ready', () => void this.#check());
    this.client.on('close', () => this.#down('the connection closed'));
  }

  /** Waits up to `timeoutMs` for the first connection; without one the node starts degraded (and says so). */
  async connect(timeoutMs: number): Promise<void> {
    if (this.client.status !== 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.client.once('ready', () => resolve())),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    if (this.client.status === 'ready') await this.#check();
    if (!this.#up) this.#down(`no connection within ${timeoutMs} ms of the start`);
  }

  /**
   * Runs one use of Redis. Answers `{ value }`, or undefined when Redis does not answer (refused,
   * timed out, out since an earlier use): the caller then does what one node can. While Redis is
   * out no use is attempted; a PING every second finds when it is back.
   */
  async attempt<T>(use: (client: Redis) => Promise<T>): Promise<{ value: T } | undefined> {
    if (!this.#up) return undefined;
    try {
      return { value: await use(this.client) };
    } catch (err) {
      this.#down(errorText(err));
      return undefined;
    }
  }

  status(): RedisStatus {
    if (this.#up) return { state: 'ready' };
    const outage = this.#outage;
    return {
      state: 'degraded',
      detail: `${this.#where} does not answer (${outage?.reason ?? 'not connected'}): rate limits are counted per node until it does`,
      ...(outage ? { since: outage.since.toISOString() } : {}),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    this.#probe = undefined;
    // Nothing is buffered to flush: disconnect at once, whether Redis answers or not.
    this.client.disconnect();
  }

  #down(reason: string): void {
    if (this.#closed) return;
    if (this.#up || this.#outage === undefined) {
      this.#up = false;
      this.#outage = { since: new Date(), reason };
      this.#log.warn({ redis: this.#where, reason }, 'Redis does not answer: rate limits are per node until it does');
    }
    this.#probe ??= setInterval(() => void this.#check(), this.#probeEveryMs).unref();
  }

  /** A PING within the command timeout ends an outage. */
  #check(): Promise<void> {
    if (this.#up || this.#closed) return Promise.resolve();
    this.#checking ??= this.#ping().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #ping(): Promise<void> {
    try {
      await this.client.ping();
      if (this.#closed) return;
      const outage = this.#outage;
      this.#up = true;
      this.#outage = undefined;
      clearInterval(this.#probe);
      this.#probe = undefined;
      if (outage) {
        this.#log.info({ redis: this.#where, outageMs: Date.now() - outage.since.getTime() }, 'Redis answers again: rate limits are shared between nodes again');
      }
    } catch {
      // Still out: the next probe tries again.
    }
  }
}
