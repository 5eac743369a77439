/** The credit period is the UTC calendar month; it resets at 00:00 UTC on the 1st. */
export interface PeriodBounds {
  /** `YYYY-MM`. */
  readonly period: string;
  readonly startMs: number;
  readonly endMs: number;
}

// Every metered call asks about the current month: it is computed once and remembered.
let current: PeriodBounds = { period: '', startMs: 0, endMs: 0 };

/** The month `nowMs` falls in (milliseconds since the epoch). */
export function periodBounds(nowMs: number): PeriodBounds {
  if (nowMs >= current.startMs && nowMs < current.endMs) return current;
  const now = new Date(nowMs);
  const bounds = {
    period: now.toISOString().slice(0, 7),
    startMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    endMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
  };
  // Only the present month is remembered: a question about another one must not evict it.
  const wallClock = Date.now();
  if (wallClock >= bounds.startMs && wallClock < bounds.endMs) current = bounds;
  return bounds;
}

/** `YYYY-MM` of `now` in UTC. */
export function periodOf(now: Date): string {
  return periodBounds(now.getTime()).period;
}

export function periodResetAt(now: Date): Date {
  return new Date(periodBounds(now.getTime()).endMs);
}

export function periodStartAt(now: Date): Date {
  return new Date(periodBounds(now.getTime()).startMs);
}
