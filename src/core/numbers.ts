import { invalidInput } from './errors.ts';

/** Rounds half away from zero to `digits` decimals, correcting binary float drift (1.005 → 1.01). */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  const shifted = Math.abs(value) * factor;
  const rounded = Math.round(Number(shifted.toPrecision(15))) / factor;
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
