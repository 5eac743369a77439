// The fetcher is supervised like an engine, so that a burst of analyses cannot exhaust sockets or
// memory: at most `concurrency` fetches run at once, at most `perAccount` of them for one account,
// and at most `maxQueued` wait (an account may keep only its share of those waiting); beyond that
// the caller gets 429 fetch_busy with Retry-After. Its state is an EngineStatus for /readyz.
import type { Config } from '../config.ts';
import { ServiceError } from '../core/errors.ts';
import type { EngineStatus } from '../engines/engine-types.ts';
import { noteFetchedBytes } from './buffer-reclaim.ts';
import { DEFAULT_FETCH_LIMITS, fetchPage, type FetcherOptions, type FetchLimits } from './fetcher.ts';
import type { PageFacts } from './page-facts.ts';

export interface FetchSupervisorOptions {
  /** fetches running at once over all accounts */
  concurrency: number;
  /** fetches one account may run at once */
  perAccount: number;
  /** fetches that may wait for a slot before 429 */
  maxQueued: number;
  /** fetches one account may keep waiting (default a quarter of maxQueued, at least 1) */
  maxQueuedPerAccount?: number;
  /** the Retry-After a refused caller is given, in seconds (default 2) */
  retryAfterSeconds?: number;
}

interface Waiting {
  account: string | null;
  start: () => void;
  cancel: () => void;
}

export class FetchSupervisor {
  readonly options: Required<FetchSupervisorOptions>;
  private readonly waiting: Waiting[] = [];
  private readonly runningBy = new Map<string | null, number>();
  private running = 0;

  constructor(options: FetchSupervisorOptions) {
    this.options = {
      maxQueuedPerAccount: Math.max(1, Math.floor(options.maxQueued / 4)),
      retryAfterSeconds: 2,
      ...options,
    };
  }

  /** Runs a task in a slot of `account` (null for the service's own work), waiting or answering 429. */
  async run<T>(account: string | null, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (!this.canStart(account)) await this.wait(account, signal);
    else this.take(account);
    try {
      return await task();
    } finally {
      this.release(account);
    }
  }

  status(): EngineStatus {
    return {
      name: 'fetcher',
      version: null,
      state: 'ready',
      workers: 0,
      queued: this.waiting.length,
      running: this.running,
      concurrency: this.options.concurrency,
    };
  }

  private canStart(account: string | null): boolean {
    return this.running < this.options.concurrency && (account === null || (this.runningBy.get(account) ?? 0) < this.options.perAccount);
  }

  private take(account: string | null): void {
    this.running++;
    this.runningBy.set(account, (this.runningBy.get(account) ?? 0) + 1);
  }

  private release(account: string | null): void {
    this.running--;
    const left = (this.runningBy.get(account) ?? 1) - 1;
    if (left === 0) this.runningBy.delete(account);
    else this.runningBy.set(account, left);
    // The oldest waiting fetch whose account is under its cap goes next.
    const next = this.waiting.findIndex((w) => this.canStart(w.account));
    if (next >= 0) {
      const [job] = this.waiting.splice(next, 1);
      if (job !== undefined) {
        this.take(job.account);
        job.start();
      }
    }
  }

  private wait(account: string | null, signal: AbortSignal | undefined): Promise<void> {
    const mine = this.waiting.filter((w) => w.account === account).length;
    if (this.waiting.length >= this.options.maxQueued || (account !== null && mine >= this.options.maxQueuedPerAccount)) {
      const whose = this.waiting.length >= this.options.maxQueued ? 'the fetch queue is full' : 'this account already has its share of fetches waiting';
      throw new ServiceError(429, 'fetch_busy', `Too many URL fetches at once: ${whose}; retry shortly`, {
        detail: `${this.running} fetches running, ${this.waiting.length} waiting (limits: ${this.options.concurrency} running, ${this.options.perAccount} per account, ${this.options.maxQueued} waiting)`,
        headers: { 'Retry-After': String(this.options.retryAfterSeconds) },
      });
    }
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        account,
        start: () => {
          signal?.removeEventListener('abort', entry.cancel);
          resolve();
        },
        cancel: () => {
          const index = this.waiting.indexOf(entry);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal?.reason ?? new Error('aborted'));
        },
      };
      this.waiting.push(entry);
      signal?.addEventListener('abort', entry.cancel, { once: true });
    });
  }
}

export interface EgressFetchOptions {
  /** whose fetch slots it runs in (null: the service's own work) */
  account?: string | null;
  signal?: AbortSignal;
  /** tighter limits for this fetch; a looser value than the configured one is ignored */
  limits?: Partial<FetchLimits>;
  method?: FetcherOptions['method'];
  headers?: Record<string, string>;
  /** with method POST: the body, bounded (see MAX_REQUEST_BODY_BYTES) */
  body?: FetcherOptions['body'];
}

export interface EgressFetcher {
  /** Fetches a URL for an account, in a slot of the supervisor. */
  fetch(url: string | URL, options?: EgressFetchOptions): Promise<PageFacts>;
  /**
   * Fetches a URL and hands the page to `use` inside the same slot: a fetched page counts against
   * the fetch limits until it has been analysed, so a burst cannot pile up pages in memory.
   */
  fetchAndUse<T>(url: string | URL, use: (facts: PageFacts) => Promise<T>, options?: EgressFetchOptions): Promise<T>;
  status(): EngineStatus;
}

/** The one fetcher of the process: the policy and limits of the configuration, under a supervisor. */
export function createEgressFetcher(fetcherOptions: Omit<FetcherOptions, 'signal'>, supervisorOptions: FetchSupervisorOptions): EgressFetcher {
  const supervisor = new FetchSupervisor(supervisorOptions);
  // Pages fetched to be used (analysed) are held in memory until used, and using them is slower
  // than fetching them: a quarter of the fetch slots (two per account) may hold a page, so a
  // burst waits before fetching rather than with a page in hand. Same fairness, same 429.
  const pages = new FetchSupervisor({
    concurrency: Math.max(2, Math.floor(supervisorOptions.concurrency / 4)),
    perAccount: Math.max(1, Math.floor(supervisorOptions.perAccount / 2)),
    maxQueued: supervisorOptions.maxQueued,
    ...(supervisorOptions.maxQueuedPerAccount === undefined ? {} : { maxQueuedPerAccount: supervisorOptions.maxQueuedPerAccount }),
  });
  const merge = (options: EgressFetchOptions): FetcherOptions => {
    const { signal, limits, method, headers, body } = options;
    return {
      ...fetcherOptions,
      limits: tighter(fetcherOptions.limits ?? {}, limits ?? {}),
      ...(signal === undefined ? {} : { signal }),
      ...(method === undefined ? {} : { method }),
      ...(headers === undefined ? {} : { headers }),
      ...(body === undefined ? {} : { body }),
    };
  };
  return {
    fetchAndUse(url, use, options = {}) {
      const account = options.account ?? null;
      const fetchAndUseOnce = async () => {
        const facts = await supervisor.run(account, () => fetchPage(url, merge(options)), options.signal);
        // Read now: the body may be handed (moved) to an analysis worker.
        const bytes = facts.transferBytes + facts.body.byteLength;
        try {
          return await use(facts);
        } finally {
          noteFetchedBytes(bytes);
        }
      };
      return pages.run(account, fetchAndUseOnce, options.signal);
    },
    fetch(url, options = {}) {
      return supervisor.run(options.account ?? null, () => fetchPage(url, merge(options)), options.signal);
    },
    status: () => supervisor.status(),
  };
}

/** Each limit a call asks for, where it is tighter than the configured one (or the default). */
function tighter(configured: Partial<FetchLimits>, asked: Partial<FetchLimits>): Partial<FetchLimits> {
  const out: Partial<FetchLimits> = { ...configured };
  for (const key of Object.keys(asked) as (keyof FetchLimits)[]) {
    const value = asked[key];
    if (value === undefined) continue;
    const base = configured[key] ?? DEFAULT_FETCH_LIMITS[key];
    out[key] = Math.min(base, value);
  }
  return out;
}

/** The fetcher as the configuration sets it (EGRESS_ALLOW, EGRESS_RESOLVE, FETCH_*); trusted CAs are Node's plus NODE_EXTRA_CA_CERTS. */
export function egressFetcherFromConfig(config: Pick<Config, 'egress' | 'fetch'>): EgressFetcher {
  const { maxBytes, connectTimeoutMs, totalTimeoutMs, concurrency, perAccount, maxQueued } = config.fetch;
  return createEgressFetcher(
    { policy: config.egress, limits: { maxBytes, connectTimeoutMs, totalTimeoutMs } },
    { concurrency, perAccount, maxQueued },
  );
}
