// Process helpers for the engines: find a program, run one with a time limit and bounded output,
// kill a whole process group, and the sandbox wrappers (a network namespace without interfaces
// through `unshare --net`, an address-space limit through `prlimit`).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';

/** Absolute path of `program` (searched on PATH when it has no slash), or null. */
export async function findProgram(program: string): Promise<string | null> {
  const candidates = program.includes('/')
    ? [program]
    : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean).map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return null;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** stdout went over maxStdoutBytes and was cut */
  truncated: boolean;
}

export interface RunProcessOptions {
  signal?: AbortSignal;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  /** stdout beyond this is dropped and the process killed (default 64 MiB) */
  maxStdoutBytes?: number;
  /** kept tail of stderr (default 16 KiB) */
  maxStderrBytes?: number;
}

/** Kills the process group led by `pid` (children were spawned with detached: true). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Whether a live process (not a zombie) is left in the process group `pgid` (Linux /proc). */
function groupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "(comm)": state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
    } catch {
      // gone while we looked
    }
  }
  return false;
}

/**
 * Waits until no live process of the group led by `pid` is left (SIGKILL is delivered at once,
 * but a process takes a moment to die), at most `timeoutMs`. True when the group is gone. A
 * zombie waiting for its reaper counts as gone: it holds no resources but its pid.
 */
export async function groupGone(pid: number | undefined, timeoutMs = 2000): Promise<boolean> {
  if (pid === undefined) return true;
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/**
 * Runs a program to completion in its own process group; the whole group is killed when `signal`
 * aborts (then the promise rejects with the signal's reason).
 */
export function runProcess(command: string, args: readonly string[], options: RunProcessOptions = {}): Promise<RunResult> {
  const maxStdout = options.maxStdoutBytes ?? 64 * 1024 * 1024;
  const maxStderr = options.maxStderrBytes ?? 16 * 1024;
  return new Promise<RunResult>((resolve, reject) => {
    options.signal?.throwIfAborted();
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      reject(error);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (truncated) return;
      size += chunk.length;
      if (size > maxStdout) {
        truncated = true;
        killGroup(child.pid);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-maxStderr);
    });
    child.stdin!.on('error', () => undefined);
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    else child.stdin!.end();

    const onAbort = (): void => killGroup(child.pid);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code, sig) => {
      options.signal?.removeEventListener('abort', onAbort);
      // Leave nothing behind that the program may have forked.
      killGroup(child.pid);
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      resolve({ code, signal: sig, stdout: Buffer.concat(chunks), stderr, truncated });
    });
  });
}

let netnsArgs: Promise<string[] | null> | null = null;

/** The command prefix that runs a program without network (no interfaces but a down loopback), or null. */
export function networkIsolationPrefix(): Promise<string[] | null> {
  netnsArgs ??= (async () => {
    const unshare = await findProgram('unshare');
    if (unshare === null) return null;
    try {
      if ((await runProcess(unshare, ['--net', '--', 'true'])).code === 0) return [unshare, '--net', '--'];
      if ((await runProcess(unshare, ['--user', '--map-root-user', '--net', '--', 'true'])).code === 0) {
        return [unshare, '--user', '--map-root-user', '--net', '--'];
      }
    } catch {
      // fall through
    }
    return null;
  })();
  return netnsArgs;
}

/** The command prefix that caps the address space of a program (and its children), or null. */
export async function memoryLimitPrefix(bytes: number | undefined): Promise<string[] | null> {
  if (bytes === undefined || bytes <= 0) return null;
  const prlimit = await findProgram('prlimit');
  if (prlimit === null) return null;
  return [prlimit, `--as=${Math.floor(bytes)}`, '--'];
}

let bwrapCheck: Promise<string | null> | null = null;

/** The bubblewrap program when it can build a sandbox here (checked once), else null. */
export function bubblewrap(): Promise<string | null> {
  bwrapCheck ??= (async () => {
    const bwrap = await findProgram('bwrap');
    if (bwrap === null) return null;
    try {
      const result = await runProcess(bwrap, ['--unshare-all', '--die-with-parent', ...systemBinds(), '--proc', '/proc', '--dev', '/dev', '--', '/bin/true']);
      return result.code === 0 ? bwrap : null;
    } catch {
      return null;
    }
  })();
  return bwrapCheck;
}

/** Read-only binds of the system a program needs to run (/usr, the library links, fonts, ld cache). */
export function systemBinds(): string[] {
  return [
    '--ro-bind', '/usr', '/usr',
    '--symlink', 'usr/lib', '/lib',
    '--symlink', 'usr/lib64', '/lib64',
    '--symlink', 'usr/bin', '/bin',
    '--symlink', 'usr/sbin', '/sbin',
    '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
    '--ro-bind-try', '/etc/fonts', '/etc/fonts',
    '--ro-bind-try', '/var/cache/fontconfig', '/var/cache/fontconfig',
    '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
  ];
}
