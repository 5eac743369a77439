/** The credit period is the UTC calendar month; it resets at 00:00 UTC on the 1st. */
let cachedStart = 0;
let cachedEnd = 0;
let cachedPeriod = '';

/** `YYYY-MM` of `now` in UTC; the current month is remembered, as every call asks for it. */
export function periodOf(now: Date): string {
  const t = now.getTime();
  if (t >= cachedStart && t < cachedEnd) return cachedPeriod;
  const period = now.toISOString().slice(0, 7);
  cachedStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  cachedEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  cachedPeriod = period;
  return period;
}

export function periodResetAt(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function periodStartAt(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
