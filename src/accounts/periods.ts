/** The credit period is the UTC calendar month; it resets at 00:00 UTC on the 1st. */
export function periodOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

export function periodResetAt(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function periodStartAt(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
