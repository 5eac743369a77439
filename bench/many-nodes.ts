/**
 * Many nodes (issue 21 item 10). Run: `npm run bench:nodes` (quick: `BENCH_QUICK=1 npm run bench:nodes`).
 *
 * Real `serve` processes (test/support/server-process.ts) on a throwaway PostgreSQL cluster, a
 * redis-server and an S3 stand-in (s3rver), all started here on loopback and stopped in a finally.
 * In one run, each against its baseline measured in the same process:
 *   1. the metered JSON call (POST /api/v1/calculators/emi-calculator {"principal":100000,"rate":10,
 *      "tenure":12}, every answer checked) at 50 connections on one node with PostgreSQL + Redis
 *      against one node on SQLite (the default): req/s, p50, p99, the CPU per answer of the node,
 *      PostgreSQL and Redis, and the ratio;
 *   2. two nodes against one, both on PostgreSQL + Redis: one node gets all 50 connections, two
 *      nodes 25 each (two autocannon instances at once); the throughput ratio, target >= 1.6x on a
 *      machine with the cores for it (printed);
 *   3. a 50 MB result to S3 and back: 50 MB of text uploaded to txt-to-md (a result about as large)
 *      and downloaded by its downloadUrl, on a node with FILE_STORE=s3://… against one with the
 *      local store; the time of each half, the ratio, and the node's RSS growth (peak minus before)
 *      over each request, target < 50 MB.
 * The load targets of 1 and 2 run in alternating rounds (SQLite, PostgreSQL one node, two nodes,
 * SQLite, …) and the transfers of 3 alternate too, so the machine's drift hits both sides alike.
 * When a side's rounds disagree by more than BENCH_MAX_SPREAD, no ratio is given: that is said.
 * The accounts (a billion credits and requests a minute) are made through the service's own store
 * on each database before the nodes start. It is a measurement, not a test: it exits 0 whether or
 * not the targets hold (non-zero only when it could not measure).
 *
 * Environment:
 *   BENCH_QUICK=1          short rounds and one transfer each (defaults below in brackets)
 *   BENCH_SECONDS          measured seconds per load target, over all rounds (20 [3])
 *   BENCH_ROUNDS           rounds the seconds are split into (5 [3])
 *   BENCH_WARMUP_SECONDS   warm-up seconds per load target (3 [1])
 *   BENCH_CONNECTIONS      connections in all (50)
 *   BENCH_MAX_SPREAD       largest (fastest - slowest) / median of a side's rounds a ratio is built on (0.25)
 *   BENCH_UPLOAD_MB        size of the text uploaded in section 3, MiB (50)
 *   BENCH_TRANSFERS        round trips per store in section 3 (3 [1])
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.ts';
import { startRedisServer, type RedisServer } from '../test/support/redis-server.ts';
import { startS3Server, type S3Server } from '../test/support/s3-server.ts';
import { startServer, type Server } from '../test/support/server-process.ts';
import { startTestApp } from '../test/support/test-app.ts';
import { backendCounters } from './support/backend-counters.ts';
import { benchApiKey } from './support/bench-account.ts';
import { writeBigText } from './support/documents.ts';
import { envInt, envNumber } from './support/env.ts';
import { failures, figures, loadRound, newTally, preflight, type LoadFigures, type LoadTarget } from './support/load-rounds.ts';
import { redisPid, postmasterPid } from './support/proc-find.ts';
import { roundTrip, type RoundTrip } from './support/result-roundtrip.ts';
import { runBench } from './support/run-bench.ts';
import { checkSpread, fmtPct } from './support/spread.ts';
import { fmtMb, fmtRatio, loadAverage, median, table, verdict } from './support/stats.ts';

const QUICK = ['1', 'true', 'yes'].includes(process.env['BENCH_QUICK'] ?? '');
const SECONDS = envNumber('BENCH_SECONDS', QUICK ? 3 : 20);
const ROUNDS = envInt('BENCH_ROUNDS', QUICK ? 3 : 5);
const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', QUICK ? 1 : 3);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50);
const MAX_SPREAD = envNumber('BENCH_MAX_SPREAD', 0.25);
const UPLOAD_MB = envNumber('BENCH_UPLOAD_MB', 50);
const TRANSFERS = envInt('BENCH_TRANSFERS', QUICK ? 1 : 3);

const TARGET_SCALING = 1.6;
const TARGET_RSS_MB = 50;
/** Two nodes, the load generator, and PostgreSQL with Redis: a core each before two nodes can run at twice one. */
const CORES_FOR_SCALING = 4;

const EMI_PATH = '/api/v1/calculators/emi-calculator';
const EMI_BODY = JSON.stringify({ principal: 100000, rate: 10, tenure: 12 });
const EMI_EXPECTED = 8791.59;
const SIGNING_SECRET = 'many-nodes-bench-signing-secret-0123456789';

const out = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** The envelope says success and the EMI is exactly right (cheap: this process is the load generator). */
function isEmi(body: string): boolean {
  if (!body.startsWith('{"status":true')) return false;
  const at = body.indexOf('"emi":');
  return at >= 0 && Number.parseFloat(body.slice(at + 6, at + 30)) === EMI_EXPECTED;
}

interface Verdict {
  label: string;
  outcome: string;
  figure: string;
}

/** Everything started here, stopped in reverse order whatever happens. */
class Running {
  readonly nodes: Server[] = [];
  readonly dirs: string[] = [];
  cluster: PostgresCluster | undefined;
  redis: RedisServer | undefined;
  s3: S3Server | undefined;

  dir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** A `serve` process; its log pipe is drained unread once it listens (kept, it would grow this process's heap with every access line). */
  async node(env: Record<string, string>): Promise<Server> {
    const server = await startServer(this.dir('many-nodes-node-'), env);
    this.nodes.push(server);
    server.child.stdout?.removeAllListeners('data');
    server.child.stdout?.resume();
    return server;
  }

  async stopNodes(): Promise<void> {
    const nodes = this.nodes.splice(0);
    await Promise.all(
      nodes.map(async (node) => {
        // SIGTERM closes the app (and the database pool); a node that hangs on it gets SIGKILL.
        const timer = setTimeout(() => void node.kill('SIGKILL'), 15_000);
        await node.kill('SIGTERM');
        clearTimeout(timer);
      }),
    );
  }

  async stopAll(): Promise<void> {
    await this.stopNodes();
    await this.s3?.stop();
    await this.redis?.stop();
    await this.cluster?.stop();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** An account no bench can exhaust, made on `databaseUrl` through the service's own store. */
async function accountOn(databaseUrl: string): Promise<string> {
  const maker = await startTestApp({ env: { DATABASE_URL: databaseUrl } });
  try {
    return await benchApiKey(maker.services);
  } finally {
    await maker.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Sections 1 and 2: load

function emiTarget(name: string, nodes: readonly Server[], apiKey: string, watch: LoadTarget['watch']): LoadTarget {
  const share = Math.floor(CONNECTIONS / nodes.length);
  return {
    name,
    endpoints: nodes.map((node, i) => ({ url: `${node.base}${EMI_PATH}`, connections: i === 0 ? CONNECTIONS - share * (nodes.length - 1) : share })),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: EMI_BODY,
    verify: isEmi,
    watch,
  };
}

const nodeMicros = (f: LoadFigures) => Object.entries(f.microsPerAnswer).filter(([name]) => name.startsWith('node')).reduce((sum, [, us]) => sum + us, 0);
const us = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(1));

function loadTable(rows: readonly LoadFigures[]): string {
  return table([
    ['target', 'req/s', 'p50 ms', 'p99 ms', 'node(s) CPU µs/answer', 'postgres µs/answer', 'redis µs/answer', 'load gen cores', 'other cores', 'machine busy', 'rounds req/s', 'spread', 'failed'],
    ...rows.map((f) => [
      f.name,
      f.rps.toFixed(0),
      f.p50Ms.toFixed(2),
      f.p99Ms.toFixed(2),
      us(nodeMicros(f)),
      us(f.microsPerAnswer['postgres']),
      us(f.microsPerAnswer['redis']),
      f.clientCores.toFixed(2),
      f.otherCores.toFixed(2),
      fmtPct(f.machineBusy),
      f.roundRps.map((r) => r.toFixed(0)).join(' '),
      fmtPct(checkSpread(f.roundRps, MAX_SPREAD).spread),
      String(f.failed),
    ]),
  ]);
}

/** The ratio of two sides' figures, or why there is none (a side's rounds too far apart). */
function ratioOrSpread(side: LoadFigures | number[], base: LoadFigures | number[], value: (x: number[]) => number, names: [string, string]): { ratio?: number; why?: string } {
  const rounds = (x: LoadFigures | number[]) => (Array.isArray(x) ? x : x.roundRps);
  for (const [i, x] of [base, side].entries()) {
    const check = checkSpread(rounds(x), MAX_SPREAD);
    if (!check.steady) return { why: `the rounds of ${names[i]} vary by ${fmtPct(check.spread)} (more than ${fmtPct(MAX_SPREAD)}): no ratio from them` };
  }
  return { ratio: value(rounds(side)) / value(rounds(base)) };
}

async function loadSections(run: Running, verdicts: Verdict[], problems: string[]): Promise<void> {
  const cluster = (run.cluster = await startPostgresCluster());
  run.redis = await startRedisServer();
  const pgUrl = await cluster.createDatabase();
  const sqliteDir = run.dir('many-nodes-sqlite-');
  const sqliteUrl = `sqlite:${join(sqliteDir, 'tool-service.db')}`;
  const sqliteKey = await accountOn(sqliteUrl);
  const pgKey = await accountOn(pgUrl);
  const pgEnv = { DATABASE_URL: pgUrl, REDIS_URL: run.redis.url, FILE_SIGNING_SECRET: SIGNING_SECRET };
  note('starting one node on SQLite and two on PostgreSQL + Redis…');
  const s = await run.node({ DATABASE_URL: sqliteUrl });
  const a = await run.node(pgEnv);
  const b = await run.node(pgEnv);
  const postgres = postmasterPid(Number(new URL(cluster.adminUrl).port));
  const redis = redisPid(run.redis.port);
  if (postgres === undefined || redis === undefined) problems.push(`could not find the ${postgres === undefined ? 'postmaster' : 'redis-server'} process: its CPU is not counted`);

  const sqlite = emiTarget('(1) one node, SQLite', [s], sqliteKey, { 'node S': s.child.pid });
  const one = emiTarget('(1)(2) one node, PostgreSQL + Redis', [a], pgKey, { 'node A': a.child.pid, postgres, redis });
  const two = emiTarget('(2) two nodes, PostgreSQL + Redis', [a, b], pgKey, { 'node A': a.child.pid, 'node B': b.child.pid, postgres, redis });
  const tallies = [sqlite, one, two].map(newTally);
  for (const tally of tallies) {
    await preflight(tally.target);
    note(`${tally.target.name}: warming up ${WARMUP_SECONDS} s…`);
    await loadRound(tally, WARMUP_SECONDS, false);
  }
  const counters = await backendCounters(pgUrl, run.redis.url);
  const counted0 = await counters.read();
  for (let round = 1; round <= ROUNDS; round++) {
    note(`round ${round}/${ROUNDS}: ${SECONDS / ROUNDS} s on each target…`);
    for (const tally of tallies) await loadRound(tally, SECONDS / ROUNDS);
  }
  // PostgreSQL's backends report their transactions at most once a second.
  await new Promise((r) => setTimeout(r, 1500));
  const counted1 = await counters.read();
  await counters.close();
  await run.stopNodes();
  for (const tally of tallies) {
    const failed = failures(tally);
    if (failed) problems.push(failed);
  }
  const [fs, f1, f2] = tallies.map(figures) as [LoadFigures, LoadFigures, LoadFigures];

  out(`== 1 and 2: the metered EMI call, ${CONNECTIONS} connections, ${SECONDS} s per target in ${ROUNDS} alternating rounds after ${WARMUP_SECONDS} s warm-up`);
  out(loadTable([fs, f1, f2]));
  out("(node(s) CPU: the serve process(es); postgres: the postmaster and its backends; other cores: the machine's busy cores less the nodes',");
  out(" PostgreSQL's, Redis's, the load generator's and the kernel's interrupts (loopback traffic): other people's work, idle nodes included;");
  out(" machine busy: all CPUs, everyone's work included)");
  for (const f of [fs, f1, f2]) {
    out(`  ${f.name}, cores per round: other work ${f.roundOtherCores.map((c) => c.toFixed(2)).join(' ')}; interrupts ${f.roundInterruptCores.map((c) => c.toFixed(2)).join(' ')}`);
  }
  out();
  const pgRatio = ratioOrSpread(f1, fs, (r) => median(r), ['SQLite', 'PostgreSQL + Redis']);
  const throughput = pgRatio.ratio === undefined ? pgRatio.why! : `${fmtRatio(f1.rps / fs.rps)} (medians of the rounds: ${fmtRatio(pgRatio.ratio)})`;
  const latency = pgRatio.ratio === undefined ? '' : `; p50 ${fmtRatio(f1.p50Ms / fs.p50Ms)}, p99 ${fmtRatio(f1.p99Ms / fs.p99Ms)}`;
  out(`(1) PostgreSQL + Redis / SQLite, throughput: ${throughput}${latency}`);
  const pgAnswers = f1.ok + f2.ok;
  const perAnswer = (n0: number, n1: number) => ((n1 - n0) / pgAnswers).toFixed(2);
  out(`    Per answer on PostgreSQL + Redis (over all its rounds, one and two nodes): ${perAnswer(counted0.pgTransactions, counted1.pgTransactions)} PostgreSQL transactions, ` +
    `${perAnswer(counted0.redisCommands, counted1.redisCommands)} Redis commands (those its scripts run included).`);
  const nodeAdded = nodeMicros(f1) - nodeMicros(fs);
  const pgUs = f1.microsPerAnswer['postgres'] ?? Number.NaN;
  const redisUs = f1.microsPerAnswer['redis'] ?? Number.NaN;
  out(`    CPU per answer: the node ${us(nodeMicros(fs))} µs on SQLite, ${us(nodeMicros(f1))} µs on PostgreSQL + Redis (${nodeAdded >= 0 ? '+' : ''}${us(nodeAdded)}), ` +
    `plus ${us(pgUs)} µs in PostgreSQL and ${us(redisUs)} µs in Redis.`);
  // On PostgreSQL the service has no change counter for its cache of callers (src/db/database.ts),
  // so every call reads its key and account; the rate limit is one Redis script per call.
  const costs: [string, number][] = [
    ['the node itself (every call waits on a PostgreSQL query for its key, uncached on PostgreSQL, and on a Redis script for its rate limit)', nodeAdded],
    ['PostgreSQL (that key lookup, usage and lease writes)', pgUs],
    ['Redis (the rate-limit script)', redisUs],
  ];
  const [topName, topUs] = [...costs].sort((x, y) => (y[1] || 0) - (x[1] || 0))[0]!;
  out(`    What dominates the difference: ${topName}, ${us(topUs)} µs per answer.`);
  out(`    On ${availableParallelism()} cores all of it comes out of the CPU the load generator and the node share.`);
  verdicts.push({ label: '(1) PostgreSQL + Redis against SQLite: ratio printed (no target)', outcome: 'PRINTED', figure: throughput });

  const scaling = ratioOrSpread(f2, f1, (r) => median(r), ['one node', 'two nodes']);
  const scalingText = scaling.ratio === undefined ? scaling.why! : `${fmtRatio(f2.rps / f1.rps)} (medians of the rounds: ${fmtRatio(scaling.ratio)})`;
  out();
  out(`(2) two nodes / one node, throughput: ${scalingText}`);
  const cores = availableParallelism();
  out(`    This machine has ${cores} core(s) (${cpus()[0]?.model ?? 'unknown'}). ${TARGET_SCALING}x needs at least ${CORES_FOR_SCALING}: one per node, one for the load generator, one for PostgreSQL and Redis.`);
  if (cores < CORES_FOR_SCALING) {
    const serviceCores = (f: LoadFigures) => (Object.values(f.microsPerAnswer).reduce((sum, v) => sum + (Number.isFinite(v) ? v : 0), 0) * f.rps) / 1e6;
    out(`    Here the nodes, PostgreSQL and Redis used ${serviceCores(f1).toFixed(2)} cores with one node and ${serviceCores(f2).toFixed(2)} with two, the load generator ` +
      `${f1.clientCores.toFixed(2)} and ${f2.clientCores.toFixed(2)}; the machine was ${fmtPct(f1.machineBusy)} and ${fmtPct(f2.machineBusy)} busy (everyone's work included).`);
    out('    A second node has no core of its own to run on: the figure says whether it adds or loses throughput on a machine');
    out('    with no CPU to spare (it shares one PostgreSQL, one Redis and one account with the first), not how far nodes scale.');
  }
  const scalingHolds = scaling.ratio !== undefined && f2.rps / f1.rps >= TARGET_SCALING;
  verdicts.push({
    label: `(2) two nodes >= ${TARGET_SCALING}x one node (needs >= ${CORES_FOR_SCALING} cores; this machine: ${cores})`,
    outcome: scaling.ratio === undefined ? 'NO RATIO' : verdict(scalingHolds),
    figure: scalingText,
  });
}

// ---------------------------------------------------------------------------------------------
// Section 3: a 50 MB result to S3 and back

async function transferSection(run: Running, verdicts: Verdict[], problems: string[]): Promise<void> {
  run.s3 = await startS3Server('many-nodes');
  const pgUrl = await run.cluster!.createDatabase();
  const apiKey = await accountOn(pgUrl);
  const env = { DATABASE_URL: pgUrl, REDIS_URL: run.redis!.url, FILE_SIGNING_SECRET: SIGNING_SECRET };
  const work = run.dir('many-nodes-upload-');
  const file = join(work, 'big.txt');
  const bytes = Math.round(UPLOAD_MB * 1024 * 1024);
  note(`writing ${fmtMb(bytes)} MiB of text; starting a node with the local store and one with FILE_STORE=s3://…`);
  await writeBigText(file, bytes);
  const local = await run.node(env);
  const s3 = await run.node({ ...env, ...run.s3.env('bench') });
  const stores = [
    { name: 'local store', node: local, trips: [] as RoundTrip[], first: undefined as RoundTrip | undefined },
    { name: 'S3 (s3rver)', node: s3, trips: [] as RoundTrip[], first: undefined as RoundTrip | undefined },
  ];
  // A fresh node's first big transfer also loads code (the AWS SDK on first use) and warms the JIT:
  // shown apart, not measured with the rest.
  for (const store of stores) {
    note(`first (unmeasured) transfer, ${store.name}…`);
    store.first = await roundTrip(store.node.base, apiKey, store.node.child.pid!, file);
  }
  for (let i = 1; i <= TRANSFERS; i++) {
    for (const store of stores) {
      note(`transfer ${i}/${TRANSFERS}, ${store.name}…`);
      store.trips.push(await roundTrip(store.node.base, apiKey, store.node.child.pid!, file));
    }
  }
  await run.stopNodes();

  const all = stores.flatMap((st) => [...st.trips, st.first!]);
  const hashes = new Set(all.map((t) => t.sha256));
  if (hashes.size !== 1) problems.push(`the downloaded results differ (${hashes.size} distinct SHA-256 over ${all.length} downloads)`);
  for (const t of all) if (t.downloadedBytes !== t.resultBytes) problems.push(`a download had ${t.downloadedBytes} bytes, the answer said ${t.resultBytes}`);
  const growth = (t: RoundTrip, half: 'uploadRss' | 'downloadRss') => (t[half].peak - t[half].before) / (1024 * 1024);
  const worst = (trips: RoundTrip[], half: 'uploadRss' | 'downloadRss') => Math.max(...trips.map((t) => growth(t, half)));

  out();
  out(`== 3: ${fmtMb(bytes)} MiB of text to txt-to-md and its result back by downloadUrl, ${TRANSFERS} round trip(s) per store, alternating`);
  out(
    table([
      ['store', 'upload+convert ms (median)', 'download ms (median)', 'runs upload ms', 'runs download ms', 'result MB', 'RSS growth upload MB (worst)', 'RSS growth download MB (worst)', 'first trip RSS growth up/down MB', 'peak from'],
      ...stores.map((st) => [
        st.name,
        median(st.trips.map((t) => t.uploadMs)).toFixed(0),
        median(st.trips.map((t) => t.downloadMs)).toFixed(0),
        st.trips.map((t) => t.uploadMs.toFixed(0)).join(' '),
        st.trips.map((t) => t.downloadMs.toFixed(0)).join(' '),
        fmtMb(st.trips[0]!.resultBytes),
        worst(st.trips, 'uploadRss').toFixed(1),
        worst(st.trips, 'downloadRss').toFixed(1),
        `${growth(st.first!, 'uploadRss').toFixed(1)} / ${growth(st.first!, 'downloadRss').toFixed(1)}`,
        st.trips[0]!.uploadRss.source,
      ]),
    ]),
  );
  out(`(RSS growth: the node's peak during the request minus its RSS just before; the first trip of each fresh node is not measured with the rest; every download hashed: ${hashes.size === 1 ? 'all identical, local and S3' : 'NOT identical'})`);
  for (const st of stores) out(`    ${st.name}, RSS growth of each run, upload/download MB: ${st.trips.map((t) => `${growth(t, 'uploadRss').toFixed(1)}/${growth(t, 'downloadRss').toFixed(1)}`).join(', ')}`);
  const [l, x] = stores as [(typeof stores)[0], (typeof stores)[0]];
  for (const half of ['uploadMs', 'downloadMs'] as const) {
    const r = ratioOrSpread(x.trips.map((t) => t[half]), l.trips.map((t) => t[half]), (v) => median(v), ['the local store', 'S3']);
    out(`(3) S3 / local, ${half === 'uploadMs' ? 'upload+convert' : 'download'} time: ${r.ratio === undefined ? r.why : fmtRatio(r.ratio)}`);
  }
  const s3Growth = Math.max(worst(x.trips, 'uploadRss'), worst(x.trips, 'downloadRss'));
  verdicts.push({ label: `(3) node RSS growth < ${TARGET_RSS_MB} MB over a ${fmtMb(bytes)} MiB upload or download with S3`, outcome: verdict(s3Growth < TARGET_RSS_MB), figure: `${s3Growth.toFixed(1)} MB` });
  const firstGrowth = Math.max(growth(x.first!, 'uploadRss'), growth(x.first!, 'downloadRss'));
  verdicts.push({ label: "    the same on a fresh node's first transfer (code loading, JIT and heap warm-up included)", outcome: verdict(firstGrowth < TARGET_RSS_MB), figure: `${firstGrowth.toFixed(1)} MB` });
  const localGrowth = Math.max(worst(l.trips, 'uploadRss'), worst(l.trips, 'downloadRss'));
  const localFirst = Math.max(growth(l.first!, 'uploadRss'), growth(l.first!, 'downloadRss'));
  verdicts.push({ label: '    (reference) the same with the local store', outcome: verdict(localGrowth < TARGET_RSS_MB), figure: `${localGrowth.toFixed(1)} MB (first transfer: ${localFirst.toFixed(1)} MB)` });
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  out(`Many nodes${QUICK ? ' (quick)' : ''}: Node ${process.version}, ${availableParallelism()} core(s), load average before: ${loadAverage()} (other work on the machine skews the figures)`);
  out();
  const run = new Running();
  // Ctrl-C: exit through the helpers' exit hooks, which stop every server they started.
  process.once('SIGINT', () => process.exit(130));
  const verdicts: Verdict[] = [];
  const problems: string[] = [];
  try {
    await loadSections(run, verdicts, problems);
    await transferSection(run, verdicts, problems);
  } finally {
    await run.stopAll();
  }
  out();
  out('== Targets');
  const width = Math.max(...verdicts.map((v) => v.label.length));
  for (const v of verdicts) out(`${v.label.padEnd(width)}  ${v.outcome.padEnd(8)}  ${v.figure}`);
  if (problems.length > 0) {
    out();
    out('!! Problems seen during the run (the figures involving them are suspect):');
    for (const p of problems) out(`   - ${p}`);
  }
  out();
  out(`Load average at the end: ${loadAverage()}; whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

runBench(main, { prefix: 'bench: ', exitOnSuccess: true });
