/**
 * The servers under test, in one child process of bench/invoke-throughput.bench.ts, so the load
 * generator and the servers each get a core of their own:
 *   (a) a bare `Fastify()` app with a GET route returning a constant, a POST route returning
 *       the same constant (the reference figure for a POST with a JSON body), and a POST route
 *       that busies the CPU for BUSY_MICROS before it returns the constant (the calibration: what
 *       a fixed slice of work per request costs this machine in throughput); and a second bare app
 *       made with `Fastify({ logger: true })`, whose POST route returns the same constant: Fastify's
 *       stock request logging (two pino lines per request, to this process's stdout) and nothing else;
 *   (b) the real app from buildApp() with its production defaults (LOG_LEVEL=info, logs on
 *       stdout: the parent points stdout at /dev/null, so every log line is still serialized and
 *       written, as in production).
 * It creates an account with a huge quota and rate limit and reports the ports and the key to the
 * parent over the IPC channel (stdout is the log sink). It stops on SIGTERM/SIGINT or a 'stop'
 * message, closing both apps, so `--cpu-prof` can write its profile on exit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/server.ts';
import { benchApiKey } from './support/bench-account.ts';
import { failStart, serveUntilStopped } from './support/child-lifecycle.ts';

export interface BenchServerReady {
  kind: 'ready';
  barePort: number;
  /** The path of the bare POST route: (b)'s path, so (a) POST gets (b)'s very request. */
  barePostPath: string;
  /** The bare POST route that spins for busyMicros before answering. */
  busyPostPath: string;
  busyMicros: number;
  /** The bare app with Fastify's stock logger; its POST route is at barePostPath. */
  loggedPort: number;
  appPort: number;
  apiKey: string;
  dataDir: string;
  pid: number;
}

const HOST = '127.0.0.1';
const BARE_POST_PATH = '/api/v1/calculators/simple-interest-calculator';
const BUSY_POST_PATH = '/calibration/busy';
const BUSY_MICROS = 10;

/** Keeps the CPU busy for `micros` (a spin, not a sleep: the point is CPU work). */
function busy(micros: number): void {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until);
}

const dataDir = mkdtempSync(join(tmpdir(), 'tool-service-bench-'));

async function main(): Promise<void> {

  const constant = async () => ({ hello: 'world' });
  const bare = Fastify();
  bare.get('/', constant);
  // The same constant on the path (b) calls: sent (b)'s very request, Fastify reads and parses
  // its JSON body as it does for (b), so this is the framework's own cost for that request.
  bare.post(BARE_POST_PATH, constant);
  bare.post(BUSY_POST_PATH, async () => {
    busy(BUSY_MICROS);
    return constant();
  });
  await bare.listen({ port: 0, host: HOST });
  const logged = Fastify({ logger: true });
  logged.post(BARE_POST_PATH, constant);
  await logged.listen({ port: 0, host: HOST });

  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', PORT: '0', HOST, BOOTSTRAP_ACCOUNT: 'false' });
  const { app, services } = await createApp(config);
  // The app warms its engines (LibreOffice, Chromium) at start, as in production; wait for that
  // to finish so their start-up CPU does not land inside either measurement.
  await services.engines.warm();
  const secret = await benchApiKey(services);
  await app.listen({ port: 0, host: HOST });

  const portOf = (address: ReturnType<typeof bare.server.address>) => (typeof address === 'object' && address ? address.port : 0);
  const ready: BenchServerReady = {
    kind: 'ready',
    barePort: portOf(bare.server.address()),
    barePostPath: BARE_POST_PATH,
    busyPostPath: BUSY_POST_PATH,
    busyMicros: BUSY_MICROS,
    loggedPort: portOf(logged.server.address()),
    appPort: portOf(app.server.address()),
    apiKey: secret,
    dataDir,
    pid: process.pid,
  };

  serveUntilStopped(ready, () => Promise.all([bare.close(), logged.close(), app.close()]), dataDir);
}

main().catch((err: unknown) => failStart('bench-server', dataDir, err));
