// The waiting room of one engine, shared fairly between owners (accounts). Each owner has its own
// line; when a slot frees, the next job comes from the owner with the fewest jobs running on this
// engine, then from the owner served least recently, then the oldest job. So a second account's
// job queued behind twenty of a flooder's runs next, not after the twenty. An owner never runs
// more than its cap at once on one engine (its jobs over the cap wait without holding anyone up),
// and may not keep more than `maxQueuedPerOwner` jobs waiting, so one account filling the queue
// gets 429 itself while the others still queue.
//
// An owner's cap is its plan's, but never more than a fair share of the pool's slots (see
// fairShare): a plan's "engine jobs at once" may exceed an engine's slots (pro: 4, Chromium: 2),
// and an account holding every slot makes every other account wait for its jobs to end.
//
// Jobs without an owner (the service's own work, engine tests) form one group with no cap and no
// bound of its own; the engine's overall queue bound still applies to them.
import type { JobOwner } from './job-owner.ts';

/** An owner as a queue sees it: an engine job's owner, or an async run's account with its own bound of waiting jobs. */
export interface QueueOwner extends JobOwner {
  /** most jobs this owner may keep waiting (default: the queue's per-owner bound) */
  maxWaiting?: number;
}

/**
 * Most slots of a pool of `slots` one owner may hold at once, whatever its plan: half, at least
 * one. Another owner then always finds a slot free or freed by one of its own turns.
 */
export function fairShare(slots: number): number {
  return Number.isFinite(slots) ? Math.max(1, Math.floor(slots / 2)) : Infinity;
}

export interface OwnerGroup {
  /** the owner's id; null for work without an owner */
  readonly key: string | null;
  /** most jobs of this owner running at once */
  cap: number;
  /** most jobs of this owner waiting (within the queue's maxQueuedPerOwner) */
  maxWaiting: number;
  running: number;
  readonly waiting: QueuedJob[];
  /** the dispatch number of this owner's last job to start; 0 = not served yet */
  lastServed: number;
}

export interface QueuedJob {
  readonly group: OwnerGroup;
  /** arrival order */
  readonly seq: number;
  resolve: (slot: number) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Why a job may not wait: the whole queue is full, or its owner's share of it is. */
export type QueueRefusal = 'queue_full' | 'owner_queue_full' | null;

export class FairQueue {
  readonly maxQueued: number;
  readonly maxQueuedPerOwner: number;
  /** an owner's cap over this pool, whatever its plan (fairShare of the pool's slots) */
  readonly ownerShare: number;
  private readonly groups = new Map<string | null, OwnerGroup>();
  private waitingCount = 0;
  private arrivals = 0;
  private dispatches = 0;

  /** `slots`: how many jobs the pool runs at once (each owner may hold at most fairShare of them) */
  constructor(maxQueued: number, maxQueuedPerOwner: number, slots = Infinity) {
    this.maxQueued = maxQueued;
    this.maxQueuedPerOwner = maxQueuedPerOwner;
    this.ownerShare = fairShare(slots);
  }

  /** jobs waiting, over all owners */
  get size(): number {
    return this.waitingCount;
  }

  /** The owner's group, created on first use; its cap follows the owner's latest plan, within the pool's fair share. */
  group(owner: QueueOwner | undefined): OwnerGroup {
    const key = owner?.id ?? null;
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { key, cap: Infinity, maxWaiting: Infinity, running: 0, waiting: [], lastServed: 0 };
      this.groups.set(key, group);
    }
    if (owner !== undefined) {
      group.cap = Math.min(this.ownerShare, Math.max(1, owner.maxJobs));
      group.maxWaiting = Math.max(1, owner.maxWaiting ?? Infinity);
    }
    return group;
  }

  /** True when the group may start one more job now (a slot permitting). */
  underCap(group: OwnerGroup): boolean {
    return group.running < group.cap;
  }

  refusal(group: OwnerGroup): QueueRefusal {
    if (group.key !== null && group.waiting.length >= this.ownerWaitingLimit(group)) return 'owner_queue_full';
    if (this.waitingCount >= this.maxQueued) return 'queue_full';
    return null;
  }

  push(job: QueuedJob): void {
    job.group.waiting.push(job);
    this.waitingCount++;
  }

  nextSeq(): number {
    return ++this.arrivals;
  }

  /** Takes a job out of the line (its caller left); false when it was not waiting. */
  remove(job: QueuedJob): boolean {
    const at = job.group.waiting.indexOf(job);
    if (at === -1) return false;
    job.group.waiting.splice(at, 1);
    this.waitingCount--;
    this.forgetIfIdle(job.group);
    return true;
  }

  /** The next job to run, out of the line and counted as running; undefined when every waiting owner is at its cap. */
  next(): QueuedJob | undefined {
    let best: OwnerGroup | undefined;
    for (const group of this.groups.values()) {
      if (group.waiting.length === 0 || group.running >= group.cap) continue;
      if (best === undefined || this.before(group, best)) best = group;
    }
    if (best === undefined) return undefined;
    const job = best.waiting.shift()!;
    this.waitingCount--;
    this.started(best);
    return job;
  }

  /** Counts a job of the group as running (taken from the line, or started at once). */
  started(group: OwnerGroup): void {
    group.running++;
    group.lastServed = ++this.dispatches;
  }

  finished(group: OwnerGroup): void {
    group.running--;
    this.forgetIfIdle(group);
  }

  /** Every waiting job, out of the line (on close). */
  drain(): QueuedJob[] {
    const jobs: QueuedJob[] = [];
    for (const group of this.groups.values()) jobs.push(...group.waiting.splice(0));
    this.waitingCount = 0;
    for (const group of [...this.groups.values()]) this.forgetIfIdle(group);
    return jobs;
  }

  /** Most jobs of this owner that may wait: its own bound (a plan's) within the queue's per-owner bound. */
  ownerWaitingLimit(group: OwnerGroup): number {
    return Math.min(this.maxQueuedPerOwner, group.maxWaiting);
  }

  /** Jobs of this owner waiting now. */
  waitingOf(group: OwnerGroup): number {
    return group.waiting.length;
  }

  private before(a: OwnerGroup, b: OwnerGroup): boolean {
    if (a.running !== b.running) return a.running < b.running;
    if (a.lastServed !== b.lastServed) return a.lastServed < b.lastServed;
    return a.waiting[0]!.seq < b.waiting[0]!.seq;
  }

  /** Forgets a group with nothing running or waiting (its lastServed goes with it). */
  forgetIfIdle(group: OwnerGroup): void {
    if (group.running === 0 && group.waiting.length === 0) this.groups.delete(group.key);
  }
}
