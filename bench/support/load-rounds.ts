/**
 * Rounds of autocannon load on a target that may be one server or several at once (one autocannon
 * instance per server, started together, the connections split between them), added up per target
 * so alternating rounds can be compared: every answer's body checked, latency from each response's
 * own timing, the answers of each round kept (for the spread, spread.ts), and over each round the
 * CPU time of named process trees (the servers, PostgreSQL, Redis: what each answer costs where),
 * of this process (the load generator) and how busy the whole machine was.
 *
 * invoke-throughput.bench.ts measures one server the same way; this is that loop for a target
 * spread over several nodes.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { checkedAutocannon, preflightRequest } from './checked-autocannon.ts';
import { machineCpu, processTree } from './cpu.ts';

export interface LoadEndpoint {
  url: string;
  connections: number;
}

export interface LoadTarget {
  name: string;
  /** the servers it loads at once (two for "two nodes") */
  endpoints: LoadEndpoint[];
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** Is this response body the right answer? */
  verify: (body: string) => boolean;
  /** process trees whose CPU time is counted, by name (e.g. server, postgres, redis) */
  watch: Record<string, number | undefined>;
}

export interface Tally {
  target: LoadTarget;
  histogram: RecordableHistogram;
  badBodies: string[];
  seconds: number;
  ok: number;
  total: number;
  non2xx: number;
  errors: number;
  mismatches: number;
  statusCodes: Record<string, number>;
  /** answers per second of each round */
  roundRps: number[];
  /** cores other work took in each round (see LoadFigures.otherCores) */
  roundOtherCores: number[];
  /** cores the kernel spent in interrupts in each round (the loopback traffic's softirq, everyone's) */
  roundInterruptCores: number[];
  /** CPU seconds of each watched tree, over all rounds */
  cpuSeconds: Record<string, number>;
  clientCpuSeconds: number;
  /** busy and total jiffies of the machine over all rounds */
  machineBusy: number;
  machineTotal: number;
}

export function newTally(target: LoadTarget): Tally {
  return {
    target,
    histogram: createHistogram(),
    badBodies: [],
    seconds: 0,
    ok: 0,
    total: 0,
    non2xx: 0,
    errors: 0,
    mismatches: 0,
    statusCodes: {},
    roundRps: [],
    roundOtherCores: [],
    roundInterruptCores: [],
    cpuSeconds: Object.fromEntries(Object.keys(target.watch).map((name) => [name, 0])),
    clientCpuSeconds: 0,
    machineBusy: 0,
    machineTotal: 0,
  };
}

/**
 * Clock ticks of each live process of the tree under `pid`. A before/after difference by pid
 * counts a process born in the round from zero; one that ended in the round loses its time (a
 * PostgreSQL backend the pool closed: rare under load, where the pool's connections stay busy).
 */
function treeTicks(pid: number | undefined): Map<number, number> {
  const ticks = new Map<number, number>();
  if (pid === undefined) return ticks;
  for (const p of processTree(pid)) ticks.set(p.pid, p.ticks);
  return ticks;
}

function ticksSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, t] of after) sum += Math.max(0, t - (before.get(pid) ?? 0));
  return sum;
}

/**
 * Jiffies all CPUs spent in hard and soft interrupts so far (/proc/stat): loopback traffic is
 * handled there (softirq), charged to no process, so it is told apart from other people's work.
 */
function interruptJiffies(): number {
  const v = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (v[5] ?? 0) + (v[6] ?? 0);
}

/** One round: every endpoint of the target loaded at once for `seconds`, added to `tally`. */
export async function loadRound(tally: Tally, seconds: number, measured = true): Promise<void> {
  const { target, histogram, badBodies } = tally;
  // Right answers, counted where each body is checked (a wrong body counts as a mismatch whatever its status).
  let ok = 0;
  const instances = target.endpoints.map((endpoint) =>
    checkedAutocannon(
      { url: endpoint.url, method: target.method, headers: target.headers, ...(target.body !== undefined ? { body: target.body } : {}), verify: target.verify },
      { connections: endpoint.connections, seconds, histogram, badBodies, onRight: () => ok++ },
    ),
  );
  const watched = Object.entries(target.watch);
  const ticks0 = watched.map(([, pid]) => treeTicks(pid));
  const machine0 = machineCpu();
  const irq0 = interruptJiffies();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await Promise.all(instances);
  const elapsed = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(client0);
  const machine1 = machineCpu();
  const irq1 = interruptJiffies();
  const ticks1 = watched.map(([, pid]) => treeTicks(pid));
  if (!measured) return;

  for (const result of results) {
    for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
      tally.statusCodes[code] = (tally.statusCodes[code] ?? 0) + stat.count;
      tally.total += stat.count;
    }
    tally.non2xx += result.non2xx;
    tally.errors += result.errors + result.timeouts;
    tally.mismatches += result.mismatches;
  }
  tally.ok += ok;
  tally.seconds += elapsed;
  tally.roundRps.push(ok / elapsed);
  let ours = (client.user + client.system) / 1e6;
  watched.forEach(([name], i) => {
    const seconds = ticksSince(ticks0[i]!, ticks1[i]!) / 100; // USER_HZ is 100 on Linux
    tally.cpuSeconds[name] = (tally.cpuSeconds[name] ?? 0) + seconds;
    ours += seconds;
  });
  const cores = (jiffies: number) => (jiffies / Math.max(1, machine1.total - machine0.total)) * availableParallelism();
  const interrupts = cores(irq1 - irq0);
  tally.roundInterruptCores.push(interrupts);
  tally.roundOtherCores.push(cores(machine1.busy - machine0.busy) - interrupts - ours / elapsed);
  tally.clientCpuSeconds += (client.user + client.system) / 1e6;
  tally.machineBusy += machine1.busy - machine0.busy;
  tally.machineTotal += machine1.total - machine0.total;
}

/** One real request per endpoint before any load, so a broken setup fails loudly instead of benchmarking errors. */
export async function preflight(target: LoadTarget): Promise<void> {
  for (const { url } of target.endpoints) {
    await preflightRequest(`of ${target.name} (${url})`, { url, method: target.method, headers: target.headers, ...(target.body !== undefined ? { body: target.body } : {}), verify: target.verify });
  }
}

export interface LoadFigures {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  failed: number;
  roundRps: number[];
  roundOtherCores: number[];
  roundInterruptCores: number[];
  /** CPU µs per right answer of each watched tree */
  microsPerAnswer: Record<string, number>;
  /** cores the load generator (this process) used */
  clientCores: number;
  /** busy share of all the machine's CPUs (everyone's work included) */
  machineBusy: number;
  /** cores busy with work other than the watched trees, the load generator and interrupts: other people's (rounds' mean) */
  otherCores: number;
}

export function figures(t: Tally): LoadFigures {
  return {
    name: t.target.name,
    rps: t.ok / t.seconds,
    p50Ms: t.histogram.percentile(50) / 1000,
    p99Ms: t.histogram.percentile(99) / 1000,
    ok: t.ok,
    failed: t.total - t.ok + t.errors,
    roundRps: t.roundRps,
    roundOtherCores: t.roundOtherCores,
    roundInterruptCores: t.roundInterruptCores,
    microsPerAnswer: Object.fromEntries(Object.entries(t.cpuSeconds).map(([name, s]) => [name, t.ok > 0 ? (s * 1e6) / t.ok : Number.NaN])),
    clientCores: t.clientCpuSeconds / t.seconds,
    machineBusy: t.machineBusy / Math.max(1, t.machineTotal),
    otherCores: t.roundOtherCores.reduce((a, b) => a + b, 0) / Math.max(1, t.roundOtherCores.length),
  };
}

/** What went wrong in a tally, in one line, or undefined when every answer was right. */
export function failures(t: Tally): string | undefined {
  if (t.total === t.ok && t.errors === 0) return undefined;
  const e = t.badBodies[0];
  return `${t.target.name}: status codes ${JSON.stringify(t.statusCodes)}, errors/timeouts ${t.errors}, wrong bodies ${t.mismatches}${e ? `, e.g. ${e}` : ''}`;
}
