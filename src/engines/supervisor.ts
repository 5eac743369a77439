// The mechanism every engine shares (after Gotenberg): a bounded queue per engine answering 429
// with Retry-After when full, shared fairly between accounts (see fair-queue.ts), a per-job time
// limit, warm workers started lazily and restarted after N jobs or when one asks (its memory grew),
// one such planned restart at a time, and after a crash and after a hang,
// detection of a missing program (503, never a crash of the service) and a status report for /readyz.
//
// A healthy engine that reaches the time limit on one input was held by that input: the caller
// hears 422 document_too_complex, and it is charged, so holding an engine is never free. Only the
// service's own failures (a crash, a missing or unstartable program) are 5xx and refunded.
//
// A worker is whatever the engine keeps warm (a LibreOffice instance, a browser). Engines whose
// program cannot stay warm (pandoc, poppler) use one virtual worker with several job slots and spawn
// a process per job; the queue and the timeout still apply.
// Which slot a job takes, who waits and who is refused is bookkeeping kept in supervisor-slots.ts;
// this file starts, times, recycles and stops the workers.
import { ServiceError, tooComplex } from '../core/errors.ts';
import type { FairQueue, OwnerGroup } from './fair-queue.ts';
import { currentJobOwner } from './job-owner.ts';
import { silentLogger, type EngineLogger, type EngineProbe, type EngineStatus, type EngineWorker, type JobContext, type JobStart, type RunOptions, type SupervisorOptions } from './engine-types.ts';
import { SlotPool, type Slot } from './supervisor-slots.ts';

export { silentLogger, stderrLogger } from './engine-types.ts';
export type { EngineLogger, EngineProbe, EngineState, EngineStatus, EngineWorker, JobContext, JobStart, RunOptions, SupervisorOptions } from './engine-types.ts';

export class EngineSupervisor<W extends EngineWorker> {
  readonly name: string;
  readonly label: string;
  private readonly options: Required<Omit<SupervisorOptions<W>, 'label' | 'logger'>>;
  private readonly logger: EngineLogger;
  /** the slots and the waiting room (supervisor-slots.ts); slots and queue are its own, kept at hand */
  private readonly pool: SlotPool<W>;
  private readonly slots: Slot<W>[];
  private readonly queue: FairQueue;
  private readonly startListeners = new Set<(job: JobStart) => void>();
  private probeResult: Promise<EngineProbe> | null = null;
  private probed: EngineProbe | null = null;
  private startFailure: string | null = null;
  private consecutiveCrashes = 0;
  private used = false;
  /** workers being stopped, awaited by close() */
  private readonly stopping = new Set<Promise<void>>();
  private closed = false;

  constructor(options: SupervisorOptions<W>) {
    this.name = options.name;
    this.label = options.label ?? options.name;
    this.logger = options.logger ?? silentLogger;
    this.options = {
      name: options.name,
      probe: options.probe,
      start: options.start,
      workers: Math.max(1, options.workers ?? 1),
      jobsPerWorker: Math.max(1, options.jobsPerWorker ?? 1),
      maxQueued: Math.max(0, options.maxQueued ?? 16),
      maxQueuedPerOwner: Math.max(1, options.maxQueuedPerOwner ?? Math.ceil((options.maxQueued ?? 16) / 4)),
      jobTimeoutMs: options.jobTimeoutMs ?? 60_000,
      maxJobsPerWorker: options.maxJobsPerWorker ?? 0,
      onTimeout: options.onTimeout ?? 'restart',
      graceMs: options.graceMs ?? 1000,
      keepWarm: options.keepWarm ?? true,
    };
    this.pool = new SlotPool<W>({
      name: this.name,
      label: this.label,
      workers: this.options.workers,
      jobsPerWorker: this.options.jobsPerWorker,
      maxJobsPerWorker: this.options.maxJobsPerWorker,
      maxQueued: this.options.maxQueued,
      maxQueuedPerOwner: this.options.maxQueuedPerOwner,
    });
    this.slots = this.pool.slots;
    this.queue = this.pool.queue;
  }

  /**
   * Calls `listener` each time a job has its worker and starts running; returns the unsubscribe.
   * Tests use it to act on a job known to be running instead of guessing with a sleep.
   */
  onJobStart(listener: (job: JobStart) => void): () => void {
    this.startListeners.add(listener);
    return () => this.startListeners.delete(listener);
  }

  get concurrency(): number {
    return this.options.workers * this.options.jobsPerWorker;
  }

  /** Finds the program once; later calls reuse the answer. */
  probe(): Promise<EngineProbe> {
    if (this.probeResult === null) {
      this.probeResult = this.options.probe().then(
        (result) => {
          this.probed = result;
          if (!result.ok) this.logger.warn({ engine: this.name, missing: result.missing }, 'engine program missing');
          return result;
        },
        (error: unknown) => {
          const result: EngineProbe = { ok: false, missing: `${this.label} (probe failed: ${String(error)})` };
          this.probed = result;
          return result;
        },
      );
    }
    return this.probeResult;
  }

  /** Runs `job` on a warm worker once a slot is free. */
  async run<T>(job: (worker: W, context: JobContext) => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (this.closed) throw this.unavailable(`${this.label} is shutting down`);
    options.signal?.throwIfAborted();
    const probe = this.probed ?? (await this.probe());
    if (!probe.ok) {
      throw new ServiceError(503, 'engine_unavailable', `${this.label} is not installed on this server (missing: ${probe.missing})`, {
        extra: { engine: this.name, missing: probe.missing },
      });
    }
    this.used = true;
    // The owner comes from the invoke path through AsyncLocalStorage (see job-owner.ts).
    const group = this.queue.group(currentJobOwner());
    const slotIndex = await this.pool.acquire(group, options.signal);
    const slot = this.slots[slotIndex]!;
    let worker: W;
    try {
      worker = await this.ensureWorker(slot);
    } catch (error) {
      this.pool.release(slot, group);
      throw error;
    }
    return this.execute(slot, group, worker, job, options);
  }

  /** Starts every worker now instead of on first use. */
  async warm(): Promise<void> {
    const probe = await this.probe();
    if (!probe.ok || this.closed) return;
    this.used = true;
    await Promise.allSettled(this.slots.map((slot) => this.ensureWorker(slot)));
  }

  async status(): Promise<EngineStatus> {
    const probe = this.probed ?? (await this.probe());
    const live = this.slots.filter((s) => s.worker !== null && s.worker.alive()).length;
    const starting = this.slots.some((s) => s.starting !== null);
    const running = this.slots.reduce((n, s) => n + s.running, 0);
    const base = {
      name: this.name,
      version: probe.ok ? probe.version : null,
      workers: live,
      queued: this.queue.size,
      running,
      concurrency: this.concurrency,
    };
    if (!probe.ok) return { ...base, state: 'missing', detail: `missing: ${probe.missing}` };
    if (this.startFailure !== null) return { ...base, state: 'degraded', detail: this.startFailure };
    if (this.consecutiveCrashes >= 3) return { ...base, state: 'degraded', detail: `${this.consecutiveCrashes} crashes in a row` };
    if (starting && live === 0) return { ...base, state: 'starting' };
    return { ...base, state: 'ready' };
  }

  /** Rejects waiting jobs and stops every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.queue.drain()) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(this.unavailable(`${this.label} is shutting down`));
    }
    await Promise.allSettled(
      this.slots.map(async (slot) => {
        const starting = slot.starting;
        if (starting) await starting.catch(() => undefined);
        const worker = slot.worker;
        slot.worker = null;
        if (worker) await this.stopWorker(worker);
      }),
    );
    // Workers still stopping after a crash, a timeout or a recycle, and late starts.
    while (this.stopping.size > 0) await Promise.allSettled([...this.stopping]);
  }

  // --- workers -----------------------------------------------------------------------------

  private ensureWorker(slot: Slot<W>): Promise<W> {
    if (slot.worker !== null && slot.worker.alive()) return Promise.resolve(slot.worker);
    if (slot.starting !== null) return slot.starting;
    if (slot.worker !== null) {
      // Died while idle (or between jobs): forget it and start a new one.
      const dead = slot.worker;
      slot.worker = null;
      slot.jobs = 0;
      void this.stopWorker(dead);
      this.logger.warn({ engine: this.name, worker: slot.index }, 'worker died while idle; restarting');
    }
    const started = Date.now();
    const starting = this.options.start(slot.index).then(
      (worker) => {
        slot.starting = null;
        if (this.closed) {
          void this.stopWorker(worker);
          throw this.unavailable(`${this.label} is shutting down`);
        }
        slot.worker = worker;
        slot.jobs = 0;
        this.startFailure = null;
        this.logger.info({ engine: this.name, worker: slot.index, ms: Date.now() - started }, 'worker started');
        this.retireWaiting();
        return worker;
      },
      (error: unknown) => {
        slot.starting = null;
        if (error instanceof ServiceError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        this.startFailure = `failed to start: ${message}`;
        this.logger.error({ engine: this.name, worker: slot.index, err: message }, 'worker failed to start');
        // The program's own output (command lines, its folders) stays in the log: the caller learns what to do.
        throw new ServiceError(503, 'engine_unavailable', `${this.label} could not be started; try again later`, {
          detail: `${this.label} did not start, so the job did not run and nothing was charged; the cause is in the service log`,
          extra: { engine: this.name },
          cause: error,
        });
      },
    );
    slot.starting = starting;
    return starting;
  }

  /** Stops the slot's worker (crash, hang, recycle) and starts a new one in the background. */
  private recycle(slot: Slot<W>, worker: W, reason: string): Promise<void> {
    if (slot.worker === worker) slot.worker = null;
    slot.draining = true;
    slot.jobs = 0;
    slot.recycleAt = this.options.maxJobsPerWorker;
    this.logger.info({ engine: this.name, worker: slot.index, reason }, 'restarting worker');
    return this.stopWorker(worker).then(() => {
      slot.draining = false;
      if (this.options.keepWarm && this.used && !this.closed && slot.worker === null && slot.starting === null) {
        void this.ensureWorker(slot).catch(() => undefined);
      }
      this.pool.dispatch();
    });
  }

  /** Idle workers whose planned restart waited for another's (SlotPool.retireReason) go now, one at a time. */
  private retireWaiting(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      const worker = slot.worker;
      if (worker === null || slot.running > 0) continue;
      const reason = this.pool.retireReason(slot);
      if (reason !== null) void this.recycle(slot, worker, reason);
    }
  }

  private async execute<T>(slot: Slot<W>, group: OwnerGroup, worker: W, job: (worker: W, context: JobContext) => Promise<T>, options: RunOptions): Promise<T> {
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.options.jobTimeoutMs;
    const started = Date.now();
    slot.jobs++;
    this.emitStart({ engine: this.name, worker: slot.index, owner: group.key });

    let settled = false;
    let recycled = false;
    const jobPromise = Promise.resolve().then(() => job(worker, { signal: controller.signal }));

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    };
    let released = false;
    const releaseOnce = (): void => {
      if (released) return;
      released = true;
      this.pool.release(slot, group);
    };
    const killWorker = (reason: string): void => {
      if (recycled) return;
      recycled = true;
      // Once the worker is gone the slot is free, even if the job itself never settles.
      void this.recycle(slot, worker, reason).then(releaseOnce);
    };

    let rejectEarly: (error: unknown) => void = () => {};
    const early = new Promise<never>((_, reject) => {
      rejectEarly = reject;
    });
    const stopJob = (error: unknown, reason: string): void => {
      controller.abort(error);
      rejectEarly(error);
      if (this.options.onTimeout === 'restart') {
        killWorker(reason);
      } else {
        const grace = setTimeout(() => killWorker(`${reason}; job did not stop within ${this.options.graceMs} ms`), this.options.graceMs);
        void jobPromise.then(
          () => clearTimeout(grace),
          () => clearTimeout(grace),
        );
      }
    };
    const timer = setTimeout(() => {
      const seconds = timeoutMs / 1000;
      // The limit runs from the moment the job had its slot and a live worker, so queueing and
      // starts do not count. A worker still alive at the limit was busy with this input: the
      // input's fault (422, charged). One that died silently under the job is the service's (503).
      const error = worker.alive()
        ? tooComplex(
            `${this.label} could not finish this document within ${seconds} s`,
            `the document needs more than the ${timeoutMs} ms a conversion may take; simplify or split it (fewer pages, less nesting, no endless scripts)`,
            { extra: { engine: this.name, timeoutMs } },
          )
        : new ServiceError(503, 'engine_crashed', `${this.label} stopped unexpectedly while converting; try again`, {
            detail: 'the engine process exited during the job',
            extra: { engine: this.name },
          });
      this.logger.warn({ engine: this.name, worker: slot.index, timeoutMs, alive: worker.alive() }, 'job timed out');
      stopJob(error, 'timeout');
    }, timeoutMs);
    const onCallerAbort = (): void => {
      if (this.options.onTimeout === 'restart') {
        // The caller left: answer it now, but let the job finish rather than throw away a warm
        // worker; the timeout still guards the slot.
        controller.abort(options.signal?.reason);
        rejectEarly(options.signal?.reason);
      } else {
        stopJob(options.signal?.reason, 'caller aborted');
      }
    };
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    // A caller that left while the job was starting (e.g. from a start listener) gets no event.
    if (options.signal?.aborted) onCallerAbort();

    // The slot is held until the job itself settles (or its worker is gone), so a hung job never
    // lets a second job onto the same worker.
    void jobPromise
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        finish();
        const duration = Date.now() - started;
        this.pool.recordJobMs(duration);
        if (!recycled && !worker.alive()) killWorker('worker exited');
        const retire = !recycled && slot.running === 1 ? this.pool.retireReason(slot) : null;
        if (retire !== null) killWorker(retire);
        releaseOnce();
      });

    try {
      const result = await Promise.race([jobPromise, early]);
      this.consecutiveCrashes = 0;
      return result;
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      if (error instanceof ServiceError) {
        if (worker.alive()) this.consecutiveCrashes = 0;
        throw error;
      }
      this.consecutiveCrashes++;
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error({ engine: this.name, worker: slot.index, err: message, alive: worker.alive() }, 'job failed');
      // Whatever went wrong, do not trust this worker again.
      killWorker(worker.alive() ? `job failed: ${message}` : 'worker crashed during a job');
      throw new ServiceError(503, 'engine_crashed', `${this.label} stopped unexpectedly while converting; try again`, {
        detail: message,
        extra: { engine: this.name },
        cause: error,
      });
    } finally {
      // The timer stays until the job settles (see above): it must still guard a job whose caller left.
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private emitStart(job: JobStart): void {
    for (const listener of this.startListeners) {
      try {
        listener(job);
      } catch (error) {
        this.logger.warn({ engine: this.name, err: String(error) }, 'job start listener failed');
      }
    }
  }

  private stopWorker(worker: W): Promise<void> {
    const stopping = worker.stop().catch((error: unknown) => {
      this.logger.warn({ engine: this.name, err: String(error) }, 'worker did not stop cleanly');
    });
    this.stopping.add(stopping);
    void stopping.then(() => this.stopping.delete(stopping));
    return stopping;
  }

  private unavailable(message: string): ServiceError {
    return new ServiceError(503, 'engine_unavailable', message, { extra: { engine: this.name } });
  }
}
