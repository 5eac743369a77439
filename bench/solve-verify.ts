/**
 * The planner over MCP on local HTML (issue 11, section 7): `solve_task` and `verify_task` for the
 * seo-audit playbook on a realistic page of about 75 KB with a few real findings, over Streamable
 * HTTP with the SDK's own Client against the real server, and no network at all (input.html is
 * analysed free, on the server's analysis workers). Run: `npm run bench:planner`.
 *
 * The figure that matters is the MCP overhead over the analyses themselves: the baseline is the
 * sum of the same analyses the playbook's steps run (each step's htmlAnalyzers, one
 * analyzeOnWorker call per step, one after the other, on one parse of the page shared by the
 * pass's steps, as the runner makes them), timed in this
 * process on the same HTML. The overhead is what the rest costs: the JSON-RPC round trip and
 * the HTML crossing it, goal matching, input resolution, merging the steps into one jobReport,
 * sealing, gating, ranking fixes, the loop, (verify) checking the baseline's seal and the delta,
 * and the answer's serialisation and outputSchema check. Target: overhead <= 20% (median).
 *
 * Beside them, the transport floor: the same request and answer bytes over bare node:http (in the
 * server's process) and fetch, no MCP and no job. On this VM that alone is 12-13% of the baseline
 * (~80 KB of HTML in, ~35 KB of answer out), a share of the 20% no server change can give back.
 *
 * The server runs in a child process (this file with --serve), so the client and the server each
 * get a core of their own, as in bench/mcp-vs-rest.ts. The client connects (initialize) before
 * the clock starts. Baseline, floor, solve and verify alternate iteration by iteration so the
 * VM's drift hits them all alike. Every answer is checked (status, job, mode, findings, charge). A
 * measurement, not a test: it exits 0 whatever the figures; the run is bounded by DEADLINE_MS.
 *
 * Wall-clock figures on a shared two-core machine move with everyone else's load, so the bench
 * also reports main-thread CPU time per call (process.threadCpuUsage, which a busy neighbour
 * does not inflate much): the server's, asked over IPC before and after each call, and this
 * process's (the client's side of MCP, or the baseline's postMessage and reply). The analyses
 * themselves run on worker threads and are in neither; the CPU overhead of a call is its server
 * plus client main-thread time minus the baseline's. And where the wall time goes: the server
 * child times each JobService.solve / verify call (the job itself: matching, input, the runner's
 * analyses, report, seal, gate, loop, delta), so a call splits into the analyses, the job
 * service's own share (job - baseline) and the MCP transport's (call - job).
 *
 * Environment:
 *   BENCH_ITERATIONS   measured iterations of each figure (default 150: on an ~8 ms baseline, five groups of 12 spread past 25%)
 *   BENCH_WARMUP       warm-up iterations of each (default 8)
 *   BENCH_ONLY         solve or verify: measure that figure alone (with the baseline), for a profile
 *   BENCH_SERVER_CPU_PROF  a folder: the server child runs with --cpu-prof and writes its profile there
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { analyzeOnWorker } from '../src/analysis/analysis-pool.ts';
import { LOCAL_PAGE_URL } from '../src/analysis/local-page.ts';
import type { Analyzer } from '../src/analysis/scoring.ts';
import { loadCatalog } from '../src/core/catalog.ts';
import { loadPlaybookRegistry } from '../src/runs/playbooks/playbook-registry.ts';
import { APP_HOST, serveApp, startAppChild } from './support/app-child.ts';
import { envInt } from './support/env.ts';
import { runBench } from './support/run-bench.ts';
import { listingPage } from '../test/mcp/support/shop-page.ts';
import { askChild, stopServer } from './support/server-child.ts';
import { checkedRatio, refusalLine, reportFigure, roundMedians } from './support/report.ts';
import { fmtRatio, loadAverage, median, percentile, table, verdict } from './support/stats.ts';
import { withCallSignal } from './support/call-signal.ts';

const GOAL = 'audit the seo of my page';
const PLAYBOOK = 'seo-audit';
/** The runner's base URL for local HTML (workflow-runner.ts): the baseline analyses the page as it does. */
const LOCAL_BASE = LOCAL_PAGE_URL;
const TARGET_BYTES = 75 * 1024;
const TARGET_OVERHEAD = 0.2;
const DEADLINE_MS = 10 * 60_000;

const ITERATIONS = envInt('BENCH_ITERATIONS', 150);
const WARMUP = envInt('BENCH_WARMUP', 8);

// ---- the page ---------------------------------------------------------------------------------

// A product listing as shops write them (test/mcp/support/shop-page.ts listingPage, the page
// agent-loop.test.ts holds the answers' size to): a full head, navigation, product cards with
// pictures, specs and reviews. Its real findings: a title too long for a search result, a few
// images without alt text (and one named like a camera file), one skipped heading level, and a
// Product in JSON-LD without its offers.
export function benchPage(targetBytes = TARGET_BYTES): string {
  return listingPage(targetBytes);
}

// ---- the server child -------------------------------------------------------------------------

function serve(): Promise<void> {
  // Local HTML needs no engine.
  return serveApp('solve-verify server', 'tool-service-bench-planner-', (services) => {
    // Wall time inside the job service per call, for the parent's breakdown (the bench's own wrapper:
    // the service is the real one, only timed).
    const jobTimes: number[] = [];
    for (const method of ['solve', 'verify'] as const) {
      const original = services.jobs[method].bind(services.jobs) as (...args: unknown[]) => Promise<unknown>;
      (services.jobs as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await original(...args);
        } finally {
          jobTimes.push(performance.now() - t0);
        }
      };
    }
    // The parent asks for this thread's CPU time around each call (microseconds, user + system),
    // and once for the transport floor's port.
    let floor: Promise<number> | undefined;
    process.on('message', (message) => {
      if (message === 'floor') void (floor ??= floorServer()).then((port) => process.send?.({ kind: 'floor', port }));
      if (message === 'cpu') {
        const { user, system } = process.threadCpuUsage();
        process.send?.({ kind: 'cpu', micros: user + system, jobMs: jobTimes.splice(0).at(-1) ?? null });
      }
    });
  });
}

/**
 * The transport floor's server, in the app's process: plain node:http that reads a JSON body,
 * parses it and answers the JSON it was last given (POST /answer sets it: the wire bytes of a
 * solve_task answer). What a call of these sizes costs with no MCP, no Fastify and no job:
 * the request's ~80 KB and the answer's ~35 KB across loopback, read and parsed on both sides.
 */
function floorServer(): Promise<number> {
  let answer = '{}';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/answer') {
        answer = body;
        res.writeHead(204).end();
        return;
      }
      JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  return new Promise((resolvePort) => server.listen(0, APP_HOST, () => resolvePort((server.address() as AddressInfo).port)));
}

// ---- the figures ------------------------------------------------------------------------------

/** The server's main-thread CPU time so far, in ms, and the wall time of the last job-service call since the last ask. */
async function serverCpu(child: ChildProcess): Promise<{ cpu: number; jobMs: number | null }> {
  const message = await askChild<{ kind?: string; micros?: number; jobMs?: number | null }>(child, 'cpu', 'cpu');
  return { cpu: (message.micros ?? 0) / 1000, jobMs: message.jobMs ?? null };
}

const clientCpu = (): number => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;

/** The analyzers of each seo-audit step, as the runner picks them (ToolDefinition.htmlAnalyzers). */
async function stepAnalyzers(): Promise<{ stepId: string; analyzers: readonly Analyzer[] }[]> {
  const catalog = await loadCatalog();
  const playbook = (await loadPlaybookRegistry(catalog)).get(PLAYBOOK);
  if (!playbook) throw new Error(`no playbook ${PLAYBOOK}`);
  return playbook.steps.map((step) => {
    const analyzers = catalog.get(step.operationId)?.htmlAnalyzers;
    if (!analyzers) throw new Error(`${step.operationId} has no htmlAnalyzers: the playbook would not run free on local HTML`);
    return { stepId: step.id, analyzers };
  });
}

/**
 * What an agent sends and reads per tool: the arguments as sent and the answer's text characters.
 * The arguments are measured when the table is printed, not per call: serializing ~80 KB of them
 * again costs the client about 0.1 ms, which would be timed as if MCP had spent it.
 */
const sizes = new Map<string, { args: Record<string, unknown>[]; answer: number[] }>();

/** The last whole answer (content and structuredContent), for the transport floor's canned answer. */
let lastAnswer: Record<string, unknown> | undefined;

async function call(client: Client, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Answer> {
  // A call's own signal: the SDK leaves a listener on the signal it is given (support/call-signal.ts).
  const answer = await withCallSignal(signal, (own) => client.callTool({ name, arguments: args }, undefined, { signal: own, timeout: 60_000 }));
  if (answer.isError) throw new Error(`${name} answered an error: ${JSON.stringify(answer).slice(0, 400)}`);
  const seen = sizes.get(name) ?? { args: [], answer: [] };
  seen.args.push(args);
  seen.answer.push((answer.content as { text?: string }[]).reduce((n, c) => n + (c.text?.length ?? 0), 0));
  sizes.set(name, seen);
  lastAnswer = answer;
  return answer.structuredContent as Answer;
}

function sizeRows(pageBytes: number): string[][] {
  const rows = [['tool', 'calls', 'largest argument bytes', 'of which not the page', 'largest answer characters', 'answer <= 24 KB']];
  for (const [name, seen] of sizes) {
    const args = Math.max(...seen.args.map((a) => Buffer.byteLength(JSON.stringify(a))));
    const answer = Math.max(...seen.answer);
    rows.push([name, String(seen.answer.length), String(args), String(args - pageBytes), String(answer), verdict(answer <= 24 * 1024)]);
  }
  return rows;
}

function checkSolve(a: Answer, findings: number): void {
  const ok = a['status'] === 'ok' && a['mode'] === 'local' && a['job']?.id === PLAYBOOK && a['credits']?.charged === 0 && a['jobReport']?.summary?.findings === findings && a['loop']?.round === 0;
  if (!ok) throw new Error(`unexpected solve_task answer: ${JSON.stringify(a).slice(0, 500)}`);
}

function checkVerify(a: Answer, findings: number): void {
  const ok = a['status'] === 'fail' && a['delta']?.remainingFindings?.length === findings && a['delta']?.resolvedFindings?.length === 0 && a['loop']?.round === 1 && a['credits']?.charged === 0;
  if (!ok) throw new Error(`unexpected verify_task answer: ${JSON.stringify(a).slice(0, 500)}`);
}

async function main(): Promise<void> {
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  const html = benchPage();
  const steps = await stepAnalyzers();
  const analyses = async (): Promise<number> => {
    let findings = 0;
    // One parse for the pass, shared by its steps under a key of its own, as the runner's job does (parse-reuse.ts).
    const parseKey = randomUUID();
    for (const step of steps) findings += (await analyzeOnWorker(step.analyzers, html, null, LOCAL_BASE, deadline, parseKey)).findings.length;
    return findings;
  };
  const stepFindings = await analyses();

  const { child, ready } = await startAppChild(fileURLToPath(import.meta.url), process.env['BENCH_SERVER_CPU_PROF']);
  const client = new Client({ name: 'bench-solve-verify', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://${APP_HOST}:${ready.port}/mcp`), { requestInit: { headers: { 'x-api-key': ready.apiKey } } }));
    const input = { html };
    const first = await call(client, 'solve_task', { goal: GOAL, input }, deadline);
    const findings = Number(first['jobReport']?.summary?.findings);
    checkSolve(first, findings);
    if (!(findings > 0)) throw new Error('the bench page has no findings: the loop would have nothing to rank');

    // Each verify starts a loop of its own: the server keeps a loop's round and stops on its chain,
    // so verifying one solve 60 times would measure a stopped loop after the second round. The
    // solves they verify are made here, outside the clock.
    // The baseline's pass runs beside each of them, so this process's analysis worker is as warm as
    // the server's (with the warm-up alone, the baseline's medians fell ~25% over a run as its JIT caught up).
    const solves: string[] = [];
    for (let i = 0; i < ITERATIONS + WARMUP; i++) {
      solves.push(String((await call(client, 'solve_task', { goal: GOAL, input }, deadline))['execution'].runId));
      await analyses();
    }
    const nextSolve = (): string => solves.pop() ?? String(first['execution'].runId);
    const figure = (name: string, run: () => Promise<unknown>) => ({ name, run, samples: [] as number[], serverCpu: [] as number[], clientCpu: [] as number[], jobMs: [] as number[] });
    // The transport floor answers what the last solve answered: the same JSON-RPC response, as the client parsed it, serialized again.
    const floorPort = (await askChild<{ kind?: string; port?: number }>(child, 'floor', 'floor')).port;
    const floorUrl = `http://${APP_HOST}:${floorPort}`;
    await fetch(`${floorUrl}/answer`, { method: 'POST', body: JSON.stringify({ result: lastAnswer, jsonrpc: '2.0', id: 0 }), signal: deadline });
    let floorId = 0;
    const floorCall = async (): Promise<void> => {
      // The request as the SDK's transport sends a tools/call: the same JSON-RPC body and headers.
      const body = JSON.stringify({ method: 'tools/call', params: { name: 'solve_task', arguments: { goal: GOAL, input } }, jsonrpc: '2.0', id: ++floorId });
      const res = await fetch(`${floorUrl}/`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': ready.apiKey }, body, signal: deadline });
      checkSolve((JSON.parse(await res.text()) as { result?: { structuredContent?: Answer } }).result?.structuredContent ?? {}, findings);
    };
    const figures = {
      baseline: figure("baseline: the steps' analyses (analyzeOnWorker, in turn)", analyses),
      floor: figure('transport floor: the same bytes over bare node:http and fetch', floorCall),
      solve: figure('solve_task over MCP', async () => checkSolve(await call(client, 'solve_task', { goal: GOAL, input }, deadline), findings)),
      verify: figure('verify_task over MCP (baseline: {runId} of the solve)', async () => checkVerify(await call(client, 'verify_task', { goal: GOAL, input, baseline: { runId: nextSolve() } }, deadline), findings)),
    };
    const only = process.env['BENCH_ONLY'];
    if (only !== undefined && only !== 'solve' && only !== 'verify') throw new Error(`BENCH_ONLY must be solve or verify (got "${only}")`);
    const all = Object.values(figures).filter((f) => only === undefined || f === figures.baseline || f === figures.floor || f === figures[only]);
    for (let i = 0; i < WARMUP; i++) for (const f of all) await f.run();
    for (let i = 0; i < ITERATIONS; i++) {
      // Which goes first rotates: none always runs right after another's garbage.
      for (let k = 0; k < all.length; k++) {
        const f = all[(i + k) % all.length]!;
        const s0 = await serverCpu(child);
        const c0 = clientCpu();
        const t0 = performance.now();
        await f.run();
        f.samples.push(performance.now() - t0);
        f.clientCpu.push(clientCpu() - c0);
        const s1 = await serverCpu(child);
        f.serverCpu.push(s1.cpu - s0.cpu);
        if (s1.jobMs !== null) f.jobMs.push(s1.jobMs);
      }
    }

    const base50 = median(figures.baseline.samples);
    const base99 = percentile(figures.baseline.samples, 99);
    const ms = (v: number): string => v.toFixed(2);
    const pct = (r: number): string => `${(r * 100).toFixed(1)}%`;
    // CPU time is counted in scheduler ticks: a mean over many calls, not a median, reads it right.
    const mean = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
    const rows = [['figure', 'median ms', 'p99 ms', 'median / baseline', 'overhead (median)', `overhead <= ${pct(TARGET_OVERHEAD)}`]];
    const split = [['figure', 'in job service ms', 'job service share ms', 'MCP transport ms', 'server CPU ms', 'client CPU ms', 'CPU overhead ms']];
    const baseCpu = mean(figures.baseline.clientCpu);
    const refusals: string[] = [];
    const floor50 = median(figures.floor.samples);
    const floorNote = `transport floor +${pct(floor50 / base50)}: the same bytes over bare node:http`;
    for (const f of all) {
      if (f.samples.length === 0) continue;
      const m = median(f.samples);
      const isBase = f === figures.baseline;
      if (f === figures.floor) {
        rows.push([f.name, ms(m), ms(percentile(f.samples, 99)), '', `+${pct(m / base50)}`, '(no target)']);
        split.push([f.name, '', '', ms(m), ms(mean(f.serverCpu)), ms(mean(f.clientCpu)), '']);
        continue;
      }
      rows.push([f.name, ms(m), ms(percentile(f.samples, 99)), fmtRatio(m / base50), isBase ? '' : pct(m / base50 - 1), isBase ? '' : verdict(m / base50 - 1 <= TARGET_OVERHEAD)]);
      if (isBase) continue;
      const check = checkedRatio(m, base50, roundMedians(figures.baseline.samples));
      if (check.refusal) refusals.push(refusalLine(f.name, check));
      reportFigure({
        bench: 'bench:planner',
        name: `${f.name}: overhead over the same analyses run directly`,
        figure: `${ms(m)} ms`,
        baseline: `${ms(base50)} ms`,
        ratio: check.ratio === undefined ? 'refused' : `+${pct(check.ratio - 1)}`,
        target: `<= +${pct(TARGET_OVERHEAD)}`,
        holds: check.ratio === undefined ? undefined : check.ratio - 1 <= TARGET_OVERHEAD,
        note: check.refusal ?? floorNote,
      });
      const job = median(f.jobMs);
      split.push([f.name, ms(job), ms(job - base50), ms(m - job), ms(mean(f.serverCpu)), ms(mean(f.clientCpu)), ms(mean(f.serverCpu) + mean(f.clientCpu) - baseCpu)]);
    }
    process.stdout.write(
      `solve_task / verify_task over MCP on local HTML (${PLAYBOOK}, ${steps.length} steps), a ${(Buffer.byteLength(html) / 1024).toFixed(0)} KB page with ${findings} findings ` +
        `(${stepFindings} over the steps before merging); ${ITERATIONS} iterations after ${WARMUP} warm-up, node ${process.version}, load ${loadAverage()}\n` +
        `Baseline p99 ${ms(base99)} ms. Overhead = what the MCP call costs beyond the same analyses run directly.\n\n${table(rows)}\n\n` +
        `Where the time goes (medians; job service share = in job service - baseline median; MCP transport = call - in job service). CPU: mean main-thread ` +
        `CPU per call (the analyses run on workers, in none of them); CPU overhead = server + client - the baseline's ${ms(baseCpu)} ms.\n\n${table(split)}\n\n` +
        `The transport floor is a solve_task's request and answer, byte for byte, across loopback with no MCP, Fastify or job: fetch here, node:http in the ` +
        `server's process, each side parsing the other's JSON. It takes ${ms(floor50)} ms, +${pct(floor50 / base50)} of the baseline; ` +
        (base50 * TARGET_OVERHEAD >= floor50
          ? `the ${pct(TARGET_OVERHEAD)} target leaves ${ms(base50 * TARGET_OVERHEAD - floor50)} ms beyond it for the SDK's Client and server, the app's route, key ` +
            `check and run records, and the job service's matching, merging, sealing, ranking and answer.\n\n`
          : `that alone is past the ${pct(TARGET_OVERHEAD)} target (${ms(base50 * TARGET_OVERHEAD)} ms on these analyses), before the server does anything.\n\n`) +
        `What an agent sends and reads (largest over the run; issue 17 targets: an argument <= 2 KB besides the page it passes, an answer <= 24 KB of text). ` +
        `The page's own ${Buffer.byteLength(html)} bytes of input.html are in every argument here: a page on a URL sends none.\n\n${table(sizeRows(Buffer.byteLength(JSON.stringify(html))))}\n`,
    );
    for (const line of refusals) process.stdout.write(`${line}\n`);
  } finally {
    await client.close().catch(() => undefined);
    await stopServer(child, 10_000);
  }
  // The baseline's analysis worker is unref'd when idle: the process ends by itself.
}

// Run as a script only: other files may import benchPage.
const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isEntry && process.argv.includes('--serve')) void serve();
else if (isEntry) runBench(main);
