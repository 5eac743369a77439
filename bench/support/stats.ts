/** Small statistics and formatting helpers for the benchmarks. */
import { loadavg } from 'node:os';

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (with few samples, p90 is the slowest or next-to-slowest run). */
export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[rank - 1]!;
}

export const fmtMs = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(0) : 'n/a');
export const fmtRatio = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(3)}x` : 'n/a');
export const fmtMb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

export function loadAverage(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** A plain text table: first column left-aligned, the others right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

export const verdict = (holds: boolean): string => (holds ? 'HOLDS' : 'MISSED');

/** Median and p90 in ms of each named set of timings, as a table; `first` heads the names' column. */
export function latencyTable(rows: readonly (readonly [string, readonly number[]])[], first = ''): string {
  return table([[first, 'median ms', 'p90 ms'], ...rows.map(([name, ms]) => [name, fmtMs(median(ms)), fmtMs(percentile(ms, 90))])]);
}
