// The compute pool: worker threads that run the tools whose cost grows with their input (parsing
// XML, YAML, JSON and CSV, text over a small size), so that no input computes on the main thread,
// which only routes, authorises and streams. A parse that runs for minutes or grows by a gigabyte
// then stalls one worker, not /healthz and every other account.
//
// The same rules as the engines (engines/supervisor.ts): a bounded queue shared fairly between
// accounts (engines/fair-queue.ts; the owner comes from engines/job-owner.ts, set by invoke), each
// account holding at most a fair share of the workers (half, at least one) and keeping a bounded
// number of jobs waiting, 429 engine_busy with Retry-After when full (refunded: nothing was done).
// A job past its time limit, or whose worker runs out of its heap, was held there by its input:
// that worker is terminated and replaced, and the call answers 422 document_too_complex, charged.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { FairQueue, type OwnerGroup, type QueuedJob } from '../engines/fair-queue.ts';
import { currentJobOwner } from '../engines/job-owner.ts';
import type { ComputeErrorData, ComputeJobMessage, ComputeReply, LogLevel } from './compute-worker.ts';
import { ServiceError, tooComplex } from './errors.ts';

const WORKER_URL = new URL('./compute-worker.ts', import.meta.url);
const YOUNG_SPACE_MB = 16;

export interface ComputePoolOptions {
  /** worker threads: one per core beyond the one serving requests, at least one */
  workers: number;
  /** per-job time limit in ms, from the moment the worker starts the job */
  jobTimeoutMs: number;
  /** each worker's old-generation heap, in MB */
  memoryMb: number;
  /** jobs that may wait for a worker before the pool answers 429 */
  maxQueued: number;
  /** jobs one account may keep waiting (default a quarter of maxQueued, at least 1) */
  maxQueuedPerOwner?: number;
}

export const DEFAULT_COMPUTE_WORKERS = Math.max(1, availableParallelism() - 1);

export type ComputeJob = Omit<ComputeJobMessage, 'id'>;

export interface ComputeResult {
  result: unknown;
  warnings: string[];
  logs: [LogLevel, string][];
}

export interface ComputePoolStatus {
  name: 'compute';
  state: 'ready' | 'closed';
  /** live worker threads */
  workers: number;
  queued: number;
  running: number;
  concurrency: number;
  /** most jobs of one account running at once */
  perAccount: number;
}

export interface ComputeJobStart {
  operationId: string;
  /** the account the job runs for; null for the service's own work */
  owner: string | null;
}

interface Running {
  id: number;
  operationId: string;
  group: OwnerGroup;
  resolve(result: ComputeResult): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
  started: number;
}

interface Slot {
  worker: Worker;
  running: Running | null;
}

let nextJobId = 1;

function fromWorker(data: ComputeErrorData): ServiceError {
  return new ServiceError(data.status, data.error, data.message, { detail: data.detail, headers: data.headers, extra: data.extra });
}

export class ComputePool {
  readonly #options: Required<ComputePoolOptions>;
  readonly #queue: FairQueue;
  readonly #slots: (Slot | null)[];
  /** slots given to a job, from the moment it leaves the queue until it settles */
  readonly #taken: boolean[];
  readonly #startListeners = new Set<(job: ComputeJobStart) => void>();
  #avgJobMs = 200;
  #closed = false;

  constructor(options: ComputePoolOptions) {
    const workers = Math.max(1, options.workers);
    const maxQueued = Math.max(0, options.maxQueued);
    this.#options = { ...options, workers, maxQueued, maxQueuedPerOwner: Math.max(1, options.maxQueuedPerOwner ?? Math.ceil(maxQueued / 4)) };
    // Each owner's cap is clamped to perAccount in run(), whatever its plan.
    this.#queue = new FairQueue(maxQueued, this.#options.maxQueuedPerOwner);
    this.#slots = Array.from({ length: workers }, () => null);
    this.#taken = Array.from({ length: workers }, () => false);
  }

  /** Most jobs one account runs at once: a fair share of the workers (half, at least one), whatever its plan. */
  get perAccount(): number {
    return Math.max(1, Math.floor(this.#options.workers / 2));
  }

  /** Calls `listener` each time a worker starts a job (tests act on a job known to be running). */
  onJobStart(listener: (job: ComputeJobStart) => void): () => void {
    this.#startListeners.add(listener);
    return () => this.#startListeners.delete(listener);
  }

  status(): ComputePoolStatus {
    return {
      name: 'compute',
      state: this.#closed ? 'closed' : 'ready',
      workers: this.#slots.filter((s) => s !== null).length,
      queued: this.#queue.size,
      running: this.#slots.filter((s) => s?.running).length,
      concurrency: this.#options.workers,
      perAccount: this.perAccount,
    };
  }

  /** Runs `job` on a worker once the account's turn comes; aborting `signal` drops it (waiting) or ends its worker (running). */
  async run(job: ComputeJob, signal?: AbortSignal): Promise<ComputeResult> {
    if (this.#closed) throw new ServiceError(503, 'engine_unavailable', 'The service is shutting down', { extra: { engine: 'compute' } });
    signal?.throwIfAborted();
    const owner = currentJobOwner();
    const group = this.#queue.group(owner === undefined ? undefined : { ...owner, maxJobs: Math.min(owner.maxJobs, this.perAccount) });
    const index = await this.#acquire(group, signal);
    return this.#execute(index, group, job, signal);
  }

  /** Rejects waiting jobs and stops every worker. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#queue.drain()) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(new ServiceError(503, 'engine_unavailable', 'The service is shutting down', { extra: { engine: 'compute' } }));
    }
    const stopping: Promise<unknown>[] = [];
    for (const [index, slot] of this.#slots.entries()) {
      if (slot === null) continue;
      this.#slots[index] = null;
      slot.running?.reject(new ServiceError(503, 'engine_unavailable', 'The service is shutting down', { extra: { engine: 'compute' } }));
      stopping.push(slot.worker.terminate());
    }
    await Promise.allSettled(stopping);
  }

  // --- the queue ---------------------------------------------------------------------------

  #acquire(group: OwnerGroup, signal?: AbortSignal): Promise<number> {
    const free = this.#taken.indexOf(false);
    // Jobs already waiting go first; a job of an account under its share with a free worker starts now.
    if (free !== -1 && this.#queue.size === 0 && this.#queue.underCap(group)) {
      this.#queue.started(group);
      this.#taken[free] = true;
      return Promise.resolve(free);
    }
    const refusal = this.#queue.refusal(group);
    if (refusal !== null) {
      this.#queue.forgetIfIdle(group);
      const own = refusal === 'owner_queue_full';
      const ahead = own ? this.#queue.waitingOf(group) : this.#queue.size;
      const perRound = own ? Math.min(group.cap, this.#options.workers) : this.#options.workers;
      const retryAfter = Math.min(120, Math.max(1, Math.ceil((Math.ceil((ahead + 1) / perRound) * this.#avgJobMs) / 1000)));
      throw new ServiceError(429, 'engine_busy', own ? `You already have ${ahead} jobs waiting for the compute workers; retry in ${retryAfter} s` : `The compute workers are busy; retry in ${retryAfter} s`, {
        detail: own ? `at most ${this.#options.maxQueuedPerOwner} jobs of one account wait for the compute workers at once` : `at most ${this.#options.maxQueued} jobs wait for the compute workers at once`,
        headers: { 'Retry-After': String(retryAfter) },
        extra: { engine: 'compute', retryAfter },
      });
    }
    return new Promise<number>((resolve, reject) => {
      const waiter: QueuedJob = { group, seq: this.#queue.nextSeq(), resolve, reject };
      if (signal) {
        waiter.signal = signal;
        waiter.onAbort = () => {
          this.#queue.remove(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#queue.push(waiter);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.size > 0) {
      const free = this.#taken.indexOf(false);
      if (free === -1) return;
      // Undefined when every waiting account is at its share: their jobs wait, the worker stays free.
      const waiter = this.#queue.next();
      if (waiter === undefined) return;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      this.#taken[free] = true;
      waiter.resolve(free);
    }
  }

  #release(index: number, group: OwnerGroup): void {
    this.#taken[index] = false;
    this.#queue.finished(group);
    this.#dispatch();
  }

  // --- the workers -------------------------------------------------------------------------

  #spawn(index: number): Slot {
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: this.#options.memoryMb, maxYoungGenerationSizeMb: YOUNG_SPACE_MB } });
    const slot: Slot = { worker, running: null };
    worker.on('message', (reply: ComputeReply) => this.#onReply(slot, reply));
    worker.on('error', (error) => this.#lost(index, slot, error));
    worker.on('exit', () => this.#lost(index, slot, new Error('the compute worker stopped')));
    // An idle worker must not keep a finished process alive (after the listeners: adding one refs it again).
    worker.unref();
    this.#slots[index] = slot;
    return slot;
  }

  #execute(index: number, group: OwnerGroup, job: ComputeJob, signal?: AbortSignal): Promise<ComputeResult> {
    if (this.#closed) {
      this.#release(index, group);
      return Promise.reject(new ServiceError(503, 'engine_unavailable', 'The service is shutting down', { extra: { engine: 'compute' } }));
    }
    const slot = this.#slots[index] ?? this.#spawn(index);
    return new Promise<ComputeResult>((resolve, reject) => {
      const onAbort = (): void => {
        // The caller left or its time budget ended: the work is wasted, and its worker is ended with it.
        if (slot.running === running) this.#stop(index, slot, signal?.reason);
      };
      const settle = (): void => {
        clearTimeout(running.timer);
        signal?.removeEventListener('abort', onAbort);
        if (slot.running === running) {
          slot.running = null;
          slot.worker.unref();
        }
        this.#avgJobMs = this.#avgJobMs * 0.8 + (Date.now() - running.started) * 0.2;
        this.#release(index, group);
      };
      const running: Running = {
        id: nextJobId++,
        operationId: job.operationId,
        group,
        started: Date.now(),
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      slot.running = running;
      // A worker holds the process open while it works, never while it idles.
      slot.worker.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.worker.postMessage({ ...job, id: running.id } satisfies ComputeJobMessage);
      // A caller that left while the job waited for its worker gets no abort event: stop it now.
      if (signal?.aborted) onAbort();
    });
  }

  #onReply(slot: Slot, reply: ComputeReply): void {
    const running = slot.running;
    if (running === null || reply.id !== running.id) return;
    if ('started' in reply) {
      // The limit runs from the moment the worker has the tool and starts on the input.
      running.started = Date.now();
      running.timer = setTimeout(() => this.#timedOut(slot, running), this.#options.jobTimeoutMs);
      for (const listener of this.#startListeners) {
        try {
          listener({ operationId: running.operationId, owner: running.group.key });
        } catch {
          // A listener's failure is its own; the job runs on.
        }
      }
      return;
    }
    if (reply.ok) return running.resolve({ result: reply.result, warnings: reply.warnings, logs: reply.logs });
    if (reply.serviceError) return running.reject(fromWorker(reply.serviceError));
    running.reject(new ServiceError(500, 'internal_error', 'The service failed while handling the request', { detail: 'The error was logged with the request id; credits for a failed call are refunded', cause: new Error(reply.message ?? 'unknown error') }));
  }

  #timedOut(slot: Slot, running: Running): void {
    if (slot.running !== running) return;
    const seconds = this.#options.jobTimeoutMs / 1000;
    this.#stop(
      this.#slots.indexOf(slot),
      slot,
      tooComplex(`${running.operationId} could not finish this input within ${seconds} s`, `the input needs more than the ${this.#options.jobTimeoutMs} ms one job may compute; simplify or split it`, {
        extra: { timeoutMs: this.#options.jobTimeoutMs },
      }),
    );
  }

  /** Ends the slot's worker (time limit, caller gone), fails its job with `error`, and starts a replacement. */
  #stop(index: number, slot: Slot, error: unknown): void {
    const running = slot.running;
    slot.running = null;
    this.#retire(index, slot, true);
    running?.reject(error);
  }

  /** The worker is gone (out of memory, crashed): its job fails, a new worker takes its place. */
  #lost(index: number, slot: Slot, error: unknown): void {
    if (this.#slots[index] !== slot) return;
    const running = slot.running;
    slot.running = null;
    // Not replaced here: a worker that cannot start would be restarted in a loop; the next job starts one.
    this.#retire(index, slot, false);
    if (running === null) return;
    const outOfMemory = (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    running.reject(
      outOfMemory
        ? tooComplex(`${running.operationId} needed too much memory for this input`, `computing the result needed more than the ${this.#options.memoryMb} MB one job may use; simplify or split the input`, {
            extra: { memoryMb: this.#options.memoryMb },
          })
        : new ServiceError(500, 'internal_error', 'The service failed while handling the request', {
            detail: 'The error was logged with the request id; credits for a failed call are refunded',
            cause: error,
          }),
    );
  }

  #retire(index: number, slot: Slot, replace: boolean): void {
    if (this.#slots[index] === slot) this.#slots[index] = null;
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate();
    // Replaced at once, so the next job finds a worker starting or warm.
    if (replace && !this.#closed && index >= 0 && this.#slots[index] === null) this.#spawn(index);
  }
}
