// A real redis-server for the tests (Debian's, installed by the setup script): on a free loopback
// port, in a temp folder, with nothing saved to disk. It runs in a process group of its own, so
// stop() and kill() reach it whatever it spawned, and a test process that ends early (a failure,
// an uncaught error) still takes it down on its way out: nothing is left running.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process.ts';

const REDIS_SERVER = process.env['REDIS_SERVER'] ?? '/usr/bin/redis-server';

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL, as a crash or a dead machine: the port stops answering at once. */
  kill(): Promise<void>;
  /** SIGSTOP: the port still accepts connections but nothing answers (an overloaded or hung Redis). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port (empty: nothing was saved), after kill(). */
  restart(): Promise<void>;
  /** Stops it for good and removes its folder. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
function killAll(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
}
process.once('exit', killAll);
// The runner ends a file over its time bound with SIGTERM: sweep, then die of that signal as before.
process.once('SIGTERM', () => {
  killAll();
  process.kill(process.pid, 'SIGTERM');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** One PING over a fresh connection: true on +PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

/** Spawns redis-server on `port` and resolves once it answers PING; rejects if it exits first. */
async function spawnOn(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.on('exit', () => running.delete(child));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error(`redis-server exited before answering on port ${port}:\n${output}`);
    if (await pings(port)) return child;
    if (Date.now() > deadline) {
      killGroup(child, 'SIGKILL');
      throw new Error(`redis-server did not answer PING on port ${port} within 10 s:\n${output}`);
    }
    // Poll the port, not the clock: the next PING as soon as this turn of the loop ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  killGroup(child, signal);
  await exit;
}

export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tool-service-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  // A free port can be taken between the probe and redis-server's bind: try another then.
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await spawnOn(port, dir);
    } catch (err) {
      if (attempt >= 2) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  let current: ChildProcess = child;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => ended(current, 'SIGKILL'),
    pause: () => killGroup(current, 'SIGSTOP'),
    resume: () => killGroup(current, 'SIGCONT'),
    async restart() {
      await ended(current, 'SIGKILL');
      current = await spawnOn(port, dir);
    },
    async stop() {
      killGroup(current, 'SIGCONT');
      await ended(current, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
