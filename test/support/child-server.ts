// The start/stop machinery of the tests' child servers (redis-server.ts, s3-server.ts,
// postgres-cluster.ts): a free loopback port (another one if the port was taken before the server
// bound it), readiness by an event (the server's own "ready" log line, never a fixed sleep or a
// poll), and process groups: each server runs detached in a group of its own, so one signal
// reaches it and whatever it spawned, and a test process that ends early (a failure, an uncaught
// error, the runner's SIGTERM) still takes its servers down on its way out.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port free on 127.0.0.1 right now (a server may still take it before ours binds: see onFreePort). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs `start` on a free port, on another one when it fails in a way `retryIf` accepts (the port
 * taken between the probe and the server's bind), `tries` times at most; the last error is thrown.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, retryIf: (error: Error) => boolean, tries = 3): Promise<{ port: number; value: T }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, value: await start(port) };
    } catch (error) {
      if (attempt >= tries || !retryIf(error as Error)) throw error;
    }
  }
}

/** Signals the child's whole process group, unless it has ended already. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Signals the child's group and resolves once the child has exited (at once if it had). */
export async function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  killGroup(child, signal);
  await exit;
}

/** What a server has written so far, and a way to hear that it wrote more. */
export interface ServerOutput {
  text(): string;
  /** Calls `listener` whenever the text may have grown; answers the unsubscribe. */
  onGrowth(listener: () => void): () => void;
}

/** A child's stdout and stderr as they arrive, one text in arrival order. */
export function streamOutput(child: ChildProcess): ServerOutput {
  let text = '';
  const listeners = new Set<() => void>();
  const add = (chunk: string) => {
    text += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout?.setEncoding('utf8').on('data', add);
  child.stderr?.setEncoding('utf8').on('data', add);
  return {
    text: () => text,
    onGrowth(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** A log file a server writes in `dir` (which must exist), heard through the folder's change events. */
export function fileOutput(dir: string, name: string): ServerOutput {
  const path = join(dir, name);
  return {
    text: () => (existsSync(path) ? readFileSync(path, 'utf8') : ''),
    onGrowth(listener) {
      // The folder, not the file: the file may not exist yet when the wait begins.
      const watcher = watch(dir, (_event, file) => {
        if (file === null || file === name) listener();
      });
      return () => watcher.close();
    },
  };
}

export interface Readiness {
  /** The server's name, for the error messages. */
  name: string;
  /** The line the server writes once it accepts connections. */
  ready: RegExp;
  /** A line that means it will never be ready (the error then quotes the output). */
  failed?: RegExp;
  /** The hang guard: a server not ready by then is an error (this is no sleep: readiness ends the wait at once). */
  withinMs: number;
}

/**
 * Resolves when `output` shows the ready line; rejects, quoting the output's end, when it shows the
 * failed line, when `child` exits first, or after `withinMs`. No polling: it acts on the output's
 * growth and the child's exit.
 */
export function waitUntilReady(child: ChildProcess, output: ServerOutput, readiness: Readiness): Promise<void> {
  const { name, ready, failed, withinMs } = readiness;
  const quoted = () => output.text().slice(-2000);
  return new Promise<void>((resolve, reject) => {
    let unsubscribe = () => {};
    const finish = (error?: Error) => {
      clearTimeout(timer);
      unsubscribe();
      child.off('exit', onExit);
      child.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      const text = output.text();
      if (ready.test(text)) finish();
      else if (failed?.test(text)) finish(new Error(`${name} failed before it was ready:\n${quoted()}`));
    };
    const onExit = () => finish(new Error(`${name} exited before it was ready:\n${quoted()}`));
    const onError = (error: Error) => finish(new Error(`${name} could not be started: ${error.message}`));
    const timer = setTimeout(() => finish(new Error(`${name} was not ready within ${withinMs / 1000} s:\n${quoted()}`)), withinMs);
    child.once('exit', onExit);
    child.once('error', onError);
    unsubscribe = output.onGrowth(check);
    // What was written before the wait began counts too.
    check();
    if (child.exitCode !== null || child.signalCode !== null) onExit();
  });
}

// Every detached server spawned by spawnChildServer, swept on the test process's exit.
const running = new Set<ChildProcess>();
let sweepInstalled = false;

function killAll(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
}

// Installed on the first spawn, not on import: a process that only imports this (scripts/
// with-postgres.ts, through postgres-cluster.ts) keeps its own signal handling untouched.
function installSweep(): void {
  if (sweepInstalled) return;
  sweepInstalled = true;
  process.once('exit', killAll);
  // The runner ends a file over its time bound with SIGTERM: sweep, then die of that signal as before.
  process.once('SIGTERM', () => {
    killAll();
    process.kill(process.pid, 'SIGTERM');
  });
}

export interface ChildCommand {
  command: string;
  args: string[];
  cwd?: string;
}

/** Spawns a server detached (its own process group), swept on exit; resolves once it wrote its ready line. */
export async function spawnChildServer(command: ChildCommand, readiness: Readiness): Promise<ChildProcess> {
  installSweep();
  const child = spawn(command.command, command.args, { ...(command.cwd ? { cwd: command.cwd } : {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  const output = streamOutput(child);
  try {
    await waitUntilReady(child, output, readiness);
  } catch (error) {
    // (A child that never ran, as for a missing binary, has no exit to wait for.)
    if (child.pid !== undefined) await ended(child, 'SIGKILL');
    throw error;
  }
  return child;
}

/** A child server on a free port, with a temp folder of its own, that can be paused, killed and restarted. */
export interface ChildServer {
  port: number;
  dir: string;
  /** SIGSTOP: the port still accepts connections but nothing answers (an overloaded or hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGKILL, as a crash or a dead machine: the port stops answering at once. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder, after kill(). */
  restart(): Promise<void>;
  /** Stops it for good (SIGTERM) and removes its folder. */
  stop(): Promise<void>;
}

export interface ChildServerSpec extends Readiness {
  /** The temp folder's name prefix (under the OS temp folder). */
  dirPrefix: string;
  /** The command that serves on `port` with its data in `dir`. */
  command(port: number, dir: string): ChildCommand;
}

/** Starts the server on a free port (another one, up to three tries, if it fails to start there). */
export async function startChildServer(spec: ChildServerSpec): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), spec.dirPrefix));
  const spawnOn = (port: number) => spawnChildServer(spec.command(port, dir), spec);
  let started: { port: number; value: ChildProcess };
  try {
    // Any failure to start may be the port taken before the server bound it: another port then.
    started = await onFreePort(spawnOn, () => true);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { port } = started;
  let current = started.value;
  return {
    port,
    dir,
    pause: () => killGroup(current, 'SIGSTOP'),
    resume: () => killGroup(current, 'SIGCONT'),
    kill: () => ended(current, 'SIGKILL'),
    async restart() {
      await ended(current, 'SIGKILL');
      current = await spawnOn(port);
    },
    async stop() {
      killGroup(current, 'SIGCONT');
      await ended(current, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
