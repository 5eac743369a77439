// One pooled LibreOffice instance: a soffice and the Python bridge that drives it, spoken to in
// JSON lines over the bridge's stdin and stdout. Apart from the pool (libreoffice.ts), which decides
// how an instance is sandboxed and started; this file holds the process and its protocol.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
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
  /** pid of the soffice launcher the bridge started (its soffice.bin is a child of it) */
  sofficePid: number | null = null;
  /** socket files soffice listens on, removed when the instance exits */
  private sockets: string[] = [];

  private constructor(index: number, child: ChildProcess, pipe: string | null) {
    this.index = index;
    this.child = child;
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

  static async start(index: number, command: string[], env: Record<string, string>, pipe: string, startTimeoutMs: number, cleanSockets: boolean): Promise<LibreOfficeInstance> {
    const [program, ...args] = command as [string, ...string[]];
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env });
    const instance = new LibreOfficeInstance(index, child, cleanSockets ? pipe : null);
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
          const message = JSON.parse(line) as { ready?: boolean; pid?: number; pipes?: string[]; message?: string };
          if (message.ready) {
            instance.sofficePid = message.pid ?? null;
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
    } catch (error) {
      await instance.stop();
      throw error;
    }
    return instance;
  }

  alive(): boolean {
    return !this.exited;
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

  /** Sends one job; resolves with the bridge's answer, rejects if the instance exits first. */
  request(job: Record<string, unknown>): Promise<BridgeAnswer> {
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
