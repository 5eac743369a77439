/** Samples a process's resident set size (VmRSS in /proc/<pid>/status) at a fixed interval. */
import { readFileSync } from 'node:fs';
import { fmtMb, fmtMs, table, verdict } from './stats.ts';

export function readRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

export interface RssSample {
  /** ms since the sampler started */
  t: number;
  bytes: number;
  /** the phase label current when the sample was taken */
  phase: string;
}

export class RssSampler {
  readonly samples: RssSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly t0 = performance.now();
  phase = 'before';

  private readonly pid: number;
  private readonly intervalMs: number;

  constructor(pid: number, intervalMs = 50) {
    this.pid = pid;
    this.intervalMs = intervalMs;
  }

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  sample(): void {
    try {
      this.samples.push({ t: performance.now() - this.t0, bytes: readRssBytes(this.pid), phase: this.phase });
    } catch {
      // the process is gone: nothing to sample
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  inPhase(...phases: string[]): RssSample[] {
    return this.samples.filter((s) => phases.includes(s.phase));
  }
}

export interface RssGrowth<T> {
  /** what `during` resolved to */
  result: T;
  /** the process's RSS just before `during` started */
  before: number;
  /** the highest RSS sampled (every 50 ms) from then until `during` settled */
  peak: number;
}

/** The RSS of `pid` before and at its peak while `during` runs (e.g. one big request to the server). */
export async function measureRssGrowth<T>(pid: number, during: () => Promise<T>): Promise<RssGrowth<T>> {
  const sampler = new RssSampler(pid);
  sampler.start();
  const before = readRssBytes(pid);
  sampler.phase = 'request';
  let result: T;
  try {
    result = await during();
  } finally {
    sampler.stop();
  }
  return { result, before, peak: Math.max(...sampler.samples.map((s) => s.bytes)) };
}

/** The server-RSS table and verdict the conversion benches print: growth of one request, target < 150 MB. */
export function rssGrowthReport(growth: RssGrowth<{ totalMs: number }>, extraRows: readonly (readonly string[])[] = []): string {
  const grown = growth.peak - growth.before;
  return [
    table([
      ['', 'MB'],
      ['server RSS before', fmtMb(growth.before)],
      ['server RSS peak during the request', fmtMb(growth.peak)],
      ['growth', fmtMb(grown)],
      ...extraRows,
    ]),
    `request took ${fmtMs(growth.result.totalMs)} ms; growth ${fmtMb(grown)} MB (target < 150 MB): ${verdict(grown < 150 * 1024 * 1024)}`,
  ].join('\n');
}
