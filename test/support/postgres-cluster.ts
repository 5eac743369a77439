// A throwaway PostgreSQL cluster for the tests: initdb in a temp folder, `postgres` on a free
// loopback port with its socket in that folder, run as the `postgres` system user when the tests
// run as root (PostgreSQL refuses to run as root). Nothing outlives the test process: the server
// runs in its own process group under a small shell that stops it when the test process's end of
// a pipe closes, which happens however the test process ends (even SIGKILL); a normal exit also
// stops the group and removes the folder.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fileOutput, onFreePort, waitUntilReady } from './child-server.ts';

/** postgres's log, in the cluster's folder (its readiness line is read from there). */
const LOG_FILE = 'postgres.log';

export interface PostgresCluster {
  /** The superuser's URL, on the `postgres` database. */
  readonly adminUrl: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /** Drops a database createDatabase made (closing its connections). */
  dropDatabase(url: string): Promise<void>;
  stop(): Promise<void>;
}

/** The folder with initdb and postgres: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'postgres'))) return join(root, version, 'bin');
  throw new Error('PostgreSQL binaries not found: install postgresql or set PG_BIN');
}

/** Who runs the server: the current user, or `postgres` when that is root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Whether any process of the group still runs. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends the group synchronously: SIGQUIT (PostgreSQL's immediate shutdown, which frees its shared memory), SIGKILL if it lingers. */
function endGroupSync(pgid: number): void {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGQUIT');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; groupAlive(pgid) && waited < 5000; waited += 10) Atomics.wait(pause, 0, 0, 10);
  if (groupAlive(pgid)) signal('SIGKILL');
}

/**
 * Resolves once postgres logs that it accepts connections (its log file, heard through the
 * folder's change events: no polling), then checks that one connection with `url` succeeds. A
 * FATAL or PANIC before that (a port already taken: "could not bind"), the watcher shell's exit or
 * 30 s without the line reject with the log's end.
 */
async function waitUntilAccepting(url: string, child: ChildProcess, dir: string): Promise<void> {
  await waitUntilReady(child, fileOutput(dir, LOG_FILE), { name: 'postgres', ready: /database system is ready to accept connections/, failed: /\b(?:FATAL|PANIC):/, withinMs: 30_000 });
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`postgres said it was ready but refused the admin connection: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'tool-service-pg-'));
  // Until a server runs (whose shell then owns the folder), an exit of any kind but SIGKILL removes it.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  if (user) chownSync(dir, user.uid, user.gid);
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(pwfile, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  // Trust on the socket (inside this private folder), a password over TCP, as a deployment would have.
  execFileSync(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--locale=C', '-N'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(user ?? {}),
  });
  rmSync(pwfile);
  const logPath = join(dir, LOG_FILE);

  const serveOn = async (port: number): Promise<PostgresCluster> => {
    // A failed try's log (same folder) must not be read as this one's.
    rmSync(logPath, { force: true });
    // The shell keeps the pipe from this process; when it closes (this process ended, however) it
    // stops the server and removes the folder.
    // fsync off: a throwaway cluster needs no durability, and the tests run faster without it.
    const script = `"$1/postgres" -D "$2/data" -p "$3" -k "$2" -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 >"$2/${LOG_FILE}" 2>&1 &
pid=$!
read _ignored
kill -QUIT "$pid" 2>/dev/null
wait "$pid"
rm -rf "$2"`;
    const child = spawn('sh', ['-c', script, 'sh', bin, dir, String(port)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], ...(user ?? {}) });
    const pgid = child.pid!;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Neither the shell nor its pipe keeps the test process alive; the exit handler below ends them.
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    const onExit = () => {
      endGroupSync(pgid);
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', onExit);
    process.removeListener('exit', removeDir);
    try {
      await waitUntilAccepting(adminUrl, child, dir);
    } catch (error) {
      process.removeListener('exit', onExit);
      endGroupSync(pgid);
      // The folder (with the initialized cluster) is kept for another try: back to removing it on exit.
      process.once('exit', removeDir);
      throw error;
    }
    let stopped = false;
    return {
      adminUrl,
      ...databaseOps(adminUrl),
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener('exit', onExit);
        // Waited for: the process stays up until the server is down.
        child.ref();
        child.stdin?.end();
        const timer = setTimeout(() => endGroupSync(pgid), 10_000);
        await exited;
        clearTimeout(timer);
        endGroupSync(pgid);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };

  try {
    // Only a port taken between the probe and postgres's bind is worth another port.
    return (await onFreePort(serveOn, (error) => /could not bind|Address already in use/.test(error.message))).value;
  } catch (error) {
    process.removeListener('exit', removeDir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Fresh databases on a cluster, named test_<random> (dropDatabase refuses any other name). */
function databaseOps(adminUrl: string): Pick<PostgresCluster, 'createDatabase' | 'dropDatabase'> {
  return {
    async createDatabase() {
      const name = `test_${randomBytes(6).toString('hex')}`;
      await withAdmin(adminUrl, (client) => client.query(`create database ${name}`));
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropDatabase(url) {
      const name = new URL(url).pathname.slice(1);
      if (!/^test_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
      await withAdmin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let shared: Promise<PostgresCluster> | undefined;

/**
 * The cluster of this test process: TEST_POSTGRES_URL's (a superuser URL of a running cluster)
 * when set, otherwise one started on first use and stopped when the process exits. Each test
 * file runs in its own process, so files never share a database or a cluster's lifetime.
 */
export function testPostgresCluster(): Promise<PostgresCluster> {
  shared ??= process.env.TEST_POSTGRES_URL ? Promise.resolve(externalCluster(process.env.TEST_POSTGRES_URL)) : startPostgresCluster();
  return shared;
}

function externalCluster(adminUrl: string): PostgresCluster {
  return {
    adminUrl,
    ...databaseOps(adminUrl),
    async stop() {},
  };
}

/** Whether the tests run on PostgreSQL (TEST_DATABASE=postgres) instead of SQLite. */
export function testsUsePostgres(): boolean {
  return process.env.TEST_DATABASE === 'postgres';
}
