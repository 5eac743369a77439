/** A bench's settings from the environment: unset or empty gives the default, a bad value stops the run. */

function envPositive(name: string, fallback: number, integer: boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(integer ? Number.isInteger(n) : Number.isFinite(n)) || n <= 0) throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'} (got "${raw}")`);
  return n;
}

/** A positive whole number, e.g. BENCH_ITERATIONS. */
export function envInt(name: string, fallback: number): number {
  return envPositive(name, fallback, true);
}

/** A positive number, e.g. BENCH_SECONDS. */
export function envNumber(name: string, fallback: number): number {
  return envPositive(name, fallback, false);
}
