import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccountStore } from '../../src/accounts/account-store.ts';
import { migrateToLatest, openDatabase } from '../../src/db/database.ts';
import { freePort, onFreePort } from './child-server.ts';
import { testPostgresCluster, testsUsePostgres } from './postgres-cluster.ts';

// A real server process, for tests of what survives its death (SIGKILL) and a restart, on SQLite
// or (TEST_DATABASE=postgres) on PostgreSQL.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The probe for a free port is shared with the other child servers (child-server.ts).
export { freePort };

export interface Server {
  child: ChildProcess;
  base: string;
  /** Resolves when a log line containing `text` appears. */
  logged(text: string): Promise<void>;
  /** Everything the process wrote so far: stdout (its log lines and banners), then stderr. */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

// Every server started here, by process group. Each runs detached, in its own group with the
// engines it starts (Chromium, LibreOffice), so one kill takes them all. A test that fails before
// its own `after` stops its server, or a file killed at its time bound, must not leave servers
// holding ports, folders and the file's pipes: the group sweep below runs when this file exits.
const groups = new Set<number>();

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILLs what every server started in this file left running (servers and their engines). */
export function killAllServers(): void {
  for (const pgid of groups) killGroup(pgid);
  groups.clear();
}

let sweepInstalled = false;
function installSweep(): void {
  if (sweepInstalled) return;
  sweepInstalled = true;
  process.once('exit', killAllServers);
  // The runner ends a file over its bound with SIGTERM: sweep, then die of that signal as before.
  process.once('SIGTERM', () => {
    killAllServers();
    process.kill(process.pid, 'SIGTERM');
  });
}

const databaseByDataDir = new Map<string, Promise<string>>();

/**
 * The database of the servers started on `dataDir`: the SQLite file there (the server's own
 * default), or with TEST_DATABASE=postgres a database of the test process's cluster, made on first
 * use and the same for every later call (a restarted server finds what the killed one left, and a
 * test opens the very database the server uses). The cluster is throwaway, so it is not dropped.
 */
export function testDatabaseUrl(dataDir: string): Promise<string> {
  if (!testsUsePostgres()) return Promise.resolve(`sqlite:${join(dataDir, 'tool-service.db')}`);
  let url = databaseByDataDir.get(dataDir);
  if (url === undefined) {
    url = testPostgresCluster().then((cluster) => cluster.createDatabase());
    databaseByDataDir.set(dataDir, url);
  }
  return url;
}

/**
 * A real `serve` process on `dataDir` and its testDatabaseUrl (unless `env` names one); resolves
 * once it logs that it listens. On another port when the probed one was taken before the server
 * bound it (another file's server got it first: EADDRINUSE), as the other child servers do.
 */
export async function startServer(dataDir: string, env: Record<string, string>): Promise<Server> {
  installSweep();
  const databaseUrl = env['DATABASE_URL'] ?? (await testDatabaseUrl(dataDir));
  const { value } = await onFreePort((port) => startServerOn(port, dataDir, databaseUrl, env), (error) => /EADDRINUSE/.test(error.message));
  return value;
}

async function startServerOn(port: number, dataDir: string, databaseUrl: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'src/main.ts', 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', BOOTSTRAP_ACCOUNT: 'false', ENGINES_WARM_ON_START: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) groups.add(child.pid);
  let out = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const w of waiters.filter((x) => out.includes(x.text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = once(child, 'exit');
  const server: Server = {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => `${out}${err}`,
    logged(text) {
      if (out.includes(text)) return Promise.resolve();
      const seen = new Promise<void>((resolve) => waiters.push({ text, resolve }));
      const died = exited.then(([code, signal]) => {
        throw new Error(`the server exited (${code ?? signal}) before logging "${text}":\n${out}\n${err}`);
      });
      return Promise.race([seen, died]);
    },
    // The server alone gets `signal` (the tests are about what survives its death); once it is
    // dead, engines it left are killed with its group, as a supervisor's cgroup would.
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      if (child.pid !== undefined && groups.delete(child.pid)) killGroup(child.pid);
    },
  };
  // No clock: waits for the line itself (or the process's death); the test's timeout is the hang guard.
  try {
    await server.logged('Server listening at');
  } catch (error) {
    await server.kill('SIGKILL');
    throw error;
  }
  return server;
}

export const EMI = '/api/v1/calculators/emi-calculator';
export const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };

export interface Answer {
  status: number;
  replayed: boolean;
  body: unknown;
}

/** One EMI call over real HTTP, optionally with an Idempotency-Key. */
export async function callEmi(base: string, apiKey: string, idempotencyKey?: string): Promise<Answer> {
  const res = await fetch(`${base}${EMI}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(EMI_BODY),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: await res.json() };
}

export interface Usage {
  used: number;
  byTool: { operationId: string; calls: number; failures: number; credits: number }[];
}

/** GET /api/v1/usage (which flushes the server's usage first). */
export async function usageOf(base: string, apiKey: string): Promise<Usage> {
  const res = await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': apiKey } });
  if (res.status !== 200) throw new Error(`GET /api/v1/usage answered ${res.status}`);
  return ((await res.json()) as { result: Usage }).result;
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * The log lines of request `reqId`, once the server has logged what it had to log for it so far:
 * a request made now (with its own id) is logged after them, on the same stdout, so waiting for
 * its line waits for theirs. The caller waits first for whatever ends that request's work.
 */
export async function requestLines(server: Server, reqId: string): Promise<LogLine[]> {
  const marker = `${reqId}-after`;
  const res = await fetch(`${server.base}/healthz`, { headers: { 'x-request-id': marker } });
  if (res.status !== 200) throw new Error(`GET /healthz answered ${res.status}`);
  await server.logged(`"reqId":"${marker}"`);
  return server.output().split('\n').filter((line) => line.includes(`"reqId":"${reqId}"`)).map((line) => JSON.parse(line) as LogLine);
}

/**
 * A verified business account with one key in the database under `dataDir`, made before the
 * server process starts on it (which migrates it too): what the raw-socket tests call with.
 */
export async function seedAccount(dataDir: string, emailPrefix: string, options: { password?: string; canManageKeys?: boolean } = {}): Promise<{ email: string; apiKey: string; keyId: string }> {
  const db = openDatabase(await testDatabaseUrl(dataDir));
  try {
    await migrateToLatest(db);
    const accounts = new AccountStore(db);
    const email = `${emailPrefix}-${Date.now()}@example.com`;
    const account = await accounts.createAccount({ email, ...(options.password === undefined ? {} : { password: options.password }), verified: true, plan: 'business', quota: 1000, rateLimit: 1_000_000 });
    const created = await accounts.createKey({ accountId: account.id, ...(options.canManageKeys ? { canManageKeys: true } : {}) });
    return { email, apiKey: created.secret, keyId: created.key.id };
  } finally {
    await db.destroy();
  }
}

/** The server's http_requests_total for one method and route, by status (read from /metrics). */
export async function routeCounts(server: Server, method: string, route: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const byStatus = new Map<number, number>();
  const prefix = `http_requests_total{method="${method}",route="${route}",status="`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const [status, value] = line.slice(prefix.length).split('"} ');
    byStatus.set(Number(status), Number(value));
  }
  return byStatus;
}

/** What `now` counts beyond `before`, by status: only the statuses that moved. */
export function countsAdded(before: Map<number, number>, now: Map<number, number>): Record<number, number> {
  const diff: Record<number, number> = {};
  for (const [status, value] of now) if (value !== (before.get(status) ?? 0)) diff[status] = value - (before.get(status) ?? 0);
  return diff;
}
