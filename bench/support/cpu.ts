/**
 * CPU accounting from /proc (Linux), to tell a slow service from a busy machine:
 * the CPU time of a process tree (the server, its soffice and chromium children) and the share
 * of the whole machine that was busy.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks (reaped children stay counted in their parent) */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
    return { pid, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by `pid` and all its live descendants (and their reaped children). */
export function treeCpuSeconds(pid: number): number {
  const all: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) all.push(s);
  }
  const children = new Map<number, ProcStat[]>();
  for (const s of all) {
    const list = children.get(s.ppid) ?? [];
    list.push(s);
    children.set(s.ppid, list);
  }
  let ticks = 0;
  const root = all.find((s) => s.pid === pid);
  const stack = root ? [root] : [];
  while (stack.length > 0) {
    const s = stack.pop()!;
    ticks += s.ticks;
    stack.push(...(children.get(s.pid) ?? []));
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** Busy and total jiffies of the whole machine so far (/proc/stat, all CPUs). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0); // user nice system idle iowait irq softirq steal
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

/** A window over which to read the CPU use of a process tree and of the machine. */
export class CpuWindow {
  private readonly tree0: number;
  private readonly machine0: { busy: number; total: number };
  private readonly t0 = performance.now();
  private readonly pid: number;

  constructor(pid: number) {
    this.pid = pid;
    this.tree0 = treeCpuSeconds(pid);
    this.machine0 = machineCpu();
  }

  /** treeCores: CPU cores the tree used on average; machineBusy: the busy share of all CPUs (0..1). */
  read(): { treeCores: number; machineBusy: number } {
    const seconds = (performance.now() - this.t0) / 1000;
    const m = machineCpu();
    return {
      treeCores: (treeCpuSeconds(this.pid) - this.tree0) / seconds,
      machineBusy: (m.busy - this.machine0.busy) / Math.max(1, m.total - this.machine0.total),
    };
  }
}
