/**
 * A bench's headline figures, in one shape for `npm run bench:all` (bench/all.ts): each bench
 * prints its own tables as before and, through `reportFigure`, also appends its targets' figures
 * to the JSON-lines file named by BENCH_REPORT (when set), which bench:all reads back into one table.
 *
 * A ratio is only as good as its baseline: on a shared machine one round can run at half the
 * speed of the next. `ratioFigure` therefore refuses to give a ratio when the baseline's rounds
 * spread by more than BENCH_MAX_SPREAD (default 25%), and says so instead of printing a number the
 * machine made up.
 */
import { appendFileSync } from 'node:fs';
import { envNumber } from './env.ts';
import { checkSpread, fmtPct } from './spread.ts';
import { loadAverage, median } from './stats.ts';

/** The largest spread of a baseline's rounds a ratio is built on: (slowest - fastest) / median. */
export const MAX_SPREAD = envNumber('BENCH_MAX_SPREAD', 0.25);

export interface Figure {
  /** the npm script, e.g. 'bench:mcp' */
  bench: string;
  /** what is measured, e.g. 'invoke_tool p50 vs REST, 20 clients' */
  name: string;
  /** the measured figure as printed, e.g. '9,652 req/s' or '1.84x' */
  figure: string;
  /** the baseline as printed, or '' when the figure is absolute (an RSS growth) */
  baseline: string;
  /** the ratio as printed ('' when the figure is absolute; 'refused' when the baseline was unsteady) */
  ratio: string;
  /** the target as printed, e.g. '>= 1.0x' */
  target: string;
  /** undefined: no verdict (the ratio was refused) */
  holds: boolean | undefined;
  /** why there is no verdict, or anything else the table should say */
  note?: string;
}

export interface ReportedFigure extends Figure {
  load: string;
  at: string;
}

/** Appends the figure to BENCH_REPORT's file (bench:all's collection); a no-op when run alone. */
export function reportFigure(figure: Figure): void {
  const file = process.env['BENCH_REPORT'];
  if (!file) return;
  const line: ReportedFigure = { ...figure, load: loadAverage(), at: new Date().toISOString() };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

export interface RatioCheck {
  /** measured / baseline, or undefined when refused */
  ratio: number | undefined;
  spread: number;
  /** e.g. 'baseline rounds spread 41% > 25%: no ratio' */
  refusal: string | undefined;
}

/**
 * measured / baseline, unless the baseline's per-round figures spread more than MAX_SPREAD.
 * `baselineRounds` are the baseline's figure in each round (req/s, or a round's median ms).
 */
export function checkedRatio(measured: number, baseline: number, baselineRounds: readonly number[], limit = MAX_SPREAD): RatioCheck {
  const { spread, steady } = checkSpread(baselineRounds, limit);
  if (!steady) return { ratio: undefined, spread, refusal: `baseline rounds spread ${fmtPct(spread)} > ${fmtPct(limit)}: no ratio reported, rerun on a quieter machine` };
  return { ratio: measured / baseline, spread, refusal: undefined };
}

/** The line a bench prints for a refused ratio. */
export function refusalLine(what: string, check: RatioCheck): string {
  return `!! ${what}: ${check.refusal ?? ''}`;
}

/**
 * Samples taken one after another, as `rounds` consecutive groups' medians: the baseline's rounds
 * for a bench that interleaves single calls rather than timed rounds (one call's own jitter is not
 * the machine's drift; a group's median is).
 */
export function roundMedians(samples: readonly number[], rounds = 5): number[] {
  const size = Math.ceil(samples.length / rounds);
  const out: number[] = [];
  for (let i = 0; i < samples.length; i += size) out.push(median(samples.slice(i, i + size)));
  return out;
}

export interface PairedRatio extends RatioCheck {
  measuredMedian: number;
  baselineMedian: number;
  /** the median of measured[i] / baseline[i]: each pair ran back to back, so drift between pairs cancels */
  pairMedian: number;
  /** each round's median (consecutive groups of pairs, as `roundMedians`) */
  measuredRounds: number[];
  baselineRounds: number[];
}

/**
 * The ratio of medians of interleaved pairs (measured[i] and baseline[i] ran one right after the
 * other), checked against the spread of the baseline's per-round medians: the pairs are cut into
 * `rounds` consecutive groups, so one run's own jitter is not taken for the machine's drift, but a
 * stretch of the run where the machine was slower still is.
 */
export function pairedRatio(measured: readonly number[], baseline: readonly number[], rounds: number, limit = MAX_SPREAD): PairedRatio {
  if (measured.length !== baseline.length) throw new Error(`pairedRatio: ${measured.length} measured runs against ${baseline.length} baseline runs`);
  const measuredMedian = median(measured);
  const baselineMedian = median(baseline);
  const baselineRounds = roundMedians(baseline, rounds);
  return {
    ...checkedRatio(measuredMedian, baselineMedian, baselineRounds, limit),
    measuredMedian,
    baselineMedian,
    pairMedian: median(measured.map((m, i) => m / baseline[i]!)),
    measuredRounds: roundMedians(measured, rounds),
    baselineRounds,
  };
}
