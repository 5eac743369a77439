/**
 * CPU accounting from /proc (Linux), to tell a slow service from a busy machine: the CPU time of
 * a process tree (the server and its soffice, bwrap, python and chromium descendants) and the share
 * of the whole machine that was busy.
 *
 * The tree is sampled every 250 ms and each process's own user+system time is summed by pid:
 * a LibreOffice instance that is recycled (after N jobs) or killed takes its CPU time with it
 * (its sandbox's parents do not reap it), so a before/after difference of the tree would lose it.
 * A process that lives less than one interval is missed; one that dies loses its last interval.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in clock ticks */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const f = stat.slice(close + 2).split(' ');
    // f[0] is field 3 (state): ppid is field 4, utime and stime are fields 14 and 15.
    return { pid, ppid: Number(f[1]), comm: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

/** `pid` and its live descendants. */
export function processTree(pid: number): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const s = readStat(Number(name));
    if (s) all.push(s);
  }
  const children = new Map<number, ProcStat[]>();
  for (const s of all) {
    const list = children.get(s.ppid) ?? [];
    list.push(s);
    children.set(s.ppid, list);
  }
  const tree: ProcStat[] = [];
  const root = all.find((s) => s.pid === pid);
  const stack = root ? [root] : [];
  while (stack.length > 0) {
    const s = stack.pop()!;
    tree.push(s);
    stack.push(...(children.get(s.pid) ?? []));
  }
  return tree;
}

/** Busy and total jiffies of the whole machine so far (/proc/stat, all CPUs). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0); // user nice system idle iowait irq softirq steal
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

export interface CpuReading {
  /** CPU cores the tree used on average */
  treeCores: number;
  /** of which the root process itself (the Node server) */
  rootCores: number;
  /** busy share of all CPUs (0..1), everyone's work included */
  machineBusy: number;
  /** processes named `watchName` that appeared in the tree during the window (restarts) */
  started: number;
}

/** A window over which to read the CPU use of a process tree and of the machine. */
export class CpuWindow {
  private readonly pid: number;
  private readonly watchName: string;
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly baseline = new Set<number>();
  private readonly startedPids = new Set<number>();
  private readonly machine0: { busy: number; total: number };
  private readonly t0 = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(pid: number, watchName = 'soffice.bin', everyMs = 250) {
    this.pid = pid;
    this.watchName = watchName;
    for (const p of processTree(pid)) {
      this.first.set(p.pid, p.ticks);
      this.last.set(p.pid, p.ticks);
      this.baseline.add(p.pid);
    }
    this.machine0 = machineCpu();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    for (const p of processTree(this.pid)) {
      // A process first seen now was born in the window: all its time counts.
      if (!this.first.has(p.pid)) {
        this.first.set(p.pid, 0);
        if (p.comm === this.watchName && !this.baseline.has(p.pid)) this.startedPids.add(p.pid);
      }
      this.last.set(p.pid, p.ticks);
    }
  }

  read(): CpuReading {
    clearInterval(this.timer);
    this.sample();
    const seconds = (performance.now() - this.t0) / 1000;
    const m = machineCpu();
    let ticks = 0;
    for (const [pid, last] of this.last) ticks += Math.max(0, last - (this.first.get(pid) ?? 0));
    const rootTicks = Math.max(0, (this.last.get(this.pid) ?? 0) - (this.first.get(this.pid) ?? 0));
    return {
      treeCores: ticks / 100 / seconds, // USER_HZ is 100 on Linux
      rootCores: rootTicks / 100 / seconds,
      machineBusy: (m.busy - this.machine0.busy) / Math.max(1, m.total - this.machine0.total),
      started: this.startedPids.size,
    };
  }
}
