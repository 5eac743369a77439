/**
 * Every bench in a quick mode, one after another, and one table of their targets (issue 24):
 * bench, figure, measured, baseline, ratio, target, HOLDS / MISSED / NO VERDICT, and the load
 * average when the figure was taken. Run: `npm run bench:all`.
 *
 * Each bench runs as its own child process with its quick settings (fewer seconds, rounds and
 * runs than its full run; the figures are noisier, never differently computed), writes its usual
 * output to a log file (the paths are printed) and appends its targets' figures to a JSON-lines
 * file (support/report.ts). A ratio whose baseline spread too far between rounds is printed as
 * "refused" with NO VERDICT, never as a number.
 *
 *   npm run bench:all                      quick mode, the table on stdout
 *   npm run bench:all -- --full            each bench's own defaults (about an hour)
 *   npm run bench:all -- --write-docs      also replaces the table in docs/benchmarks.md
 *   npm run bench:all -- bench:mcp bench   only these benches
 *
 * It exits 0 whatever the figures (a measurement, not a test) and 1 when a bench could not run.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReportedFigure } from './support/report.ts';
import { loadAverage, table } from './support/stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs', 'benchmarks.md');
const BEGIN = '<!-- bench:all table: written by `npm run bench:all -- --write-docs` -->';
const END = '<!-- /bench:all table -->';

interface Bench {
  script: string;
  file: string;
  /** the quick mode's settings (each bench's own environment variables) */
  quick: Record<string, string>;
}

/** The benches whose targets issue 24 names, in the order of its table. */
const BENCHES: readonly Bench[] = [
  // 2 s rounds: 1 s rounds spread 38% on a quiet machine, too much to build the ratio on.
  { script: 'bench', file: 'invoke-throughput.bench.ts', quick: { BENCH_SECONDS: '10', BENCH_ROUNDS: '5', BENCH_WARMUP_SECONDS: '2' } },
  // Its own defaults (about a minute): 2 s rounds after a 6 s warm-up; 100-call rounds after 100
  // warm-up calls left REST's per-round medians 64-86% apart (a server still warming, short rounds).
  { script: 'bench:mcp', file: 'mcp-vs-rest.ts', quick: {} },
  { script: 'bench:conversions', file: 'conversions.bench.ts', quick: { BENCH_RUNS: '3', BENCH_SECONDS: '8' } },
  // Its own defaults (about 70 s): 40 interleaved pairs in 5 rounds, each round's median steadier than single runs.
  { script: 'bench:images', file: 'images.ts', quick: {} },
  // Its own defaults (150 iterations, some 20 s since the steps share one parse): 20 left five
  // groups of four calls on an 8 ms baseline, whose medians spread 69%, and the ratio was refused.
  { script: 'bench:planner', file: 'solve-verify.ts', quick: {} },
  { script: 'bench:lab', file: 'lab-vs-lighthouse.ts', quick: { BENCH_RUNS: '3' } },
];

/** Runs one bench to its end; its stdout and stderr go to `log`. Resolves with its exit code. */
async function runOne(bench: Bench, full: boolean, reportFile: string, log: string): Promise<number> {
  const out = createWriteStream(log);
  const child = spawn(process.execPath, [join(ROOT, 'bench', bench.file)], {
    cwd: ROOT,
    env: { ...process.env, ...(full ? {} : bench.quick), BENCH_REPORT: reportFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  const [code] = (await once(child, 'close')) as [number | null];
  out.end();
  return code ?? 1;
}

function verdictOf(f: ReportedFigure): string {
  return f.holds === undefined ? 'NO VERDICT' : f.holds ? 'HOLDS' : 'MISSED';
}

function markdown(figures: readonly ReportedFigure[], mode: string): string {
  const cell = (s: string) => s.replaceAll('|', '\\|');
  const rows = figures.map((f) => `| \`${f.bench}\` | ${cell(f.name)} | ${f.figure} | ${f.baseline} | ${f.ratio} | ${cell(f.target)} | **${verdictOf(f)}**${f.note ? ` (${cell(f.note)})` : ''} | ${f.load} |`);
  return [
    BEGIN,
    `Last run: ${new Date().toISOString().slice(0, 10)}, ${mode}, Node ${process.version}.`,
    '',
    '| bench | figure | measured | baseline | ratio | target | verdict | load average |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const full = args.includes('--full');
  const writeDocs = args.includes('--write-docs');
  const only = args.filter((a) => !a.startsWith('--'));
  const unknown = only.filter((name) => !BENCHES.some((b) => b.script === name));
  if (unknown.length > 0) throw new Error(`unknown bench(es): ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.script).join(', ')}`);
  const chosen = only.length > 0 ? BENCHES.filter((b) => only.includes(b.script)) : BENCHES;
  const dir = mkdtempSync(join(tmpdir(), 'bench-all-'));
  const reportFile = join(dir, 'figures.jsonl');
  const failed: string[] = [];
  process.stderr.write(`bench:all: ${full ? 'full' : 'quick'} mode, ${chosen.length} bench(es); logs in ${dir} (load ${loadAverage()})\n`);
  for (const bench of chosen) {
    const log = join(dir, `${bench.script.replace(':', '-')}.log`);
    const started = performance.now();
    process.stderr.write(`bench:all: ${bench.script}… `);
    const code = await runOne(bench, full, reportFile, log);
    process.stderr.write(`exit ${code} after ${((performance.now() - started) / 1000).toFixed(0)} s (${log})\n`);
    if (code !== 0) failed.push(`${bench.script} (exit ${code}, see ${log})`);
  }
  const figures = existsSync(reportFile)
    ? readFileSync(reportFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ReportedFigure)
    : [];
  const rows = [['bench', 'figure', 'measured', 'baseline', 'ratio', 'target', 'verdict', 'load'], ...figures.map((f) => [f.bench, f.name, f.figure, f.baseline, f.ratio, f.target, verdictOf(f), f.load])];
  process.stdout.write(`\n${table(rows)}\n`);
  for (const f of figures) if (f.note) process.stdout.write(`  ${f.bench}, ${f.name}: ${f.note}\n`);
  const silent = chosen.filter((b) => !figures.some((f) => f.bench === b.script) && !failed.some((x) => x.startsWith(b.script)));
  for (const b of silent) failed.push(`${b.script} reported no figure`);
  if (writeDocs) {
    const doc = readFileSync(DOCS, 'utf8');
    const block = markdown(figures, full ? 'full mode' : 'quick mode');
    const at = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    const next = at >= 0 && end > at ? `${doc.slice(0, at)}${block}${doc.slice(end + END.length)}` : `${doc.trimEnd()}\n\n${block}\n`;
    writeFileSync(DOCS, next);
    process.stderr.write(`bench:all: the table is in ${DOCS}\n`);
  }
  if (failed.length > 0) {
    process.stdout.write(`\n!! ${failed.join('; ')}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:all: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
