/**
 * How far a measurement's rounds disagree with each other, and whether that is too far to build a
 * ratio on: on a shared machine one round can run at half the speed of the next, and a ratio of
 * two such figures says more about the machine than about what was measured.
 */
import { median } from './stats.ts';

/** (slowest - fastest) / median of the rounds' figures; NaN with fewer than two rounds. */
export function spreadOf(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  return (Math.max(...values) - Math.min(...values)) / median(values);
}

export interface SpreadCheck {
  spread: number;
  /** false when the spread is over the limit: no ratio should be reported from these rounds */
  steady: boolean;
}

/** The rounds' spread against `limit` (e.g. 0.25: the slowest round within 25% of the median's distance from the fastest). */
export function checkSpread(values: readonly number[], limit: number): SpreadCheck {
  const spread = spreadOf(values);
  // One round has no spread to judge: it is taken as it is.
  return { spread, steady: !(spread > limit) };
}

export const fmtPct = (share: number): string => (Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : 'n/a');
