import { invalidInput } from './errors.ts';

const POWERS = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * Rounds half away from zero to `digits` decimals as decimal arithmetic would on the number as
 * written (its shortest decimal form): 1.005 (stored as 1.00499999999999989…) → 1.01,
 * 483513104872.11475 → 483513104872.11 and 453514759198.33496 → 453514759198.33. A plain
 * Math.round of the scaled value is right unless a half lies within the value's representation
 * error; nudges of two units in the last place, up and down, find those cases cheaply, and only
 * they are decided on the decimal digits (a nudge alone is too coarse for large values, where it
 * can step over a half that is not there).
 */
export function roundTo(value: number, digits: number): number {
  const factor = POWERS[digits] ?? 10 ** digits;
  const magnitude = Math.abs(value);
  const shifted = magnitude * factor;
  // From 2^52 up a double has no fraction left at this scale: nothing to round.
  if (shifted >= 2 ** 52) return value;
  const plain = Math.round(shifted);
  // A half within the representation error either way: the scaling itself can land a value
  // written just below a half exactly on it (453514759198.33496 × 100 is ...833.5), and one just
  // above it below. Both nudges must agree with the plain rounding, else the digits decide.
  const sure = Math.round(shifted * (1 + 2 * Number.EPSILON)) === plain && Math.round(shifted * (1 - 2 * Number.EPSILON)) === plain;
  const rounded = sure ? plain : decimalHalfUp(magnitude, digits, plain);
  return Math.sign(value) * (rounded / factor) || 0;
}

/** `magnitude` × 10^digits rounded half up on its shortest decimal digits; `fallback` where those are in exponent form. */
function decimalHalfUp(magnitude: number, digits: number, fallback: number): number {
  const text = String(magnitude);
  if (text.includes('e')) return fallback;
  const [whole = '0', fraction = ''] = text.split('.');
  const kept = Number(`${whole}${fraction.slice(0, digits).padEnd(digits, '0')}`);
  return (fraction.charCodeAt(digits) || 0) >= 53 /* '5' */ ? kept + 1 : kept;
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
