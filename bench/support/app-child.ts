/**
 * A bench that runs the real app in a child of its own (this same file with --serve): the child
 * side, serveApp, and the parent side, startAppChild. The app has a temporary DATA_DIR, the
 * production log level (the parent sends stdout to /dev/null: every line is still written) and
 * no engines warmed (a calculator or local HTML needs none, and their start-up CPU stays out of
 * the figures), and a bench account; the child reports its port and key and serves until stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../src/server.ts';
import { benchApiKey } from './bench-account.ts';
import { failStart, serveUntilStopped } from './child-lifecycle.ts';
import { startChild } from './server-child.ts';

export const APP_HOST = '127.0.0.1';

export interface AppReady {
  kind: 'ready';
  port: number;
  apiKey: string;
}

/**
 * The --serve side. `prepare` runs before the app listens: a bench wraps services there, or
 * answers the parent's IPC questions (see askChild).
 */
export async function serveApp(name: string, dataDirPrefix: string, prepare?: (services: Services) => void): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix));
  try {
    // Imported here, not at the top: the parent imports this file too and must not load the app.
    const { loadConfig } = await import('../../src/config.ts');
    const { createApp } = await import('../../src/server.ts');
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', PORT: '0', HOST: APP_HOST, BOOTSTRAP_ACCOUNT: 'false', ENGINES_WARM_ON_START: 'false' });
    const { app, services } = await createApp(config);
    const apiKey = await benchApiKey(services);
    prepare?.(services);
    await app.listen({ port: 0, host: APP_HOST });
    const address = app.server.address();
    serveUntilStopped({ kind: 'ready', port: typeof address === 'object' && address ? address.port : 0, apiKey } satisfies AppReady, () => app.close(), dataDir);
  } catch (err) {
    failStart(name, dataDir, err);
  }
}

/** The parent side: forks `script` with --serve (and a V8 CPU profile written to `cpuProfDir` when given). */
export function startAppChild(script: string, cpuProfDir?: string): Promise<{ child: ChildProcess; ready: AppReady }> {
  return startChild<AppReady>(script, {
    name: 'the server',
    args: ['--serve'],
    execArgv: cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [],
    stdout: 'ignore',
  });
}
