// The slots and the waiting room of one EngineSupervisor (supervisor.ts): which slot a job may
// take, who waits when none is free, who is refused with 429 and when to retry, and who runs next
// when a slot frees. Apart from the supervisor because this is bookkeeping alone: it starts,
// stops and times no worker; the supervisor owns those and calls in here.
import { ServiceError } from '../core/errors.ts';
import { FairQueue, type OwnerGroup, type QueuedJob } from './fair-queue.ts';
import type { EngineWorker } from './engine-types.ts';

export interface Slot<W> {
  index: number;
  worker: W | null;
  starting: Promise<W> | null;
  running: number;
  jobs: number;
  /** jobs after which this slot's worker is recycled (0 = never) */
  recycleAt: number;
  /** set while the worker is being recycled or killed: no new job may use it */
  draining: boolean;
}

/** What the bookkeeping needs of the supervisor's resolved options. */
export interface SlotPoolSettings {
  name: string;
  label: string;
  workers: number;
  jobsPerWorker: number;
  maxJobsPerWorker: number;
  maxQueued: number;
  maxQueuedPerOwner: number;
}

export class SlotPool<W extends EngineWorker> {
  readonly slots: Slot<W>[];
  readonly queue: FairQueue;
  private readonly settings: SlotPoolSettings;
  private avgJobMs = 1000;

  constructor(settings: SlotPoolSettings) {
    this.settings = settings;
    this.slots = Array.from({ length: settings.workers }, (_, index) => ({
      index,
      worker: null,
      starting: null,
      running: 0,
      jobs: 0,
      // Workers share the jobs evenly, so equal limits would recycle them all at once and leave
      // the pool empty while they restart. The first cycle is staggered; later ones stay apart.
      recycleAt: settings.maxJobsPerWorker + Math.floor((index * settings.maxJobsPerWorker) / settings.workers),
      draining: false,
    }));
    this.queue = new FairQueue(settings.maxQueued, settings.maxQueuedPerOwner, this.concurrency);
  }

  get concurrency(): number {
    return this.settings.workers * this.settings.jobsPerWorker;
  }

  /** Feeds a finished job's duration into the average that Retry-After is computed from. */
  recordJobMs(duration: number): void {
    this.avgJobMs = this.avgJobMs * 0.8 + duration * 0.2;
  }

  freeSlot(): number {
    let best = -1;
    for (const slot of this.slots) {
      if (slot.draining || slot.running >= this.settings.jobsPerWorker) continue;
      // A worker due for recycling takes no new job; it restarts once its last job ends.
      if (this.retireReason(slot) !== null) continue;
      // Prefer a slot whose worker is already warm, then the least busy.
      const warm = slot.worker !== null && slot.worker.alive();
      if (best === -1) {
        best = slot.index;
        continue;
      }
      const current = this.slots[best]!;
      const currentWarm = current.worker !== null && current.worker.alive();
      if ((warm && !currentWarm) || (warm === currentWarm && slot.running < current.running)) best = slot.index;
    }
    return best;
  }

  /**
   * Why the slot's healthy worker should be restarted now, between jobs: it ran its recycleAt jobs,
   * or it asks to be (EngineWorker.recycleReason, e.g. LibreOffice past its memory bound). Null
   * while another slot's worker is stopping or starting: a planned restart waits for that one to be
   * back (the supervisor retries then), so the pool never has two workers down at once for a
   * planned reason, and the waiting worker keeps taking jobs meanwhile. Crashes and timeouts never
   * wait: they are not planned.
   */
  retireReason(slot: Slot<W>): string | null {
    const worker = slot.worker;
    if (worker === null || slot.draining) return null;
    for (const other of this.slots) if (other !== slot && (other.draining || other.starting !== null)) return null;
    if (slot.recycleAt > 0 && slot.jobs >= slot.recycleAt) return `recycled after ${slot.jobs} jobs`;
    return worker.recycleReason?.() ?? null;
  }

  acquire(group: OwnerGroup, signal?: AbortSignal): Promise<number> {
    if (this.queue.underCap(group)) {
      // Jobs already waiting for a free slot go first (normally there are none).
      this.dispatch();
      const free = this.freeSlot();
      if (free !== -1 && this.queue.underCap(group)) {
        this.slots[free]!.running++;
        this.queue.started(group);
        return Promise.resolve(free);
      }
    }
    const refusal = this.queue.refusal(group);
    if (refusal !== null) {
      this.queue.forgetIfIdle(group);
      const own = refusal === 'owner_queue_full';
      // An owner's own line moves at its cap, the shared one at the engine's concurrency.
      const ahead = own ? this.queue.waitingOf(group) : this.queue.size;
      const retryAfter = this.retryAfterSeconds(ahead, own ? Math.min(group.cap, this.concurrency) : this.concurrency);
      const message = own
        ? `${this.settings.label} already has ${ahead} of your jobs waiting; retry in ${retryAfter} s`
        : `${this.settings.label} is busy; retry in ${retryAfter} s`;
      throw new ServiceError(429, 'engine_busy', message, {
        detail: own ? `at most ${this.settings.maxQueuedPerOwner} jobs of one account wait for ${this.settings.label} at once` : undefined,
        headers: { 'Retry-After': String(retryAfter) },
        extra: { engine: this.settings.name, retryAfter },
      });
    }
    return new Promise<number>((resolve, reject) => {
      const waiter: QueuedJob = { group, seq: this.queue.nextSeq(), resolve, reject };
      if (signal) {
        waiter.signal = signal;
        waiter.onAbort = () => {
          this.queue.remove(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
    });
  }

  release(slot: Slot<W>, group: OwnerGroup): void {
    slot.running--;
    this.queue.finished(group);
    this.dispatch();
  }

  dispatch(): void {
    while (this.queue.size > 0) {
      const free = this.freeSlot();
      if (free === -1) return;
      // Undefined when every waiting owner is at its cap: their jobs wait, the slot stays free.
      const waiter = this.queue.next();
      if (waiter === undefined) return;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      this.slots[free]!.running++;
      waiter.resolve(free);
    }
  }

  private retryAfterSeconds(ahead: number, perRound: number): number {
    const rounds = Math.ceil((ahead + 1) / Math.max(1, perRound));
    return Math.min(120, Math.max(1, Math.ceil((rounds * this.avgJobMs) / 1000)));
  }
}
