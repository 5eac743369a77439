// A real redis-server for the tests (Debian's, installed by the setup script): on a free loopback
// port, in a temp folder, with nothing saved to disk. It runs in a process group of its own, so
// stop() and kill() reach it whatever it spawned, and a test process that ends early (a failure,
// an uncaught error) still takes it down on its way out: nothing is left running (child-server.ts).
import { startChildServer } from './child-server.ts';

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

export async function startRedisServer(): Promise<RedisServer> {
  const server = await startChildServer({
    name: 'redis-server',
    dirPrefix: 'tool-service-redis-',
    // Its log line once it listens and has loaded (nothing, here): the moment it answers commands.
    ready: /Ready to accept connections/,
    withinMs: 10_000,
    command: (port, dir) => ({
      command: REDIS_SERVER,
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'],
    }),
  });
  return {
    port: server.port,
    url: `redis://127.0.0.1:${server.port}`,
    kill: server.kill,
    pause: server.pause,
    resume: server.resume,
    restart: server.restart,
    stop: server.stop,
  };
}
