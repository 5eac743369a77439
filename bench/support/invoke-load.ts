/**
 * The load loop of invoke-throughput.bench.ts: one autocannon round on one server, added up per
 * target over alternating rounds (every answer's body checked, latency from each response's own
 * timing, each round's answers per second kept for the spread, the server process's own CPU time
 * from /proc), and the figures a target's rounds come to. It lives here, beside the bench's other
 * support, so the bench file holds what it measures and how it reports it.
 *
 * load-rounds.ts is the same loop for a target spread over several nodes; it counts CPU over
 * process trees and right answers by their checked bodies, so this bench keeps its own loop rather
 * than change what its figures have always meant.
 */
import { readFileSync } from 'node:fs';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { checkedAutocannon, preflightRequest, type CheckedRequest } from './checked-autocannon.ts';

/** A request the bench loads (checked-autocannon.ts's), with the label and name its table prints. */
export interface Target extends CheckedRequest {
  label: string;
  name: string;
}

export interface Measurement {
  target: Target;
  seconds: number;
  /** Responses per second over all rounds: all responses / the seconds under load. */
  rps: number;
  ok: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  statusCodes: Record<string, number>;
  badBodies: string[];
  /** From every response's own timing, in microseconds (autocannon's histogram rounds to whole ms). */
  p50: number;
  p99: number;
  mean: number;
  max: number;
  /** Share of one core the server process used while measured (Linux /proc), or undefined. */
  serverCpu: number | undefined;
  /** The server's CPU time per answer in microseconds (user + system), or undefined. */
  serverMicrosPerAnswer: number | undefined;
  clientCpu: number;
  rounds: number[];
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state is field 3, utime 14, stime 15 (1-based over the whole line).
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** What the rounds of one target add up to. */
export interface Tally {
  target: Target;
  histogram: RecordableHistogram;
  badBodies: string[];
  seconds: number;
  ok: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  statusCodes: Record<string, number>;
  serverCpuSeconds: number | undefined;
  clientCpuSeconds: number;
  /** Each round's answers per second: the spread of a baseline's rounds decides whether a ratio is reported. */
  rounds: number[];
}

export function newTally(target: Target): Tally {
  return {
    target,
    histogram: createHistogram(),
    badBodies: [],
    seconds: 0,
    ok: 0,
    total: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    mismatches: 0,
    statusCodes: {},
    serverCpuSeconds: 0,
    clientCpuSeconds: 0,
    rounds: [],
  };
}

/** One round of load on one target, added to its tally. */
export async function load(tally: Tally, seconds: number, serverPid: number | undefined, connections: number): Promise<void> {
  const { target, histogram, badBodies } = tally;
  const instance = checkedAutocannon(target, { connections, seconds, histogram, badBodies });
  const cpu0 = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const clientCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await instance;
  const roundSeconds = (performance.now() - t0) / 1000;
  tally.seconds += roundSeconds;
  const cpu1 = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const clientCpu = process.cpuUsage(clientCpu0);

  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    tally.statusCodes[code] = (tally.statusCodes[code] ?? 0) + stat.count;
    tally.total += stat.count;
  }
  tally.ok += result['2xx'];
  tally.rounds.push(result['2xx'] / roundSeconds);
  tally.non2xx += result.non2xx;
  tally.errors += result.errors;
  tally.timeouts += result.timeouts;
  tally.mismatches += result.mismatches;
  tally.serverCpuSeconds = cpu0 !== undefined && cpu1 !== undefined && tally.serverCpuSeconds !== undefined ? tally.serverCpuSeconds + cpu1 - cpu0 : undefined;
  tally.clientCpuSeconds += (clientCpu.user + clientCpu.system) / 1e6;
}

export function measurement(t: Tally): Measurement {
  return {
    target: t.target,
    seconds: t.seconds,
    rps: t.ok / t.seconds,
    ok: t.ok,
    total: t.total,
    non2xx: t.non2xx,
    errors: t.errors,
    timeouts: t.timeouts,
    mismatches: t.mismatches,
    statusCodes: t.statusCodes,
    badBodies: t.badBodies,
    p50: t.histogram.percentile(50),
    p99: t.histogram.percentile(99),
    mean: t.histogram.mean,
    max: t.histogram.max,
    serverCpu: t.serverCpuSeconds === undefined ? undefined : t.serverCpuSeconds / t.seconds,
    serverMicrosPerAnswer: t.serverCpuSeconds === undefined || t.total === 0 ? undefined : (t.serverCpuSeconds * 1e6) / t.total,
    clientCpu: t.clientCpuSeconds / t.seconds,
    rounds: t.rounds,
  };
}

/** One real request before the load, so a broken setup fails loudly instead of benchmarking errors. */
export function preflight(target: Target): Promise<void> {
  return preflightRequest(`${target.label} ${target.method} ${target.url}`, target);
}
