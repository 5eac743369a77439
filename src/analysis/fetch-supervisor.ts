// The fetcher is supervised like an engine, so that a burst of analyses cannot exhaust sockets or
// memory: at most `concurrency` fetches run at once, at most `perAccount` of them for one account
// (and never more than half the slots: fairShare), accounts served in turn (the engines' FairQueue),
// and at most `maxQueued` wait (an account may keep only its share of those waiting); beyond that
// the caller gets 429 fetch_busy with Retry-After. Its state is an EngineStatus for /readyz.
import type { Config } from '../config.ts';
import { ServiceError } from '../core/errors.ts';
import type { EngineStatus } from '../engines/engine-types.ts';
import { FairQueue, type OwnerGroup, type QueuedJob } from '../engines/fair-queue.ts';
import { noteFetchedBytes } from '../files/buffer-reclaim.ts';
import { DEFAULT_FETCH_LIMITS, fetchPage, type FetcherOptions, type FetchLimits } from './fetcher.ts';
import type { PageFacts } from './page-facts.ts';
import type { PageMemo } from './page-memo.ts';

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

export class FetchSupervisor {
  readonly options: Required<FetchSupervisorOptions>;
  // The engines' waiting room (round-robin between accounts, each under its cap, each with its own
  // bound of waiting fetches); its slots are this supervisor's concurrency.
  private readonly queue: FairQueue;
  private running = 0;

  constructor(options: FetchSupervisorOptions) {
    this.options = {
      maxQueuedPerAccount: Math.max(1, Math.floor(options.maxQueued / 4)),
      retryAfterSeconds: 2,
      ...options,
    };
    this.queue = new FairQueue(this.options.maxQueued, this.options.maxQueuedPerAccount, this.options.concurrency);
  }

  /** Runs a task in a slot of `account` (null for the service's own work), waiting or answering 429. */
  async run<T>(account: string | null, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    // An account's cap is FETCH_PER_ACCOUNT within a fair share of the slots (fairShare).
    const group = this.queue.group(account === null ? undefined : { id: account, maxJobs: this.options.perAccount });
    // Fetches already waiting for a free slot go first (normally there are none).
    if (this.queue.underCap(group)) this.dispatch();
    if (this.running < this.options.concurrency && this.queue.underCap(group)) {
      this.running++;
      this.queue.started(group);
    } else {
      await this.wait(group, signal);
    }
    try {
      return await task();
    } finally {
      this.release(group);
    }
  }

  status(): EngineStatus {
    return {
      name: 'fetcher',
      version: null,
      state: 'ready',
      workers: 0,
      queued: this.queue.size,
      running: this.running,
      concurrency: this.options.concurrency,
    };
  }

  private release(group: OwnerGroup): void {
    this.running--;
    this.queue.finished(group);
    this.dispatch();
  }

  /** Starts waiting fetches while slots are free, the next account in turn first. */
  private dispatch(): void {
    while (this.running < this.options.concurrency) {
      const next = this.queue.next();
      if (next === undefined) return;
      if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
      this.running++;
      next.resolve(0);
    }
  }

  private wait(group: OwnerGroup, signal: AbortSignal | undefined): Promise<void> {
    const refusal = this.queue.refusal(group);
    if (refusal !== null) {
      this.queue.forgetIfIdle(group);
      const whose = refusal === 'queue_full' ? 'the fetch queue is full' : 'this account already has its share of fetches waiting';
      throw new ServiceError(429, 'fetch_busy', `Too many URL fetches at once: ${whose}; retry shortly`, {
        detail: `${this.running} fetches running, ${this.queue.size} waiting (limits: ${this.options.concurrency} running, ${Math.min(this.options.perAccount, this.queue.ownerShare)} per account, ${this.options.maxQueued} waiting)`,
        headers: { 'Retry-After': String(this.options.retryAfterSeconds) },
      });
    }
    return new Promise<void>((resolve, reject) => {
      const entry: QueuedJob = { group, seq: this.queue.nextSeq(), resolve: () => resolve(), reject };
      if (signal) {
        entry.signal = signal;
        entry.onAbort = () => {
          this.queue.remove(entry);
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.queue.push(entry);
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
  /** the job's pages (page-memo.ts): a plain GET of a page it has read is not fetched again; fetchAndUse keeps what it reads */
  memo?: PageMemo;
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
        // The job's copy when it has one (still in a page slot: using it holds memory like a fetch).
        const kept = options.memo?.take(url, options);
        const facts = kept ?? (await supervisor.run(account, () => fetchPage(url, merge(options)), options.signal));
        if (kept === undefined) options.memo?.keep(url, options, facts);
        // Read now: the body may be handed (moved) to an analysis worker. A kept page crossed no
        // network, but its copy allocated the body once more.
        const bytes = kept === undefined ? facts.transferBytes + facts.body.byteLength : facts.body.byteLength;
        try {
          return await use(facts);
        } finally {
          noteFetchedBytes(bytes);
        }
      };
      return pages.run(account, fetchAndUseOnce, options.signal);
    },
    fetch(url, options = {}) {
      // A page the job has read already (fetchAndUse kept it) is not fetched again; nothing fetched here is kept.
      const kept = options.memo?.take(url, options);
      if (kept !== undefined) return Promise.resolve(kept);
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
