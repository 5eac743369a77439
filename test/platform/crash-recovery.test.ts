import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../../src/accounts/account-store.ts';
import { periodOf } from '../../src/accounts/periods.ts';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';
import { PROCESS_TAG, taggedName } from '../../src/files/process-folders.ts';
import { callEmi, startServer, usageOf, type Answer, type Server, testDatabaseUrl } from '../support/server-process.ts';

const RECLAIMED = 'returned the unspent credit leases of a stopped process';

/**
 * The flush interval of the crashed servers: 10 minutes, longer than this file's time limit. So
 * within a test the only flushes are the ones the test asks for (GET /usage flushes first), and
 * the test knows exactly which calls the last flush wrote: those answered before its last GET
 * /usage. Every call after that falls in the crashed process's last flush interval.
 */
const NO_TIMED_FLUSH_MS = '600000';

/**
 * `workers` loops calling the EMI tool until the process dies. Each answered 200 is counted; when
 * `killAfter` of them have come back, the server gets SIGKILL at once, with the other loops'
 * calls in flight. Every `keyEvery`-th call carries an Idempotency-Key.
 */
async function loadThenKill(server: Server, apiKey: string, o: { workers: number; killAfter: number; keyEvery: number; keyPrefix: string }) {
  let ok = 0;
  let sent = 0;
  const keyed: { key: string; body: unknown }[] = [];
  let killed: Promise<void> | undefined;
  const worker = async () => {
    while (!killed) {
      const n = sent++;
      const key = n % o.keyEvery === 0 ? `${o.keyPrefix}-${n}` : undefined;
      let answer: Answer;
      try {
        answer = await callEmi(server.base, apiKey, key);
      } catch {
        return; // the connection died with the process
      }
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      ok += 1;
      if (key) keyed.push({ key, body: answer.body });
      if (ok === o.killAfter) killed = server.kill('SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: o.workers }, worker));
  await killed;
  return { ok, sent, keyed };
}

describe('a crash charges only what was spent', () => {
  let dataDir: string;
  let db: Db;
  let accounts: AccountStore;
  const running: Server[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tool-service-crash-'));
    db = openDatabase(await testDatabaseUrl(dataDir));
    await migrateToLatest(db);
    accounts = new AccountStore(db);
  });
  after(async () => {
    for (const s of running) await s.kill('SIGKILL');
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function account(quota: number): Promise<{ accountId: string; apiKey: string }> {
    const created = await accounts.createAccount({ email: `crash-${quota}-${Date.now()}@example.com`, verified: true, quota, rateLimit: 1_000_000 });
    const { secret } = await accounts.createKey({ accountId: created.id });
    return { accountId: created.id, apiKey: secret };
  }

  async function start(env: Record<string, string>): Promise<Server> {
    const server = await startServer(dataDir, env);
    running.push(server);
    return server;
  }

  /** What the database holds for the account: the ledger, its leases and its usage counters. */
  async function stored(accountId: string) {
    const period = periodOf(new Date());
    const ledger = await db.selectFrom('credit_periods').select('used').where('account_id', '=', accountId).where('period', '=', period).executeTakeFirst();
    const leases = await db.selectFrom('credit_leases').select(['holder_pid', 'granted', 'spent']).where('account_id', '=', accountId).execute();
    const usage = await db
      .selectFrom('usage_counters')
      .select((eb) => [eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('credits').as('credits')])
      .where('account_id', '=', accountId)
      .where('period', '=', period)
      .executeTakeFirst();
    return { used: ledger?.used ?? 0, leases, calls: Number(usage?.calls ?? 0), credits: Number(usage?.credits ?? 0) };
  }

  it('after SIGKILL under load and a restart, charges the calls answered 200 up to the last flush, and replays still replay', async () => {
    const { accountId, apiKey } = await account(50_000);
    const first = await start({ USAGE_FLUSH_MS: NO_TIMED_FLUSH_MS });

    // 100 calls, one in five with an Idempotency-Key, then GET /usage: the flush the test knows of.
    const early: { key: string; body: unknown }[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const key = i % 5 === 0 ? `early-${wave}-${i}` : undefined;
          const answer = await callEmi(first.base, apiKey, key);
          if (key) early.push({ key, body: answer.body });
          return answer.status;
        }),
      );
      assert.deepEqual(answers, Array(10).fill(200));
    }
    assert.equal((await usageOf(first.base, apiKey)).used, 100);

    // Under load: SIGKILL once 150 more calls have been answered 200, with others in flight.
    const late = await loadThenKill(first, apiKey, { workers: 8, killAfter: 150, keyEvery: 7, keyPrefix: 'late' });
    assert.ok(late.ok >= 150, `${late.ok} calls answered 200 after the flush`);
    const afterCrash = await stored(accountId);
    assert.ok(afterCrash.used > 100 + late.ok, `the dead process's lease still counts (${afterCrash.used})`);
    assert.deepEqual(
      afterCrash.leases.map((l) => [l.holder_pid, l.spent]),
      [[first.child.pid, 100]],
      'the lease row says what was spent as of the last flush',
    );

    // The restart gives the dead process's lease back before it takes a call.
    const second = await start({ USAGE_FLUSH_MS: NO_TIMED_FLUSH_MS });
    await second.logged(RECLAIMED);
    const usage = await usageOf(second.base, apiKey);
    // The calls of the last flush interval (all 150+ after GET /usage) go uncharged; nothing more, nothing twice.
    assert.equal(usage.used, 100);
    assert.ok(usage.used <= 100 + late.ok);
    assert.deepEqual(usage.byTool, [{ operationId: 'calculators_emi_calculator', calls: 100, failures: 0, credits: 100 }]);
    const restarted = await stored(accountId);
    assert.deepEqual(restarted.leases.filter((l) => l.holder_pid === first.child.pid), []);
    assert.equal(restarted.credits, restarted.used, 'usage counters and the ledger agree');

    // Every key answered 200 before the crash replays, charged once at most.
    for (const { key, body } of [...early, ...late.keyed]) {
      const again = await callEmi(second.base, apiKey, key);
      assert.equal(again.status, 200);
      assert.equal(again.replayed, true, key);
      assert.deepEqual(again.body, body);
    }
    assert.equal((await usageOf(second.base, apiKey)).used, 100);
    await second.kill('SIGTERM');
    const stopped = await stored(accountId);
    assert.deepEqual(stopped.leases, []);
    assert.equal(stopped.used, 100);
    assert.equal(stopped.credits, 100);
  });

  it('a live process on the same database returns a killed one\'s lease; the ledger and usage agree at every flush interval', async () => {
    const { accountId, apiKey } = await account(50_000);
    // The victim flushes every 20 ms, so the kill lands at an unknown point between flushes.
    const victim = await start({ USAGE_FLUSH_MS: '20' });
    const survivor = await start({ USAGE_FLUSH_MS: '50' });
    for (let i = 0; i < 30; i++) assert.equal((await callEmi(victim.base, apiKey)).status, 200);
    assert.equal((await usageOf(victim.base, apiKey)).used, 30);

    const late = await loadThenKill(victim, apiKey, { workers: 6, killAfter: 200, keyEvery: 9, keyPrefix: 'victim' });
    await survivor.logged(RECLAIMED);
    const after = await stored(accountId);
    assert.deepEqual(after.leases, []);
    // Charged: the calls flushed before the kill. Never more than the calls answered 200, never less than the last known flush.
    assert.ok(after.used >= 30 && after.used <= 30 + late.ok, `used ${after.used} of ${30 + late.ok} answered`);
    assert.equal(after.credits, after.used, 'usage counters and the ledger agree');
    assert.equal(after.calls, after.used);
    assert.equal((await usageOf(survivor.base, apiKey)).used, after.used);
    for (const { key, body } of late.keyed) {
      const again = await callEmi(survivor.base, apiKey, key);
      assert.equal(again.replayed, true, key);
      assert.deepEqual(again.body, body);
    }
    assert.equal((await usageOf(survivor.base, apiKey)).used, after.used);
  });
});

describe('a crash leaves no folders behind after the next start', () => {
  let dataDir: string;
  let tmp: string;
  const running: Server[] = [];
  const sockets: Socket[] = [];

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tool-service-leftovers-'));
    // The servers' own temp folder (TMPDIR), so the test sees exactly their engine folders.
    tmp = join(dataDir, 'tmp');
    mkdirSync(tmp);
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const s of running) await s.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<Server> {
    const server = await startServer(dataDir, { TMPDIR: tmp, BOOTSTRAP_ACCOUNT: 'false' });
    running.push(server);
    return server;
  }

  /** Resolves once `dir` holds an entry starting with `prefix` (fs.watch, checked once first). */
  async function appears(dir: string, prefix: string): Promise<string> {
    const watcher = watch(dir);
    try {
      for (;;) {
        const found = readdirSync(dir).find((name) => name.startsWith(prefix));
        if (found !== undefined) return found;
        await once(watcher, 'change');
      }
    } finally {
      watcher.close();
    }
  }

  it('SIGKILL mid-upload, with an engine started: the next start removes the dead process\'s work and engine folders, and only those', { timeout: 120_000 }, async () => {
    const db = openDatabase(await testDatabaseUrl(dataDir));
    await migrateToLatest(db);
    const accounts = new AccountStore(db);
    const account = await accounts.createAccount({ email: `leftovers-${Date.now()}@example.com`, verified: true, plan: 'business', quota: 1000, rateLimit: 1_000_000 });
    const { secret: apiKey } = await accounts.createKey({ accountId: account.id });
    await db.destroy();

    const first = await start();
    const pid = first.child.pid!;
    // The image engine makes its folder under TMPDIR when it first runs a job.
    const form = new FormData();
    form.append('image', new Blob([await solidPng()], { type: 'image/png' }), 'a.png');
    const converted = await fetch(`${first.base}/api/v1/convertors/to-jpg`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
    assert.equal(converted.status, 200, await converted.text());
    const engineDir = readdirSync(tmp).find((name) => name.startsWith(`engines-image-p${pid}.`));
    assert.ok(engineDir, `the image engine's folder is tagged with its process: ${readdirSync(tmp).join(', ')}`);

    // An upload that stops half-way: its work folder exists while the body is awaited.
    const work = join(dataDir, 'work');
    mkdirSync(work, { recursive: true });
    const boundary = 'leftovers-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(first.base).port) });
    sockets.push(socket);
    await once(socket, 'connect');
    socket.write(
      `POST /api/v1/documents/txt-to-md HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 100_000}\r\n\r\n${head}${'x'.repeat(1000)}`,
    );
    const workDir = await appears(work, `p${pid}.`);

    // Folders that are not the dead process's: a live process's (this test's own tag), one of a
    // dead pid on another host (judged by age only), and an untagged recent one.
    const live = taggedName('live-upload');
    mkdirSync(join(work, live));
    mkdirSync(join(tmp, `engines-image-${live}`));
    const host = PROCESS_TAG.split('.')[2] ?? '';
    // Shaped exactly like a tag (6-hex token, 4-hex host), so only the host tells it apart.
    const otherHost = `p${pid}.0123ab.${host === 'aaaa' ? 'bbbb' : 'aaaa'}-elsewhere`;
    assert.match(otherHost, new RegExp(`^p${pid}\\.[0-9a-f]{6}\\.[0-9a-f]{${host.length}}-`));
    mkdirSync(join(work, otherHost));
    mkdirSync(join(work, 'untagged-recent'));

    await first.kill('SIGKILL');
    assert.ok(existsSync(join(work, workDir)) && existsSync(join(tmp, engineDir)), 'the crash left both folders');

    const second = await start();
    const leftWork = readdirSync(work);
    const leftTmp = readdirSync(tmp);
    assert.ok(!leftWork.includes(workDir), `the dead upload's work folder is gone: ${leftWork.join(', ')}`);
    assert.ok(!leftTmp.includes(engineDir), `the dead engine folder is gone: ${leftTmp.join(', ')}`);
    for (const kept of [live, otherHost, 'untagged-recent']) assert.ok(leftWork.includes(kept), `${kept} stays: ${leftWork.join(', ')}`);
    assert.ok(leftTmp.includes(`engines-image-${live}`), 'a live process\'s engine folder stays');
    // The new process still works, its own folders tagged with its own pid.
    const again = await fetch(`${second.base}/healthz`);
    assert.equal(again.status, 200);
  });
});

/** A 2x2 PNG, built by the image engine's own library. */
async function solidPng(): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width: 2, height: 2, channels: 3, background: { r: 10, g: 20, b: 30 } } }).png().toBuffer();
}
