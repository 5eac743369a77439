import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** Who holds a credit lease: one per running credit ledger (in practice, per process start). */
export interface LeaseHolder {
  /** Random per ledger: the pid alone is reused (a container's server is pid 1 after every restart). */
  readonly token: string;
  readonly pid: number;
  readonly host: string;
}

/** The holders alive in this process: several apps share one process in tests. */
const liveHere = new Set<string>();

export function newLeaseHolder(): LeaseHolder {
  const holder = { token: randomUUID(), pid: process.pid, host: hostname() };
  liveHere.add(holder.token);
  return holder;
}

/** The holder stopped (its ledger closed): anything it still holds may be reclaimed at once. */
export function retireLeaseHolder(holder: LeaseHolder): void {
  liveHere.delete(holder.token);
}

export interface LeaseHolderRecord {
  holder: string;
  pid: number;
  host: string;
  /** Milliseconds since the epoch of the holder's last heartbeat. */
  heartbeatAt: number;
}

/**
 * Whether the holder of a lease is gone, so its unspent credits can be given back. A pending
 * Idempotency-Key claim names the same holder and is judged here too (see idempotency-claims.ts).
 *
 * SQLite in WAL mode only works for processes of one machine (they share its memory map), so a
 * holder on this host is judged by its pid, which is exact and immediate: a pid that no longer
 * runs, or that is this very process under another token (a restart reused it), is a dead
 * holder. That is what makes the next start return a SIGKILLed process's lease before it takes
 * its first call.
 *
 * A running pid could still belong to another program that reused it, and a holder on another
 * host (a container with its own pid namespace, a shared database later) cannot be asked: for
 * those the heartbeat decides. A live holder rewrites its heartbeat every flush (at least every
 * second), so `staleMs` is many intervals: only a holder stalled that long is taken for dead.
 * Even then nothing is overspent: the holder finds its row gone at its next write and puts back
 * what it still holds (see CreditLeaseStore), within the quota.
 */
export function isHolderDead(record: LeaseHolderRecord, now: number, staleMs: number): boolean {
  if (liveHere.has(record.holder)) return false;
  if (record.host === hostname()) {
    if (record.pid === process.pid) return true;
    if (!pidRuns(record.pid)) return true;
  }
  return now - record.heartbeatAt > staleMs;
}

/** Whether a process with this pid runs on this host (whoever it is now). */
export function pidRuns(pid: number): boolean {
  // 0 and negative numbers would address process groups, not one process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid runs under another user; only ESRCH says there is no such process.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
