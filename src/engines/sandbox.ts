// One sandbox for every program the engines run on a caller's file (pandoc, poppler, LibreOffice,
// and ffmpeg, calibre, 7-Zip through ProgramEngine; sandboxedCommand/runSandboxed for any other):
// a bubblewrap jail with its own network, pid, IPC and user namespaces, a read-only view of the
// system (/usr, the library links, fonts), an empty /tmp, and read-write binds of exactly the job
// folders it is given. DATA_DIR, the database, the signing secret, /etc/passwd, /home and the
// server's /proc are never in view, and the program never inherits the server's environment (it
// holds secrets such as SMTP URLs). Without a usable bwrap the program still gets the minimal
// environment and, when the machine allows it, a network namespace (unshare --net), and a warning
// is logged once per engine.
import os from 'node:os';
import { bubblewrap, memoryLimitPrefix, networkIsolationPrefix, runProcess, systemBinds, type RunResult } from './process.ts';
import type { EngineLogger } from './supervisor.ts';

/** Where extra read-only files (scripts, filters) appear inside the sandbox. */
export const SANDBOX_FILES_DIR = '/opt/engines';

/** A passwd for programs that look their user up (LibreOffice): no real account is in view. */
export const FAKE_PASSWD = 'root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n';

export interface SandboxSpec {
  /** the program (absolute path) and its arguments */
  command: readonly string[];
  /** folders the program may read and write, bound at their own paths (the job's folders only) */
  writable?: readonly string[];
  /** host files bound read-only at a path inside, e.g. a filter at /opt/engines/filter.lua */
  readOnly?: readonly { host: string; inside: string }[];
  /** system paths bound read-only at their own path when they exist (e.g. /etc/libreoffice) */
  systemExtras?: readonly string[];
  /** a host file holding FAKE_PASSWD (or the like), shown as /etc/passwd */
  passwdFile?: string;
  /** variables beyond PATH, LANG and HOME (what the program really needs) */
  env?: Readonly<Record<string, string>>;
  /** HOME inside (default /tmp, the sandbox's own tmpfs) */
  home?: string;
  /** working folder (must be one of `writable`) */
  cwd?: string;
  /** keep the host network (default false: no interfaces at all) */
  network?: boolean;
  /** 'auto' (default) uses bwrap when it works here, 'bwrap' requires it, 'none' never uses it */
  mode?: 'auto' | 'bwrap' | 'none';
  /** names the engine in the fallback warning */
  engine: string;
  logger: EngineLogger;
}

export interface SandboxedCommand {
  /** program and arguments to spawn */
  command: string[];
  /** the environment to spawn it with (never the server's) */
  env: Record<string, string>;
  /** how it is contained */
  isolation: 'bwrap' | 'network' | 'none';
  /** the path of a `readOnly` host file as the program sees it */
  pathOf(host: string): string;
}

const warned = new Set<string>();

function warnOnce(spec: SandboxSpec, message: string): void {
  const key = `${spec.engine}:${message}`;
  if (warned.has(key)) return;
  warned.add(key);
  spec.logger.warn({ engine: spec.engine }, message);
}

/** The environment a sandboxed program starts with: nothing of the server's. */
export function minimalEnv(home: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: home, ...extra };
}

/** Builds the command that runs `spec.command` inside the sandbox (see the file comment). */
export async function sandboxCommand(spec: SandboxSpec): Promise<SandboxedCommand> {
  const mode = spec.mode ?? 'auto';
  const bwrap = mode === 'none' ? null : await bubblewrap();
  if (bwrap === null && mode === 'bwrap') throw new Error('bubblewrap (bwrap) is not usable here');
  if (bwrap !== null) {
    const home = spec.home ?? '/tmp';
    const env = minimalEnv(home, spec.env);
    const inside = new Map((spec.readOnly ?? []).map((file) => [file.host, file.inside]));
    const args = [
      bwrap,
      '--die-with-parent',
      '--unshare-all',
      ...(spec.network ? ['--share-net', '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf', '--ro-bind-try', '/etc/hosts', '/etc/hosts'] : []),
      '--clearenv',
      ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
      ...systemBinds(),
      ...(spec.systemExtras ?? []).flatMap((extra) => ['--ro-bind-try', extra, extra]),
      ...(spec.passwdFile ? ['--ro-bind', spec.passwdFile, '/etc/passwd'] : []),
      '--proc', '/proc',
      '--dev', '/dev',
      // Binds after the tmpfs, so that job folders under the host's /tmp show through it.
      '--tmpfs', '/tmp',
      ...unique(spec.writable ?? []).flatMap((dir) => ['--bind', dir, dir]),
      ...(spec.readOnly ?? []).flatMap((file) => ['--ro-bind', file.host, file.inside]),
      ...(spec.cwd ? ['--chdir', spec.cwd] : []),
      '--',
      ...spec.command,
    ];
    return { command: args, env, isolation: 'bwrap', pathOf: (host) => inside.get(host) ?? host };
  }
  if (mode === 'auto') warnOnce(spec, `bubblewrap is not usable here; ${spec.engine} runs without a filesystem sandbox (minimal environment only)`);
  // Outside bwrap, HOME must be a folder the program may write: the first job folder.
  const env = minimalEnv(spec.writable?.[0] ?? os.tmpdir(), spec.env);
  const pathOf = (host: string): string => host;
  if (spec.network) return { command: [...spec.command], env, isolation: 'none', pathOf };
  const netns = await networkIsolationPrefix();
  if (netns === null) {
    warnOnce(spec, `cannot create a network namespace (unshare --net); ${spec.engine} runs with network access`);
    return { command: [...spec.command], env, isolation: 'none', pathOf };
  }
  return { command: [...netns, ...spec.command], env, isolation: 'network', pathOf };
}

function unique(dirs: readonly string[]): string[] {
  return [...new Set(dirs)];
}

export interface SandboxedCommandOptions extends Omit<SandboxSpec, 'command'> {
  /** address-space limit of the program and its children, in MiB (0 or absent: none); set outside the sandbox, so nothing inside can lift it */
  memoryMb?: number;
}

/** Arguments, or a function of where `readOnly` host files appear inside the sandbox. */
export type SandboxArgs = readonly string[] | ((pathOf: (host: string) => string) => readonly string[]);

/**
 * The whole command line of one sandboxed run: the memory limit, the sandbox (bubblewrap with
 * only `writable` and `readOnly` in view, no network unless asked, or the fallbacks of
 * sandboxCommand), then the program (an absolute path: the sandbox has no PATH of the host's)
 * and its arguments. Every program engine builds its runs with this.
 */
export async function sandboxedCommand(program: string, args: SandboxArgs, options: SandboxedCommandOptions): Promise<SandboxedCommand> {
  const { memoryMb, ...spec } = options;
  const sandboxed = await sandboxCommand({ ...spec, command: [] });
  const limit = memoryMb === undefined || memoryMb <= 0 ? null : await memoryLimitPrefix(memoryMb * 1024 * 1024);
  const resolved = typeof args === 'function' ? args(sandboxed.pathOf) : args;
  return { ...sandboxed, command: [...(limit ?? []), ...sandboxed.command, program, ...resolved] };
}

export interface RunSandboxedOptions extends SandboxedCommandOptions {
  /** kills the whole process group when it aborts */
  signal?: AbortSignal;
  /** time limit of this run in ms (the group is killed; the promise rejects with a TimeoutError) */
  timeoutMs?: number;
  stdin?: string | Buffer;
  maxStdoutBytes?: number;
}

/** Runs `program` sandboxed (sandboxedCommand) to completion, under its memory and time limits. */
export async function runSandboxed(program: string, args: SandboxArgs, options: RunSandboxedOptions): Promise<RunResult> {
  const { signal, timeoutMs, stdin, maxStdoutBytes, ...rest } = options;
  const built = await sandboxedCommand(program, args, rest);
  const signals = [...(signal ? [signal] : []), ...(timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)])];
  const [command, ...commandArgs] = built.command as [string, ...string[]];
  return runProcess(command, commandArgs, {
    env: built.env,
    ...(signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) }),
    ...(stdin === undefined ? {} : { stdin }),
    ...(rest.cwd === undefined ? {} : { cwd: rest.cwd }),
    ...(maxStdoutBytes === undefined ? {} : { maxStdoutBytes }),
  });
}
