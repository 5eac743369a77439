// The suite's runner: node:test's run() once per test file, each under its own time bound, all
// through one spec reporter with one summary.
//   node scripts/run-tests.ts "test/**/*.test.ts" "packages/sdk/test/**/*.test.ts"
// Why not `node --test --test-timeout=N`: that bounds each test, not a file. Measured on Node 24
// (run() with `timeout` too): a file hung outside a test (a top-level await, a grandchild holding
// the file's stdout pipe) ran until CI's own limit. Here a file past TEST_FILE_TIMEOUT_MS is killed
// and fails under its own name ("… exceeded its 20 min bound"), and the next files go on.
import { glob } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

interface Event {
  type: string;
  data: Record<string, unknown> & { nesting?: number; file?: string; message?: string };
}

interface Counts {
  tests: number;
  suites: number;
  passed: number;
  failed: number;
  cancelled: number;
  skipped: number;
  todo: number;
}

const MINUTE = 60_000;
/** Per file: generous, as a hang guard only (the slowest files run Chromium and LibreOffice for minutes on a loaded machine). */
export const DEFAULT_FILE_TIMEOUT_MS = 20 * MINUTE;
/** Per test, as `--test-timeout` was. */
export const DEFAULT_TEST_TIMEOUT_MS = 10 * MINUTE;

// The root diagnostics each run() ends with; the totals over all files replace them.
const TOTAL_LINE = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;

export interface RunOptions {
  patterns: string[];
  concurrency: number;
  fileTimeoutMs: number;
  testTimeoutMs: number;
  cwd: string;
}

/** The files the patterns match (node_modules left out), in a stable order. */
export async function testFiles(patterns: string[], cwd: string): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    for await (const file of glob(pattern, { cwd, exclude: (name) => name === 'node_modules' })) found.add(resolve(cwd, file));
  }
  return [...found].sort();
}

function minutes(ms: number): string {
  return ms % MINUTE === 0 ? `${ms / MINUTE} min` : `${ms} ms`;
}

/**
 * Runs every file (at most `concurrency` at once), writing the spec report to `out`; resolves
 * true when every file passed. Like node's own runner, one file reports live and the others'
 * events wait until it ends, so two files' nested output never interleave.
 */
export async function runTests(options: RunOptions, out: NodeJS.WritableStream): Promise<boolean> {
  const files = await testFiles(options.patterns, options.cwd);
  if (files.length === 0) throw new Error(`no test file matches ${options.patterns.join(', ')}`);
  const report = new PassThrough({ objectMode: true });
  const written = new Promise<void>((done, fail) => report.compose(spec).on('error', fail).on('end', done).pipe(out, { end: false }));
  const stop = new AbortController();
  const interrupt = () => stop.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);

  const totals: Counts = { tests: 0, suites: 0, passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 };
  let success = true;
  const buffers = new Map<string, { events: Event[]; ended: boolean }>();
  const started: string[] = []; // files in the order they started; the first is the live one
  const flushLive = () => {
    for (let live = started[0]; live !== undefined; live = started[0]) {
      const buffer = buffers.get(live)!;
      for (const event of buffer.events.splice(0)) report.write(event);
      if (!buffer.ended) return;
      started.shift();
    }
  };

  const runFile = async (file: string) => {
    buffers.set(file, { events: [], ended: false });
    started.push(file);
    const bound = new AbortController();
    const timer = setTimeout(() => bound.abort(new Error(`${relative(options.cwd, file)} exceeded its ${minutes(options.fileTimeoutMs)} bound (TEST_FILE_TIMEOUT_MS): killed`)), options.fileTimeoutMs);
    const stream = run({
      files: [file],
      cwd: options.cwd,
      isolation: 'process',
      timeout: options.testTimeoutMs,
      // Not forceExit: it ends a file's process once the tests known at that moment have ended, so
      // suites registered later (after a top-level await, for one) were never run nor counted (53 tests went
      // missing that way, silently). A file that leaves a handle open is ended by its time bound.
      signal: AbortSignal.any([bound.signal, stop.signal]),
    });
    try {
      for await (const event of stream as AsyncIterable<Event>) {
        const { type, data } = event;
        // This run's root summary (no file): counted into the totals, which are reported once.
        if (type === 'test:summary' && data.file === undefined) {
          const counts = data['counts'] as Counts;
          for (const key of Object.keys(totals) as (keyof Counts)[]) totals[key] += counts[key];
          if (data['success'] !== true) success = false;
          continue;
        }
        if (data.nesting === 0 && data.file === undefined) {
          if (type === 'test:diagnostic' && TOTAL_LINE.test(data.message ?? '')) continue;
          if (type === 'test:plan') continue;
        }
        buffers.get(file)!.events.push(event);
        if (started[0] === file) flushLive();
      }
    } finally {
      clearTimeout(timer);
      buffers.get(file)!.ended = true;
      flushLive();
    }
  };

  const startedAt = performance.now();
  const queue = [...files];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file);
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  const lines = [
    `tests ${totals.tests}`, `suites ${totals.suites}`, `pass ${totals.passed}`, `fail ${totals.failed}`,
    `cancelled ${totals.cancelled}`, `skipped ${totals.skipped}`, `todo ${totals.todo}`,
    `duration_ms ${(performance.now() - startedAt).toFixed(0)}`,
  ];
  for (const message of lines) report.write({ type: 'test:diagnostic', data: { nesting: 0, message, level: 'info' } });
  // The root summary last, as node's runner ends: the spec reporter lists every failing test on it.
  report.write({ type: 'test:summary', data: { success, counts: { ...totals, topLevel: files.length }, duration_ms: performance.now() - startedAt } });
  report.end();
  await written;
  process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
  return success && !stop.signal.aborted;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, not "${raw}"`);
  return value;
}

if (import.meta.main) {
  const ok = await runTests(
    {
      patterns: process.argv.slice(2),
      concurrency: positive('TEST_CONCURRENCY', 2),
      fileTimeoutMs: positive('TEST_FILE_TIMEOUT_MS', DEFAULT_FILE_TIMEOUT_MS),
      testTimeoutMs: positive('TEST_TIMEOUT_MS', DEFAULT_TEST_TIMEOUT_MS),
      cwd: process.cwd(),
    },
    process.stdout,
  );
  // Exit now: a child some test left behind may still hold a pipe open.
  process.stdout.write('', () => process.exit(ok ? 0 : 1));
}
