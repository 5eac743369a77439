/**
 * The SDK's own cost: `client.calculators_emi_calculator(input)` against a bare `fetch` of the
 * same request (POST /api/v1/calculators/emi-calculator with the same headers, a fresh
 * Idempotency-Key included, since the SDK sends one with every POST), on the real app, in the
 * same run. The calls alternate one by one (SDK, fetch, SDK, fetch…, which goes first swapping
 * each pair), so the drift of a shared machine hits both alike. Prints p50 and p99 of each and the
 * overhead (SDK / fetch - 1); target: <= 5% at p50 (HOLDS or MISSED). For reference it also
 * times the bare fetch without an Idempotency-Key: what the service's idempotency record costs,
 * which the SDK pays for safe retries. Every answer is checked. A measurement, not a test: it
 * exits 0 whether or not the target holds.
 *
 * The server runs in a child process (this file with --serve), so it and the client each get a
 * core.
 *
 *   npm run bench:sdk                    BENCH_SDK_CALLS (default 1000 per side), BENCH_SDK_WARMUP (200)
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { ToolServiceClient } from '../packages/sdk/src/index.ts';
import { APP_HOST, serveApp, startAppChild } from './support/app-child.ts';
import { envInt } from './support/env.ts';
import { runBench } from './support/run-bench.ts';
import { stopServer } from './support/server-child.ts';
import { fmtRatio, loadAverage, percentile, table, verdict } from './support/stats.ts';

const PATH = '/api/v1/calculators/emi-calculator';
const INPUT = { principal: 100000, rate: 10, tenure: 12 };
const CALLS = envInt('BENCH_SDK_CALLS', 1000);
const WARMUP = envInt('BENCH_SDK_WARMUP', 200);
const TARGET_OVERHEAD = 0.05;
const DEADLINE_MS = 5 * 60_000;

/** One call's latency in ms; throws when the answer is not the expected result. */
type Caller = () => Promise<number>;

function sdkCaller(client: ToolServiceClient, expected: unknown): Caller {
  return async () => {
    const started = performance.now();
    const answer = await client.calculators_emi_calculator(INPUT);
    const elapsed = performance.now() - started;
    if (answer.status !== true || !isDeepStrictEqual(answer.result, expected)) throw new Error(`the SDK call answered ${JSON.stringify(answer).slice(0, 300)}`);
    return elapsed;
  };
}

function fetchCaller(base: string, apiKey: string, expected: unknown, idempotencyKey: boolean, signal: AbortSignal): Caller {
  const body = JSON.stringify(INPUT);
  return async () => {
    const started = performance.now();
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': apiKey };
    if (idempotencyKey) headers['idempotency-key'] = `bench_${randomBytes(16).toString('hex')}`;
    const res = await fetch(`${base}${PATH}`, { method: 'POST', headers, body, signal });
    const json = (await res.json()) as { status?: boolean; result?: unknown };
    const elapsed = performance.now() - started;
    if (res.status !== 200 || json.status !== true || !isDeepStrictEqual(json.result, expected)) throw new Error(`fetch answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
    return elapsed;
  };
}

async function main(): Promise<void> {
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  const { child, ready } = await startAppChild(fileURLToPath(import.meta.url));
  try {
    const base = `http://${APP_HOST}:${ready.port}`;
    const first = await fetch(`${base}${PATH}`, { method: 'POST', headers: { 'x-api-key': ready.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(INPUT) });
    const expected = ((await first.json()) as { result?: unknown }).result;
    if (first.status !== 200 || expected === undefined) throw new Error(`the reference call answered ${first.status}`);

    const client = new ToolServiceClient({ apiKey: ready.apiKey, baseUrl: base, maxRetries: 0 });
    const callers: Record<'sdk' | 'fetch' | 'bare', Caller> = {
      sdk: sdkCaller(client, expected),
      fetch: fetchCaller(base, ready.apiKey, expected, true, deadline),
      bare: fetchCaller(base, ready.apiKey, expected, false, deadline),
    };
    const samples: Record<keyof typeof callers, number[]> = { sdk: [], fetch: [], bare: [] };
    const order: (keyof typeof callers)[][] = [
      ['sdk', 'fetch', 'bare'],
      ['fetch', 'sdk', 'bare'],
      ['bare', 'sdk', 'fetch'],
    ];
    for (let i = 0; i < WARMUP + CALLS; i++) {
      deadline.throwIfAborted();
      for (const name of order[i % order.length] ?? []) {
        const ms = await callers[name]();
        if (i >= WARMUP) samples[name].push(ms);
      }
    }

    const ms = (v: number) => v.toFixed(3);
    const [s50, f50, b50] = [percentile(samples.sdk, 50), percentile(samples.fetch, 50), percentile(samples.bare, 50)];
    const [s99, f99, b99] = [percentile(samples.sdk, 99), percentile(samples.fetch, 99), percentile(samples.bare, 99)];
    const overhead = (sdk: number, bare: number) => `${(((sdk / bare) - 1) * 100).toFixed(1)}%`;
    console.log(`SDK vs bare fetch, calculators_emi_calculator, ${CALLS} calls each after ${WARMUP} warm-up, alternating, latency in ms; every answer checked (load average ${loadAverage()})\n`);
    console.log(
      table([
        ['', 'p50', 'p99'],
        ['SDK client.calculators_emi_calculator', ms(s50), ms(s99)],
        ['bare fetch, same headers (Idempotency-Key)', ms(f50), ms(f99)],
        ['SDK / fetch', fmtRatio(s50 / f50), fmtRatio(s99 / f99)],
        ['SDK overhead', overhead(s50, f50), overhead(s99, f99)],
        ['reference: bare fetch without Idempotency-Key', ms(b50), ms(b99)],
      ]),
    );
    console.log(`\nSDK overhead <= ${TARGET_OVERHEAD * 100}% at p50: ${verdict(s50 / f50 - 1 <= TARGET_OVERHEAD)}`);
  } finally {
    await stopServer(child, 10_000);
  }
}

if (process.argv.includes('--serve')) void serveApp('sdk bench server', 'tool-service-bench-sdk-');
else runBench(main);
