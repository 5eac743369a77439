/**
 * Running a bench's server as a child process (so the load generator and the server each get a
 * core): start it, wait for its IPC 'ready' message, ask it for figures over IPC, wait for GET
 * /readyz to list the wanted engines as 'ready' (bench/conversions-server.ts), and stop it. The
 * child side of the protocol is support/child-lifecycle.ts.
 */
import { fork, type ChildProcess, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ConversionsServerReady } from '../conversions-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = fileURLToPath(new URL('../conversions-server.ts', import.meta.url));

export interface EngineStatusLine {
  name: string;
  version: string | null;
  state: string;
  workers?: number;
  concurrency?: number;
  detail?: string;
}

export interface ChildStartOptions {
  /** how the server is named in errors, e.g. 'the conversions server' */
  name: string;
  args?: readonly string[];
  /** node flags beside --disable-warning=ExperimentalWarning (e.g. --cpu-prof) */
  execArgv?: readonly string[];
  cwd?: string;
  /** where the child's stdout goes: 'ignore' is /dev/null, where the app still writes every log line as in production */
  stdout: 'ignore' | 'stderr';
  timeoutMs?: number;
}

/** Forks `script` and resolves with its first IPC message once that is `{ kind: 'ready', ... }`. */
export function startChild<R extends { kind: string }>(script: string, options: ChildStartOptions): Promise<{ child: ChildProcess; ready: R }> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  // The child's stderr is this process's: its warnings and a failed start show.
  const stdio: StdioOptions = ['ignore', options.stdout === 'ignore' ? 'ignore' : 2, 2, 'ipc'];
  const child = fork(script, [...(options.args ?? [])], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    execArgv: ['--disable-warning=ExperimentalWarning', ...(options.execArgv ?? [])],
    stdio,
  });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not report ready within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited before it was ready (${code ?? signal})`));
    };
    child.once('exit', onExit);
    child.once('message', (message: R) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (message?.kind === 'ready') resolvePromise({ child, ready: message });
      else reject(new Error(`unexpected message from ${options.name}: ${JSON.stringify(message)}`));
    });
  });
}

export function startConversionsServer(timeoutMs = 120_000): Promise<{ child: ChildProcess; ready: ConversionsServerReady }> {
  // stdout and stderr of the server go to this process's stderr: at LOG_LEVEL=warn only problems show.
  // BENCH_SERVER_FLAGS adds node flags to the server alone, e.g. '--trace-gc' (its lines go to stderr too).
  const execArgv = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  return startChild<ConversionsServerReady>(SERVER, { name: 'the conversions server', cwd: ROOT, stdout: 'stderr', timeoutMs, execArgv });
}

/** Sends `ask` to the child and resolves with its first answer of `kind` (a figure the child measures of itself, e.g. its CPU time). */
export function askChild<T extends { kind?: string }>(child: ChildProcess, ask: string, kind: string): Promise<T> {
  return new Promise((resolvePromise) => {
    const onMessage = (message: T) => {
      if (message?.kind !== kind) return;
      child.off('message', onMessage);
      resolvePromise(message);
    };
    child.on('message', onMessage);
    child.send(ask);
  });
}

/**
 * Polls /readyz until every engine in `names` is 'ready' with at least `minWorkers[name]` live
 * workers (an engine shows 'ready' as soon as its first worker is up, while the others still
 * start); fails on 'missing' or after the timeout.
 */
export async function waitForEngines(
  base: string,
  names: readonly string[],
  minWorkers: Readonly<Record<string, number>> = {},
  timeoutMs = 180_000,
): Promise<EngineStatusLine[]> {
  const deadline = Date.now() + timeoutMs;
  let last: EngineStatusLine[] = [];
  // 'degraded' can pass (a worker restarting after a crash); 30 s of it in a row is a failure to start.
  let degradedSince: number | undefined;
  for (;;) {
    try {
      const res = await fetch(`${base}/readyz`);
      const body = (await res.json()) as { engines?: EngineStatusLine[] };
      last = body.engines ?? [];
      const wanted = names.map((name) => ({ name, status: last.find((e) => e.name === name) }));
      const missing = wanted.find((w) => w.status?.state === 'missing');
      if (missing) throw new Error(`engine ${missing.name} is missing: ${missing.status?.detail ?? JSON.stringify(last)}`);
      const degraded = wanted.find((w) => w.status?.state === 'degraded');
      if (!degraded) degradedSince = undefined;
      else if (degradedSince === undefined) degradedSince = Date.now();
      else if (Date.now() - degradedSince > 30_000) {
        throw new Error(`engine ${degraded.name} stayed degraded for 30 s: ${degraded.status?.detail ?? JSON.stringify(last)}`);
      }
      if (wanted.every((w) => w.status?.state === 'ready' && (w.status.workers ?? 0) >= (minWorkers[w.name] ?? 0))) return last;
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('engine ')) throw err;
    }
    if (Date.now() > deadline) throw new Error(`the engines ${names.join(', ')} were not ready within ${timeoutMs / 1000} s: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The most jobs seen running at once in `engine`, by polling /readyz every `everyMs` until stopped. */
export function watchRunning(base: string, engine: string, everyMs = 200): { stop: () => Promise<number> } {
  let max = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const body = (await (await fetch(`${base}/readyz`)).json()) as { engines?: (EngineStatusLine & { running?: number })[] };
        const e = body.engines?.find((x) => x.name === engine);
        max = Math.max(max, e?.running ?? 0);
      } catch {
        // a missed sample
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return max;
    },
  };
}

/** Asks the child to stop ('stop' over IPC, else SIGTERM) and kills it if it has not exited after `graceMs`. */
export async function stopServer(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  if (child.connected) child.send('stop');
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
