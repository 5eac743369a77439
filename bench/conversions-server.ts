/**
 * The service under test for bench/conversions.bench.ts, in a child process of its own, so the
 * bench's clients, the cold CLI runs and the server are separate processes and the server's RSS
 * can be read from /proc/<pid>/status.
 *
 * It runs the real app from buildApp() with a temporary DATA_DIR, LOG_LEVEL=warn (warnings go to
 * the parent's stderr) and ENGINES_WARM_ON_START=true; every other setting comes from the
 * environment with its production default (LIBREOFFICE_INSTANCES=2, UPLOAD_LIMIT_BYTES=100 MB,
 * ENGINE_QUEUE_LIMIT=16, …). It creates BENCH_ACCOUNTS (default 4) business accounts with a huge
 * quota and rate limit, one key each (section 3 runs clients of one account and clients of as many
 * accounts), and reports the port, the keys and its pid to the parent over the IPC channel. The
 * parent then waits for GET /readyz to show the engines ready. It stops on SIGTERM/SIGINT, a 'stop'
 * message or the parent going away, closing the app (which stops every engine process) and
 * removing DATA_DIR.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/server.ts';
import { benchApiKeys } from './support/bench-account.ts';
import { failStart, serveUntilStopped } from './support/child-lifecycle.ts';

export interface ConversionsServerReady {
  kind: 'ready';
  port: number;
  /** the first account's key (sections 1, 2 and 4, and the one-account clients of section 3) */
  apiKey: string;
  /** one key per account, apiKey first: section 3's clients of different accounts */
  accountKeys: string[];
  dataDir: string;
  pid: number;
  libreofficeInstances: number;
  uploadLimitBytes: number;
  engineQueueLimit: number;
}

const HOST = '127.0.0.1';

const dataDir = mkdtempSync(join(tmpdir(), 'tool-service-conv-bench-'));

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ENGINES_WARM_ON_START: 'true',
    PORT: '0',
    HOST,
    BOOTSTRAP_ACCOUNT: 'false',
  });
  const { app, services } = await createApp(config);
  const accounts = Math.max(1, Math.round(Number(process.env['BENCH_ACCOUNTS'] ?? 4)));
  const keys = await benchApiKeys(services, accounts);
  await app.listen({ port: 0, host: HOST });
  const address = app.server.address();

  const ready: ConversionsServerReady = {
    kind: 'ready',
    port: typeof address === 'object' && address ? address.port : 0,
    apiKey: keys[0]!,
    accountKeys: keys,
    dataDir,
    pid: process.pid,
    libreofficeInstances: config.engines.libreoffice.LIBREOFFICE_INSTANCES,
    uploadLimitBytes: config.uploadLimitBytes,
    engineQueueLimit: config.engineQueueLimit,
  };

  serveUntilStopped(ready, () => app.close(), dataDir);
}

main().catch((err: unknown) => failStart('conversions-server', dataDir, err));
