import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout root, whatever the working directory of the test runner. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'bin', 'tool-service');
// A hang guard, not a speed check: on a loaded machine a start alone can take tens of seconds.
const HANG_GUARD_MS = 300_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const API_KEY = /^uts_live_[A-Za-z0-9_-]{32}$/;
const API_KEY_IN_TEXT = /uts_live_[A-Za-z0-9_-]{32}/g;
const EMI_PATH = '/api/v1/calculators/emi-calculator';
const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A clean environment for the child: the caller's PATH and HOME, nothing that would pick settings up by accident. */
function childEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
  if (process.env['HOME'] !== undefined) env['HOME'] = process.env['HOME'];
  return env;
}

/** Runs the real launcher; resolves with the exit code whatever it is. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // The timeout is a hang guard only, generous for a loaded machine (a command takes seconds).
    execFile(LAUNCHER, args, { cwd: ROOT, env, timeout: HANG_GUARD_MS }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

async function runJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const r = await run(args, env);
  assert.equal(r.code, 0, `${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'tool-service-cli-'));
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves once the output so far satisfies `seen`; rejects if the process exits first. */
  until: (seen: (output: string) => boolean, what: string) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Starts `serve` and waits for its "listening" log line (or its death): no clock of its own, the
 * test's timeout is the hang guard. Detached, in its own process group with what it starts, so
 * stop() and the file's exit take them all (a failed test must not leave a server running).
 */
async function startServer(dataDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(LAUNCHER, ['serve'], {
    cwd: ROOT,
    env: childEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killGroup);
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const check of waiters) check();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      for (const check of waiters) check();
      resolve();
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: Server = {
    child,
    baseUrl,
    output: () => out,
    until: (seen, what) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (seen(out)) resolve();
          else if (exited) reject(new Error(`serve exited (${exited.code ?? exited.signal}) before ${what}:\n${out}\n${err}`));
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
      killGroup();
      process.off('exit', killGroup);
    },
  };
  try {
    await server.until((output) => output.includes('Server listening at'), 'logging that it listens');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

function callEmi(baseUrl: string, apiKey: string, path = EMI_PATH): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(EMI_BODY),
  });
}

describe('CLI: accounts and keys', () => {
  let dataDir = '';
  let env: NodeJS.ProcessEnv = {};
  before(() => {
    dataDir = tempDir();
    env = childEnv(dataDir);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrate applies the migrations, then has nothing left to apply', async () => {
    const first = await runJson<{ applied: string[] }>(['migrate'], env);
    assert.ok(Array.isArray(first.applied) && first.applied.length > 0, JSON.stringify(first));
    const second = await runJson<{ applied: string[] }>(['migrate'], env);
    assert.deepEqual(second.applied, []);
  });

  it('accounts create, keys create, keys revoke and accounts set-plan', async () => {
    const account = await runJson<{ accountId: string; apiKey: string }>(
      ['accounts', 'create', '--email', 'a@example.com', '--plan', 'starter', '--verified', '--quota', '50', '--rate-limit', '5'],
      env,
    );
    assert.match(account.accountId, UUID);
    assert.ok(account.apiKey.startsWith('uts_live_'));
    assert.equal(account.apiKey.length, 41);
    assert.match(account.apiKey, API_KEY);

    const key = await runJson<{ keyId: string; apiKey: string }>(
      ['keys', 'create', '--account', account.accountId, '--name', 'ci', '--tools', 'calculators_emi_calculator'],
      env,
    );
    assert.deepEqual(Object.keys(key).sort(), ['apiKey', 'keyId']);
    assert.match(key.keyId, UUID);
    assert.match(key.apiKey, API_KEY);
    assert.notEqual(key.apiKey, account.apiKey);

    const revoked = await runJson<{ keyId: string; revokedAt: string | null }>(['keys', 'revoke', '--key', key.keyId], env);
    assert.equal(revoked.keyId, key.keyId);
    assert.ok(revoked.revokedAt, 'revokedAt is set');

    const plan = await runJson<{ accountId: string; plan: string }>(['accounts', 'set-plan', '--account', account.accountId, '--plan', 'pro'], env);
    assert.deepEqual(plan, { accountId: account.accountId, plan: 'pro' });
  });

  it('keys create for an unknown operationId fails clearly', async () => {
    const account = await runJson<{ accountId: string }>(['accounts', 'create', '--email', 'scopes@example.com', '--verified'], env);
    const r = await run(['keys', 'create', '--account', account.accountId, '--tools', 'no_such_tool'], env);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no_such_tool/);
  });
});

describe('CLI: bad input fails fast with a clear message', () => {
  let dataDir = '';
  let env: NodeJS.ProcessEnv = {};
  before(() => {
    dataDir = tempDir();
    env = childEnv(dataDir);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('an unknown command exits 2 and says so', async () => {
    const r = await run(['frobnicate'], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command/i);
    assert.match(r.stderr, /frobnicate/);
    assert.match(r.stderr, /Usage/);
  });

  it('accounts create without --email exits 2 naming --email', async () => {
    const r = await run(['accounts', 'create', '--verified'], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--email/);
  });

  it('an unknown option exits 2', async () => {
    const r = await run(['accounts', 'create', '--email', 'x@example.com', '--bogus'], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bogus/);
  });

  it('a non-numeric --quota exits 2', async () => {
    const r = await run(['accounts', 'create', '--email', 'q@example.com', '--quota', 'lots'], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--quota/);
  });

  it('PORT=abc exits 2 with a message naming PORT', async () => {
    for (const args of [['serve'], ['migrate']]) {
      const r = await run(args, childEnv(dataDir, { PORT: 'abc' }));
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /PORT/);
      assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    }
  });

  it('an unknown plan fails, listing the plans', async () => {
    const r = await run(['accounts', 'create', '--email', 'p@example.com', '--plan', 'gold'], env);
    assert.notEqual(r.code, 0);
    for (const plan of ['free', 'starter', 'pro', 'business']) assert.match(r.stderr, new RegExp(plan));
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');

    const account = await runJson<{ accountId: string }>(['accounts', 'create', '--email', 'p2@example.com'], env);
    const s = await run(['accounts', 'set-plan', '--account', account.accountId, '--plan', 'gold'], env);
    assert.notEqual(s.code, 0);
    for (const plan of ['free', 'starter', 'pro', 'business']) assert.match(s.stderr, new RegExp(plan));
  });
});

describe('CLI: serve', () => {
  let dataDir = '';
  const servers: Server[] = [];
  before(() => {
    dataDir = tempDir();
  });
  after(async () => {
    for (const server of servers) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start: prints a key once, writes bootstrap-key (600), and the key calls a tool; a CLI key works against the same database', { timeout: HANG_GUARD_MS }, async () => {
    const server = await startServer(dataDir);
    servers.push(server);

    const printed = server.output().match(API_KEY_IN_TEXT) ?? [];
    assert.ok(printed.length >= 1, `a key is printed on first start:\n${server.output()}`);
    assert.equal(new Set(printed).size, 1, 'one key only');
    const bootKey = printed[0]!;

    const file = join(dataDir, 'bootstrap-key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), bootKey);

    const res = await callEmi(server.baseUrl, bootKey);
    const body = (await res.json()) as { status: boolean; result: { emi: number } };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.status, true);
    assert.equal(body.result.emi, 8791.59);
    const requestId = res.headers.get('x-request-id');
    assert.ok(requestId);
    assert.ok(res.headers.get('x-credits-remaining'));

    // One JSON log line per request on stdout, with the request id the caller was given.
    const accessLine = () =>
      server
        .output()
        .split('\n')
        .slice(0, -1) // whole lines only: the last may still be arriving
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry['reqId'] === requestId && entry['msg'] === 'request');
    // Waited for by its content: the line may be written just after the answer was sent.
    await server.until(() => accessLine() !== undefined, `an access log line for ${requestId}`);
    assert.deepEqual(
      (({ level, method, url, statusCode }) => ({ level, method, url, statusCode }))(accessLine() ?? {}),
      { level: 30, method: 'POST', url: '/api/v1/calculators/emi-calculator', statusCode: 200 },
      `an access log line for ${requestId}:\n${server.output()}`,
    );

    // The CLI writes to the same SQLite file while the server runs (WAL): its keys work at once.
    const env = childEnv(dataDir);
    const account = await runJson<{ accountId: string; apiKey: string }>(
      ['accounts', 'create', '--email', 'live@example.com', '--plan', 'starter', '--verified', '--quota', '50', '--rate-limit', '5'],
      env,
    );
    const key = await runJson<{ keyId: string; apiKey: string }>(
      ['keys', 'create', '--account', account.accountId, '--name', 'ci', '--tools', 'calculators_emi_calculator'],
      env,
    );
    const viaCli = await callEmi(server.baseUrl, key.apiKey);
    const viaCliBody = (await viaCli.json()) as { result: { emi: number } };
    assert.equal(viaCli.status, 200, JSON.stringify(viaCliBody));
    assert.equal(viaCliBody.result.emi, 8791.59);
    assert.equal(viaCli.headers.get('x-credits-remaining'), '49');

    // The key's scope holds: another tool is refused.
    const other = await fetch(`${server.baseUrl}/api/v1/calculators/simple-interest-calculator`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey },
      body: JSON.stringify({ principal: 1000, rate: 5, timeYears: 2 }),
    });
    assert.equal(other.status, 403);
    assert.equal(((await other.json()) as { error: string }).error, 'tool_not_allowed');

    // Revoked by the CLI: the running server refuses the key at once.
    await runJson(['keys', 'revoke', '--key', key.keyId], env);
    const afterRevoke = await callEmi(server.baseUrl, key.apiKey);
    assert.equal(afterRevoke.status, 401);
    assert.equal(((await afterRevoke.json()) as { error: string }).error, 'api_key_revoked');

    // The account's own key still works, and a plan change by the CLI is seen by the server.
    await runJson(['accounts', 'set-plan', '--account', account.accountId, '--plan', 'pro'], env);
    const own = await callEmi(server.baseUrl, account.apiKey);
    assert.equal(own.status, 200);
    assert.match(own.headers.get('ratelimit-policy') ?? '', /"minute";q=5;/, 'the rate-limit override survives the plan change');

    await server.stop();
    assert.ok(server.child.exitCode === 0 || server.child.signalCode === 'SIGTERM', `stopped cleanly (${server.child.exitCode ?? server.child.signalCode})`);
  });

  it('second start on the same DATA_DIR prints no new key and keeps the old one working', { timeout: HANG_GUARD_MS }, async () => {
    const file = join(dataDir, 'bootstrap-key');
    const bootKey = readFileSync(file, 'utf8').trim();
    const server = await startServer(dataDir);
    servers.push(server);
    assert.equal(server.output().match(API_KEY_IN_TEXT), null, `no key printed on a second start:\n${server.output()}`);
    assert.equal(readFileSync(file, 'utf8').trim(), bootKey, 'bootstrap-key is unchanged');
    const res = await callEmi(server.baseUrl, bootKey);
    assert.equal(res.status, 200);
    await server.stop();
  });
});
