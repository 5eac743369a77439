/** Samples a process's resident set size (VmRSS in /proc/<pid>/status) at a fixed interval. */
import { readFileSync } from 'node:fs';

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
