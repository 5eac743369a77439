/**
 * 50 concurrent analyses of a 1 MB page: the server's RSS growth (issue 9, section 5; target
 * < 100 MB). Run: `npm run bench:concurrent` (node bench/concurrent-analyses.ts).
 *
 * The real server (`src/main.ts serve`, a process of its own, a fresh DATA_DIR, engines not
 * warmed, LOG_LEVEL=info as startServer runs it) reaches a 1 MB HTML page served by this process on 127.0.0.1 as `bigpage.test`, through
 * the settings an operator would use: EGRESS_ALLOW=127.0.0.1/32 and
 * EGRESS_RESOLVE=bigpage.test:127.0.0.1. The accounts are created in the database before the
 * server starts (BOOTSTRAP_ACCOUNT=false), on the business plan with a quota no run exhausts.
 *
 * The fetcher's defaults (FETCH_CONCURRENCY=16, FETCH_CONCURRENCY_PER_ACCOUNT=4,
 * FETCH_QUEUE_LIMIT=32) would answer some of 50 calls from one account 429 fetch_busy, so three
 * scenarios are measured, each on a fresh server:
 *   all-at-once  one account; FETCH_CONCURRENCY=50, FETCH_CONCURRENCY_PER_ACCOUNT=50,
 *                FETCH_QUEUE_LIMIT=200 (an account may keep a quarter of the queue waiting, so all
 *                50 are taken): the most the settings let one account have under way at once;
 *   defaults     five accounts of 10 calls; FETCH_CONCURRENCY=16 and
 *                FETCH_CONCURRENCY_PER_ACCOUNT=4 as shipped, FETCH_QUEUE_LIMIT=64 so the 34 that
 *                wait are queued rather than refused: what a stock server holds under the burst;
 *   one-by-one   the reference: the same 50 calls one after another on a stock server. What it
 *                grows is the heap V8 lets grow before collecting, with no concurrency at all, so
 *                the difference from it is what concurrency itself costs.
 *
 * For each: RSS (VmRSS of /proc/<pid>/status) once idle after one warm-up analysis (so the
 * analyzers' code is loaded and not counted as growth), sampled every few ms while the 50 calls
 * run, and once they have all answered. Every answer is checked (200 and a report whose outline
 * was read); errors are counted and printed. Growth = peak during - before. A measurement, not a
 * test: it exits 0 whether or not the target holds, non-zero only when it could not measure.
 *
 * Environment:
 *   BENCH_TOOL        the tool's path under /api/v1/ (default seo-apis/heading-structure-analyzer)
 *   BENCH_SCENARIO    all-at-once, defaults, one-by-one or all (default all)
 *   BENCH_CALLS       concurrent calls (default 50)
 *   BENCH_SAMPLE_MS   RSS sampling interval (default 5)
 *   BENCH_SERVER_NODE_OPTIONS  NODE_OPTIONS for the server (default none), e.g. --max-old-space-size=192
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../src/accounts/account-store.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest, openDatabase } from '../src/db/database.ts';
import { startServer } from '../test/support/server-process.ts';
import { readRssBytes, RssSampler } from './support/rss.ts';
import { envInt } from './support/env.ts';
import { runBench } from './support/run-bench.ts';
import { fmtMb, loadAverage, table, verdict } from './support/stats.ts';

const PAGE_BYTES = 1024 * 1024;
const TARGET_MB = 100;
const HOST_NAME = 'bigpage.test';
/** no single call may take longer; the bench stops by itself */
const CALL_TIMEOUT_MS = 120_000;


const TOOL = process.env['BENCH_TOOL'] || 'seo-apis/heading-structure-analyzer';
const CALLS = envInt('BENCH_CALLS', 50);
const SAMPLE_MS = envInt('BENCH_SAMPLE_MS', 5);
const SCENARIO = process.env['BENCH_SCENARIO'] || 'all';
/** passed to the server process, e.g. --max-old-space-size=256 to see how much of the growth is heap the GC had not yet needed to reclaim */
const NODE_OPTIONS = process.env['BENCH_SERVER_NODE_OPTIONS'] ?? '';
if (!['all-at-once', 'defaults', 'one-by-one', 'all'].includes(SCENARIO)) throw new Error(`BENCH_SCENARIO must be all-at-once, defaults, one-by-one or all (got "${SCENARIO}")`);

/** A 1 MB product listing: headings, paragraphs, images, links and tables, like a long catalog page. */
function buildPage(): Buffer {
  const parts = ['<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Every trail shoe we sell</title>',
    '<meta name="description" content="The full catalog of trail running shoes, with specs, sizes and reviews."></head><body><h1>Every trail shoe</h1>'];
  let size = parts.join('').length;
  for (let i = 0; size < PAGE_BYTES - 200; i++) {
    const s =
      `<section id="p${i}"><h2>Trail shoe ${i}</h2><h3>Specs</h3><p>A ${4 + (i % 8)} mm drop, a rock plate and lugs for mud. ` +
      `<a href="/p/${i}">Details</a> <a href="https://shop.example.com/p/${i}/reviews">Reviews</a></p>` +
      `<img src="/img/${i}.jpg" alt="Trail shoe ${i}" width="640" height="480">` +
      `<table><tr><th>Stack</th><td>${i % 40} mm</td></tr><tr><th>Weight</th><td>${200 + (i % 90)} g</td></tr></table></section>`;
    parts.push(s);
    size += s.length;
  }
  parts.push('</body></html>');
  return Buffer.from(parts.join(''), 'utf8');
}

async function servePage(page: Buffer): Promise<HttpServer> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(page.length) }).end(page);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Business accounts with a quota and rate limit no run exhausts, and a key each, written before the server opens the database. */
async function createKeys(dataDir: string, count: number): Promise<string[]> {
  const db = openDatabase(loadConfig({ DATA_DIR: dataDir }).databaseUrl);
  try {
    await migrateToLatest(db);
    const store = new AccountStore(db);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const account = await store.createAccount({ email: `bench${i}@example.com`, plan: 'business', verified: true, quota: 1_000_000_000, rateLimit: 1_000_000_000 });
      keys.push((await store.createKey({ accountId: account.id, name: 'bench' })).secret);
    }
    return keys;
  } finally {
    await db.destroy();
  }
}

interface Outcome {
  status: number;
  ok: boolean;
  error?: string;
}

async function analyse(base: string, pageUrl: string, apiKey: string): Promise<Outcome> {
  try {
    const res = await fetch(`${base}/api/v1/${TOOL}?url=${encodeURIComponent(pageUrl)}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const body = (await res.json()) as { result?: { report?: { checks?: unknown[] } }; error?: string };
    const ok = res.status === 200 && Array.isArray(body.result?.report?.checks) && body.result.report.checks.length > 0;
    return { status: res.status, ok, ...(ok ? {} : { error: body.error ?? 'no report' }) };
  } catch (error) {
    return { status: 0, ok: false, error: (error as Error).name };
  }
}

interface Scenario {
  name: 'all-at-once' | 'defaults' | 'one-by-one';
  accounts: number;
  /** the calls one after another instead of at once: the baseline of what the GC lets the heap grow to with no concurrency */
  sequential?: boolean;
  env: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { name: 'all-at-once', accounts: 1, env: { FETCH_CONCURRENCY: String(CALLS), FETCH_CONCURRENCY_PER_ACCOUNT: String(CALLS), FETCH_QUEUE_LIMIT: String(4 * CALLS) } },
  { name: 'defaults', accounts: 5, env: { FETCH_CONCURRENCY: '16', FETCH_CONCURRENCY_PER_ACCOUNT: '4', FETCH_QUEUE_LIMIT: String(Math.max(32, CALLS + 14)) } },
  { name: 'one-by-one', accounts: 1, sequential: true, env: {} },
];

interface Measured {
  scenario: Scenario;
  idle: number;
  before: number;
  peak: number;
  after: number;
  seconds: number;
  outcomes: Outcome[];
}

async function measure(scenario: Scenario, pageUrl: string): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tool-service-concurrent-bench-'));
  try {
    const keys = await createKeys(dataDir, scenario.accounts);
    const server = await startServer(dataDir, {
      EGRESS_ALLOW: '127.0.0.1/32',
      EGRESS_RESOLVE: `${HOST_NAME}:127.0.0.1`,
      ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
      ...scenario.env,
    });
    try {
      const pid = server.child.pid;
      if (pid === undefined) throw new Error('the server has no pid');
      const idle = readRssBytes(pid);
      const warm = await analyse(server.base, pageUrl, keys[0]!);
      if (!warm.ok) throw new Error(`the warm-up analysis failed: ${warm.status} ${warm.error ?? ''}`);
      const sampler = new RssSampler(pid, SAMPLE_MS);
      sampler.start();
      const before = readRssBytes(pid);
      sampler.phase = 'during';
      const t0 = performance.now();
      const outcomes: Outcome[] = [];
      if (scenario.sequential) for (let i = 0; i < CALLS; i++) outcomes.push(await analyse(server.base, pageUrl, keys[0]!));
      else outcomes.push(...(await Promise.all(Array.from({ length: CALLS }, (_, i) => analyse(server.base, pageUrl, keys[i % keys.length]!)))));
      const seconds = (performance.now() - t0) / 1000;
      sampler.phase = 'after';
      sampler.stop();
      const during = sampler.inPhase('during').map((s) => s.bytes);
      const after = readRssBytes(pid);
      await server.kill('SIGTERM');
      return { scenario, idle, before, peak: Math.max(before, ...during), after, seconds, outcomes };
    } finally {
      await server.kill('SIGKILL');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const page = buildPage();
  const pageServer = await servePage(page);
  const pageUrl = `http://${HOST_NAME}:${(pageServer.address() as AddressInfo).port}/catalog`;
  const results: Measured[] = [];
  try {
    for (const scenario of SCENARIOS.filter((s) => SCENARIO === 'all' || s.name === SCENARIO)) results.push(await measure(scenario, pageUrl));
  } finally {
    pageServer.closeAllConnections();
    pageServer.close();
  }

  process.stdout.write(
    `Concurrent analyses: ${CALLS} concurrent GET /api/v1/${TOOL} of a ${(page.length / 1024 / 1024).toFixed(2)} MB page, ` +
      `RSS sampled every ${SAMPLE_MS} ms${NODE_OPTIONS ? `, server NODE_OPTIONS=${NODE_OPTIONS}` : ''}, node ${process.version}, load ${loadAverage()}\n\n`,
  );
  const rows = [['scenario', 'idle MB', 'before MB', 'peak MB', 'after MB', 'growth MB', 'ok', 'errors', 'wall s']];
  for (const r of results) {
    const errors = r.outcomes.filter((o) => !o.ok);
    rows.push([r.scenario.name, fmtMb(r.idle), fmtMb(r.before), fmtMb(r.peak), fmtMb(r.after), fmtMb(r.peak - r.before), String(r.outcomes.length - errors.length), String(errors.length), r.seconds.toFixed(2)]);
  }
  process.stdout.write(`${table(rows)}\n\n`);
  for (const r of results) {
    const errors = r.outcomes.filter((o) => !o.ok);
    const settings = Object.entries(r.scenario.env).map(([k, v]) => `${k}=${v}`).join(' ') || 'stock fetch settings, one call at a time';
    process.stdout.write(`${r.scenario.name} (${r.scenario.accounts} account${r.scenario.accounts > 1 ? 's' : ''}; ${settings}): growth ${fmtMb(r.peak - r.before)} MB, target < ${TARGET_MB} MB: ${verdict(r.peak - r.before < TARGET_MB * 1024 * 1024)}\n`);
    if (errors.length > 0) {
      const byKind = new Map<string, number>();
      for (const e of errors) byKind.set(`${e.status} ${e.error ?? ''}`, (byKind.get(`${e.status} ${e.error ?? ''}`) ?? 0) + 1);
      process.stdout.write(`  errors: ${[...byKind].map(([k, n]) => `${n}x ${k}`).join(', ')}\n`);
    }
  }
}

runBench(main);
