// Analyses run on worker threads with heaps of their own (analysis-worker.ts). Parsing a 1 MB
// page allocates about 25 MB; on the main thread V8 lets that garbage pile up to hundreds of
// megabytes before collecting it (its limit there is gigabytes), and a long parse stalls every
// other request. A worker's heap is capped (oldSpaceMb, 96 MB: room for a page of ordinary markup
// up to the 5 MB fetch cap), so it collects as it goes. A page whose analysis outgrows the cap
// kills only its worker: that call answers 422 document_too_complex, the worker is replaced, and
// nothing else fails. The pool is bounded: a few threads, one job each, the rest waiting in a line
// shared fairly between accounts (engines/fair-queue.ts, the owner from engines/job-owner.ts as the
// engines have it): the next analysis comes from the account with the fewest running, then the one
// served least recently, and no account holds more than half the threads, so one account's burst
// of large pages (or of local HTML through the playbooks) does not hold up another's.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { tooComplex } from '../core/errors.ts';
import { FairQueue, type OwnerGroup, type QueuedJob } from '../engines/fair-queue.ts';
import { currentJobOwner } from '../engines/job-owner.ts';
import type { AnalysisAnswer, AnalysisJob } from './analysis-worker.ts';
import type { Report } from './findings.ts';
import type { PageFacts } from './page-facts.ts';
import type { Analyzer } from './scoring.ts';

const WORKER_URL = new URL('./analysis-worker.ts', import.meta.url);
export interface AnalysisPoolOptions {
  /** worker threads (default: one per core beyond the one serving requests, at least one, at most two) */
  workers: number;
  /** each worker's old-generation heap, in MB */
  oldSpaceMb: number;
}

const DEFAULTS: AnalysisPoolOptions = { workers: Math.max(1, Math.min(2, availableParallelism() - 1)), oldSpaceMb: 96 };
/**
 * Each worker's young generation. An analysis's garbage is short-lived (the parse tree, the
 * analyzers' walks), and a young generation that holds one page's worth of it lets the scavenger
 * free it where it was made: at 8 MB most of it outlived its scavenge and was promoted, and the
 * major collections that then cleared the old generation took more CPU than the analyses (the
 * seo-audit steps on a 75 KB page: 24.5 ms and 34.6 ms of CPU a pass at 8 MB, 15.0 ms and 15.7 ms
 * at 32; at 16 and 24 MB still ~23 ms). 64 MB helped 400 KB pages further (140 -> 78 ms against
 * 123 at 32) but put bench:concurrent's RSS growth on its 100 MB line; 32 keeps it where it was.
 */
const WORKER_YOUNG_SPACE_MB = 32;

interface Pending {
  job: AnalysisJob;
  /** the account's line in the queue; its running count holds a slot until the job settles */
  group: OwnerGroup;
  /** its place in the queue while it waits; null once a thread took it (or it left) */
  ticket: QueuedJob | null;
  /** counted as running by the queue (from dispatch until it settles) */
  counted: boolean;
  resolve(answer: AnalysisAnswer): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  running: Pending | null;
}

let nextId = 1;

/** The body's memory, when the body is the whole of it (never a slice of Node's shared pool). */
function transferable(job: AnalysisJob): ArrayBuffer[] {
  const body = job.facts?.body;
  if (!body || body.byteOffset !== 0 || body.byteLength !== body.buffer.byteLength || !(body.buffer instanceof ArrayBuffer)) return [];
  return [body.buffer];
}

export class AnalysisPool {
  readonly #slots: Slot[] = [];
  readonly #options: AnalysisPoolOptions;
  /** No bound of its own: what waits here already holds a fetch slot or a request (their limits bound it). */
  readonly #queue: FairQueue;

  constructor(options: Partial<AnalysisPoolOptions> = {}) {
    this.#options = { ...DEFAULTS, ...options };
    this.#queue = new FairQueue(Infinity, Infinity, this.#options.workers);
  }

  /**
   * `parseKey`: a token of the caller's own job, the same for each of its calls on one page, when
   * they may share one parse of it (parse-reuse.ts); null, the default, shares nothing.
   */
  run(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string, signal?: AbortSignal, parseKey: string | null = null): Promise<Report> {
    return this.#submit(this.#job(analyzers, html, facts, url, false, null, parseKey), signal).then((answer) => answer.report);
  }

  /** The same report, with each analyzer's reading of the parse when every one keeps one (page-analysis.ts). */
  runKeepingReadings(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string, signal?: AbortSignal): Promise<AnalysisAnswer> {
    return this.#submit(this.#job(analyzers, html, facts, url, true, null), signal);
  }

  /** A second analysis of a page from the readings runKeepingReadings kept, with new facts: no parse. */
  runReadings(analyzers: readonly Analyzer[], readings: unknown[], facts: PageFacts | null, url: string, signal?: AbortSignal): Promise<Report> {
    return this.#submit(this.#job(analyzers, '', facts, url, false, readings), signal).then((answer) => answer.report);
  }

  #job(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string, keepReadings: boolean, readings: unknown[] | null, parseKey: string | null = null): AnalysisJob {
    // The page crosses once: its bytes are moved, not copied, when they own their memory, and the
    // text is decoded again on the worker rather than sent beside them.
    return { id: nextId++, analyzers: analyzers.map((a) => a.id), facts: facts === null ? null : { ...facts, text: '' }, html: facts === null ? html : '', url, keepReadings, readings, parseKey };
  }

  #submit(job: AnalysisJob, signal: AbortSignal | undefined): Promise<AnalysisAnswer> {
    signal?.throwIfAborted();
    return new Promise<AnalysisAnswer>((resolve, reject) => {
      const group = this.#queue.group(currentJobOwner());
      const pending: Pending = { job, group, ticket: null, counted: false, resolve, reject, signal };
      const onAbort = () => this.#cancel(pending);
      signal?.addEventListener('abort', onAbort, { once: true });
      // Settles once: the account's running count is given back with the job's end, however it ends.
      let settled = false;
      const settle = () => {
        if (settled) return false;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (pending.counted) this.#queue.finished(group);
        return true;
      };
      pending.resolve = (answer) => {
        if (settle()) resolve(answer);
      };
      pending.reject = (error) => {
        if (settle()) reject(error);
      };
      const ticket: QueuedJob = {
        group,
        seq: this.#queue.nextSeq(),
        // Called by #dispatch with the index of the slot that takes the job (the queue counted it as running).
        resolve: (index) => {
          pending.ticket = null;
          pending.counted = true;
          const slot = this.#slots[index];
          if (slot === undefined) throw new Error('analysis slot vanished before its job started');
          this.#start(slot, pending);
        },
        reject: (error) => pending.reject(error),
      };
      pending.ticket = ticket;
      this.#queue.push(ticket);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.size > 0) {
      let slot = this.#slots.find((s) => s.running === null);
      if (slot === undefined && this.#slots.length < this.#options.workers) slot = this.#spawn();
      if (slot === undefined) return;
      // Undefined when every waiting account is at its share: their jobs wait, the thread stays free.
      const next = this.#queue.next();
      if (next === undefined) return;
      next.resolve(this.#slots.indexOf(slot));
    }
  }

  #start(slot: Slot, pending: Pending): void {
    slot.running = pending;
    // A worker holds the process open while it works, never while it idles.
    slot.worker.ref();
    // The job waits for the worker to have loaded its analyzers; its messages queue until then.
    slot.ready.then(
      () => slot.worker.postMessage(pending.job, transferable(pending.job)),
      (error: unknown) => this.#fail(slot, error),
    );
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: this.#options.oldSpaceMb, maxYoungGenerationSizeMb: WORKER_YOUNG_SPACE_MB } });
    let markReady: () => void = () => {};
    let markFailed: (error: unknown) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => {});
    const slot: Slot = { worker, ready, running: null };
    worker.on('message', (message: { ready?: true; id?: number; report?: Report; readings?: unknown[] | null; error?: string }) => {
      if (message.ready) return markReady();
      const pending = slot.running;
      if (pending === null || message.id !== pending.job.id) return;
      slot.running = null;
      slot.worker.unref();
      if (message.report !== undefined) pending.resolve({ report: message.report, readings: message.readings ?? null });
      else pending.reject(new Error(`analysis failed: ${message.error ?? 'unknown error'}`));
      this.#dispatch();
    });
    worker.on('error', (error) => {
      markFailed(error);
      this.#fail(slot, error);
    });
    worker.on('exit', () => {
      markFailed(new Error('the analysis worker stopped'));
      this.#fail(slot, new Error('the analysis worker stopped'));
    });
    // Idle workers must not keep a finished process alive (after the listeners: adding one refs the worker again).
    worker.unref();
    this.#slots.push(slot);
    return slot;
  }

  /** The slot's worker is gone (out of memory, crashed, terminated): its job fails, a new worker takes the queue. */
  #fail(slot: Slot, error: unknown): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    void slot.worker.terminate();
    const pending = slot.running;
    slot.running = null;
    if (pending !== null) {
      const outOfMemory = (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      pending.reject(
        outOfMemory
          ? tooComplex('The page is too large or complex to analyse', `Analysing it needed more than the ${this.#options.oldSpaceMb} MB one analysis may use`)
          : pending.signal?.aborted
            ? pending.signal.reason
            : error,
      );
    }
    this.#dispatch();
  }

  /** Stops every worker (tests; the process's own pool lives as long as the process). */
  close(): void {
    for (const slot of this.#slots.splice(0)) void slot.worker.terminate();
  }

  /** A call that ended (time limit, caller gone) takes its analysis with it: waiting, or running. */
  #cancel(pending: Pending): void {
    const ticket = pending.ticket;
    if (ticket !== null) {
      this.#queue.remove(ticket);
      pending.ticket = null;
      pending.reject(pending.signal?.reason);
      return;
    }
    const slot = this.#slots.find((s) => s.running === pending);
    if (slot) this.#fail(slot, pending.signal?.reason);
  }
}

let pool: AnalysisPool | undefined;

/**
 * Runs analyzers on a page on the analysis workers: the same report analyzeFetched gives, off the
 * main thread. Calls of one job on the same page may pass one `parseKey` of the job's own to share
 * a parse (AnalysisPool.run).
 */
export function analyzeOnWorker(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string, signal?: AbortSignal, parseKey: string | null = null): Promise<Report> {
  pool ??= new AnalysisPool();
  return pool.run(analyzers, html, facts, url, signal, parseKey);
}

/** analyzeOnWorker keeping what each analyzer read of the page, for analyzeReadingsOnWorker (null when not kept). */
export function analyzeOnWorkerKeepingReadings(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string, signal?: AbortSignal): Promise<AnalysisAnswer> {
  pool ??= new AnalysisPool();
  return pool.runKeepingReadings(analyzers, html, facts, url, signal);
}

/** The page analysed again from its kept readings with new facts, on the analysis workers: the report a fresh parse would give. */
export function analyzeReadingsOnWorker(analyzers: readonly Analyzer[], readings: unknown[], facts: PageFacts | null, url: string, signal?: AbortSignal): Promise<Report> {
  pool ??= new AnalysisPool();
  return pool.runReadings(analyzers, readings, facts, url, signal);
}
