// One pooled LibreOffice instance: a soffice and the Python bridge that drives it, spoken to in
// JSON lines over the bridge's stdin and stdout. Apart from the pool (libreoffice.ts), which decides
// how an instance is sandboxed and started; this file holds the process and its protocol, and the
// resident memory of its soffice.bin, read after every job, which asks for a restart past a bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { groupGone, killGroup } from './process.ts';
import type { EngineWorker } from './engine-types.ts';
import type { DocumentKind } from './libreoffice-types.ts';

export interface BridgeAnswer {
  id: number;
  ok: boolean;
  code?: 'unreadable' | 'export_failed' | 'unsupported' | 'error' | 'crashed';
  message?: string;
  kind?: DocumentKind;
  filter?: string;
  ms?: number;
}

/** One soffice + bridge pair. */
export class LibreOfficeInstance implements EngineWorker {
  readonly index: number;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (a: BridgeAnswer) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited = false;
  private exitDescription = '';
  private stderrTail = '';
  private readonly exitPromise: Promise<void>;
  /** soffice.bin's pid as the host sees it (inside bwrap the bridge sees another); null if not found */
  officePid: number | null = null;
  /** soffice.bin's VmRSS in bytes after the last job; null before the first job or if unreadable */
  rssBytes: number | null = null;
  /** restart the instance once rssBytes is over this (0 = never) */
  private readonly maxRssBytes: number;
  /** socket files soffice listens on, removed when the instance exits */
  private sockets: string[] = [];

  private constructor(index: number, child: ChildProcess, pipe: string | null, maxRssBytes: number) {
    this.index = index;
    this.child = child;
    this.maxRssBytes = maxRssBytes;
    this.exitPromise = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exited = true;
        this.exitDescription = signal ? `signal ${signal}` : `code ${code}`;
        // The whole group: soffice too, whatever the bridge managed to do.
        killGroup(child.pid);
        // soffice leaves its pipes' sockets in /tmp when it is killed.
        if (pipe !== null) {
          const sockets = new Set([path.join('/tmp', `OSL_PIPE_${process.getuid?.() ?? 0}_${pipe}`), ...this.sockets]);
          for (const socket of sockets) void rm(socket, { force: true }).catch(() => undefined);
        }
        const error = new Error(`LibreOffice instance ${index} exited (${this.exitDescription}) ${this.stderrTail.trim().slice(-300)}`);
        for (const waiter of this.pending.values()) waiter.reject(error);
        this.pending.clear();
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(index: number, command: string[], env: Record<string, string>, pipe: string, startTimeoutMs: number, cleanSockets: boolean, maxRssBytes = 0): Promise<LibreOfficeInstance> {
    const [program, ...args] = command as [string, ...string[]];
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env });
    const instance = new LibreOfficeInstance(index, child, cleanSockets ? pipe : null, maxRssBytes);
    child.stdin!.on('error', () => undefined);
    child.stderr!.on('data', (chunk: Buffer) => {
      instance.stderrTail = (instance.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    let buffered = '';
    let onReady: ((line: string) => void) | null = null;
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (onReady) onReady(line);
        else instance.answer(line);
      }
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`LibreOffice did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
      onReady = (line) => {
        clearTimeout(timer);
        onReady = null;
        try {
          const message = JSON.parse(line) as { ready?: boolean; pipes?: string[]; message?: string };
          if (message.ready) {
            instance.sockets = (message.pipes ?? []).filter((p) => /^\/tmp\/OSL_PIPE_[\w-]+$/.test(p));
            resolve();
          } else reject(new Error(message.message ?? 'LibreOffice failed to start'));
        } catch {
          reject(new Error(`unexpected bridge output: ${line.slice(0, 200)}`));
        }
      };
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      void instance.exitPromise.then(() => {
        clearTimeout(timer);
        reject(new Error(`LibreOffice exited while starting (${instance.exitDescription}): ${instance.stderrTail.trim().slice(-500)}`));
      });
    });
    try {
      await ready;
      // Found once, after the start: the bridge's pid for it is the sandbox's own under bwrap.
      if (maxRssBytes > 0 && child.pid !== undefined) instance.officePid = await descendantNamed(child.pid, 'soffice.bin');
    } catch (error) {
      await instance.stop();
      throw error;
    }
    return instance;
  }

  alive(): boolean {
    return !this.exited;
  }

  /**
   * Asks the supervisor for a restart once soffice holds more than its bound between jobs. soffice
   * grows by itself with the documents it has converted (about 140 MB fresh, a plateau of 210-260
   * MB after 1,500 one-page jobs, measured up to 5,000; a 20,000-row sheet leaves about 290 MB):
   * past the bound, a document bloated it or it leaks, and a fresh instance is cheaper to hold.
   */
  recycleReason(): string | null {
    if (this.maxRssBytes <= 0 || this.rssBytes === null || this.rssBytes <= this.maxRssBytes) return null;
    return `soffice holds ${Math.round(this.rssBytes / 2 ** 20)} MB, over its ${Math.round(this.maxRssBytes / 2 ** 20)} MB bound`;
  }

  private answer(line: string): void {
    let message: BridgeAnswer;
    try {
      message = JSON.parse(line) as BridgeAnswer;
    } catch {
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    waiter.resolve(message);
  }

  /**
   * Sends one job; resolves with the bridge's answer, rejects if the instance exits first. With a
   * memory bound, soffice's VmRSS is read once the answer is in (the document is closed by then),
   * within the job, so that recycleReason() has it when the job ends.
   */
  async request(job: Record<string, unknown>): Promise<BridgeAnswer> {
    const answer = await this.send(job);
    if (this.maxRssBytes > 0 && this.officePid !== null) this.rssBytes = residentBytes(this.officePid);
    return answer;
  }

  private send(job: Record<string, unknown>): Promise<BridgeAnswer> {
    if (this.exited) return Promise.reject(new Error(`LibreOffice instance ${this.index} is not running`));
    const id = this.nextId++;
    return new Promise<BridgeAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ ...job, id })}\n`);
    });
  }

  async stop(): Promise<void> {
    if (!this.exited) {
      // Idle: closing stdin asks the bridge to terminate soffice cleanly; kill the group if it
      // lingers. Busy (a hung or timed-out job): kill at once.
      if (this.pending.size > 0) killGroup(this.child.pid);
      else this.child.stdin!.end();
      const timer = setTimeout(() => killGroup(this.child.pid), 2000);
      await this.exitPromise;
      clearTimeout(timer);
    }
    killGroup(this.child.pid);
    // Stopped means gone: soffice, a grandchild, can outlive the bridge by a few milliseconds.
    if (!(await groupGone(this.child.pid))) killGroup(this.child.pid);
  }
}

/**
 * VmRSS of `pid` in bytes from /proc/<pid>/status, or null once it is gone. Read synchronously:
 * the file is ~1.5 KB the kernel writes on the read (tens of microseconds), while the promise
 * form (open, stat, read, close through the thread pool) kept the instance's slot taken, its
 * soffice idle, for four event-loop round trips after every job, milliseconds when the loop is busy.
 */
function residentBytes(pid: number): number | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

/** The first process named `name` (its /proc comm) among the descendants of `root`, or null. */
async function descendantNamed(root: number, name: string): Promise<number | null> {
  const entries = (await readdir('/proc').catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry));
  const processes = await Promise.all(
    entries.map(async (entry) => {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
      if (stat === null) return null;
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return { pid: Number(entry), ppid, comm };
    }),
  );
  const children = new Map<number, { pid: number; comm: string }[]>();
  for (const p of processes) {
    if (p === null) continue;
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p);
    else children.set(p.ppid, [p]);
  }
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      if (child.comm === name) return child.pid;
      queue.push(child.pid);
    }
  }
  return null;
}
