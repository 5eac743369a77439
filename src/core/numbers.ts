import { invalidInput } from './errors.ts';

const POWERS = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * Rounds half away from zero to `digits` decimals as decimal arithmetic would: the product is
 * nudged up by two units in the last place, so 1.005 (stored as 1.00499999999999989…) → 1.01.
 * Cheaper than a toPrecision round trip, which matters on schedules of hundreds of rows.
 */
export function roundTo(value: number, digits: number): number {
  const factor = POWERS[digits] ?? 10 ** digits;
  const shifted = Math.abs(value) * factor;
  const rounded = Math.round(shifted * (1 + 2 * Number.EPSILON)) / factor;
  return Math.sign(value) * rounded || 0;
}

/**
 * Returns `value` when it is a finite number; otherwise a 400 naming `field`. For formulas whose
 * inputs are each in range but whose combination overflows a double (a huge growth multiple
 * over a tiny period), so the answer is a clear error, never `null` in the JSON.
 */
export function requireFinite(value: number, field: string, message: string): number {
  if (!Number.isFinite(value)) throw invalidInput(message, [{ field, message: 'the result overflows for this combination of inputs' }]);
  return value;
}

/**
 * `value` rounded as `roundTo(value, 2)` and counted in whole cents, for sums that must come out
 * exact: integer cents add without the drift of adding 2-decimal doubles.
 */
export function toCents(value: number): number {
  return Math.round(roundTo(value, 2) * 100);
}
