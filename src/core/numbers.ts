/** Rounds half away from zero to `digits` decimals, correcting binary float drift (1.005 → 1.01). */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  const shifted = Math.abs(value) * factor;
  const rounded = Math.round(Number(shifted.toPrecision(15))) / factor;
  return Math.sign(value) * rounded || 0;
}
