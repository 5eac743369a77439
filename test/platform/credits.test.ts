import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startServer, type Server } from '../support/server-process.ts';
import { catalogWithTestTools } from '../support/extra-tools.ts';
import { periodOf, periodResetAt } from '../../src/accounts/periods.ts';
import { CreditLeaseStore } from '../../src/accounts/credit-lease-store.ts';
import { isHolderDead, newLeaseHolder, retireLeaseHolder } from '../../src/accounts/lease-holder.ts';
import { hostname } from 'node:os';

const EMI = '/api/v1/calculators/emi-calculator';
const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };

/**
 * Two real service processes on one DATA_DIR and one database (the test app's: its SQLite file
 * there, or its PostgreSQL database with TEST_DATABASE=postgres); stopped with SIGTERM, as in
 * production. startServer waits for each one's "listening" line and sweeps their process groups
 * when this file exits, so a failed test leaves no server behind.
 */
async function twoServers(dataDir: string, databaseUrl: string): Promise<{ ports: number[]; stop(): Promise<void> }> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(dataDir, { DATABASE_URL: databaseUrl }));
  } catch (error) {
    await Promise.all(servers.map((server) => server.kill('SIGKILL')));
    throw error;
  }
  return {
    ports: servers.map((server) => Number(new URL(server.base).port)),
    async stop() {
      await Promise.all(servers.map((server) => server.kill('SIGTERM')));
    },
  };
}

describe('credits, quota and limits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ catalog: await catalogWithTestTools() });
  });
  after(() => t.close());

  it('charges the catalog cost and reports it in RateLimit headers and X-Credits-Remaining', async () => {
    const { apiKey } = await t.account({ quota: 20, rateLimit: 50 });
    const res = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-credits-remaining'], '19');
    assert.match(res.headers['ratelimit-policy'] as string, /^"minute";q=50;w=60, "credits";q=20;qu="credits";w=\d+$/);
    assert.match(res.headers['ratelimit'] as string, /^"minute";r=49;t=\d+, "credits";r=19;t=\d+$/);
  });

  it('lets exactly 7 of 200 concurrent calls through when 7 credits are left (real HTTP)', async () => {
    const { apiKey, accountId } = await t.account({ quota: 507, rateLimit: 100_000 });
    await t.services.accounts.charge(accountId, 500, 507);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`http://127.0.0.1:${port}${EMI}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(EMI_BODY) }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ error: string }>));
    assert.equal(statuses.filter((s) => s === 200).length, 7);
    assert.equal(statuses.filter((s) => s === 429).length, 193);
    assert.ok(bodies.filter((b, i) => statuses[i] === 429).every((b) => b.error === 'quota_exhausted'));
    assert.equal(await t.services.accounts.usedCredits(accountId), 507);
  });

  it('never overspends across processes sharing the database', async () => {
    // Two real service processes on one database race for the last 9 credits.
    const { apiKey, accountId } = await t.account({ quota: 9, rateLimit: 100_000 });
    const servers = await twoServers(t.dataDir, t.config.databaseUrl);
    try {
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(`http://127.0.0.1:${servers.ports[i % 2]}${EMI}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(EMI_BODY) }).then((r) => r.status),
        ),
      );
      assert.equal(responses.filter((s) => s === 200).length, 9);
      assert.equal(responses.filter((s) => s === 429).length, 51);
      assert.equal(await t.services.accounts.usedCredits(accountId), 9);
    } finally {
      await servers.stop();
    }
  });

  it('spends leased credits exactly in one process, and returns what is unspent', async () => {
    // Far from the quota, credits are leased from the database in blocks and spent in memory.
    const { apiKey, accountId } = await t.account({ quota: 100_000, rateLimit: 100_000 });
    for (let i = 1; i <= 120; i++) {
      const res = await t.call(EMI, EMI_BODY, apiKey);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-credits-remaining'], String(100_000 - i));
    }
    assert.ok((await t.services.accounts.usedCredits(accountId)) > 120, 'the database holds a lease beyond what was spent');
    assert.equal(await t.services.ledger.used(accountId), 120);
    await t.services.ledger.flush();
    assert.equal(await t.services.accounts.usedCredits(accountId), 120, 'the unspent lease went back');
  });

  it('with leases across two processes, never spends past the quota and returns every unspent lease on shutdown', async () => {
    const { apiKey, accountId } = await t.account({ quota: 1000, rateLimit: 100_000 });
    const servers = await twoServers(t.dataDir, t.config.databaseUrl);
    let ok = 0;
    try {
      // 1,100 calls in waves of 50, alternating between the processes.
      for (let wave = 0; wave < 22; wave++) {
        const statuses = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            fetch(`http://127.0.0.1:${servers.ports[i % 2]}${EMI}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(EMI_BODY) }).then((r) => r.status),
          ),
        );
        ok += statuses.filter((s) => s === 200).length;
      }
    } finally {
      await servers.stop();
    }
    assert.ok(ok <= 1000, `${ok} calls succeeded on a quota of 1000`);
    // Credits still leased by one process when the other ran dry are the only shortfall: a few.
    assert.ok(ok >= 980, `${ok} calls succeeded`);
    assert.equal(await t.services.accounts.usedCredits(accountId), ok, 'after shutdown the database counts exactly what was spent');
  });

  it('judges a lease holder dead by its pid on this host, by its heartbeat elsewhere', async () => {
    const now = Date.now();
    const live = newLeaseHolder();
    const exited = spawn(process.execPath, ['-e', '0']);
    const [code] = (await once(exited, 'exit')) as [number];
    assert.equal(code, 0);
    const fresh = now - 1000;
    assert.equal(isHolderDead({ holder: live.token, pid: live.pid, host: live.host, heartbeatAt: 0 }, now, 30_000), false, 'a holder alive in this process');
    assert.equal(isHolderDead({ holder: 'gone', pid: exited.pid!, host: hostname(), heartbeatAt: fresh }, now, 30_000), true, 'its pid no longer runs');
    assert.equal(isHolderDead({ holder: 'before-restart', pid: process.pid, host: hostname(), heartbeatAt: fresh }, now, 30_000), true, 'this pid under another token');
    assert.equal(isHolderDead({ holder: 'parent', pid: process.ppid, host: hostname(), heartbeatAt: fresh }, now, 30_000), false, 'a running pid, a fresh heartbeat');
    assert.equal(isHolderDead({ holder: 'elsewhere', pid: 1, host: 'another-host', heartbeatAt: fresh }, now, 30_000), false);
    assert.equal(isHolderDead({ holder: 'elsewhere', pid: 1, host: 'another-host', heartbeatAt: now - 31_000 }, now, 30_000), true, 'a stale heartbeat');
    retireLeaseHolder(live);
    assert.equal(isHolderDead({ holder: live.token, pid: live.pid, host: live.host, heartbeatAt: fresh }, now, 30_000), true, 'a retired holder of this process');
  });

  it('answers an exhausted quota with 429 quota_exhausted, the reset time and x-should-retry: false', async () => {
    const { apiKey } = await t.account({ quota: 1, rateLimit: 50 });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    const res = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(res.statusCode, 429);
    const body = res.json();
    assert.equal(body.error, 'quota_exhausted');
    assert.equal(body.resetAt, periodResetAt(new Date()).toISOString());
    assert.equal(res.headers['x-should-retry'], 'false');
    assert.equal(res.headers['retry-after'], undefined);
    assert.equal(res.headers['x-credits-remaining'], '0');
  });

  it('answers the per-minute limit with 429 rate_limited and Retry-After, distinct from the quota', async () => {
    const { apiKey } = await t.account({ quota: 100, rateLimit: 2 });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    const res = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(res.statusCode, 429);
    assert.equal(res.json().error, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.equal(res.headers['x-should-retry'], undefined);
    assert.equal(res.headers['x-credits-remaining'], '98');
  });

  it('does not charge a 400 validation failure', async () => {
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const res = await t.call(EMI, { principal: -1 }, apiKey);
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['x-credits-remaining'], '10');
    const unknownUnit = await t.call('/api/v1/unit-conversions/mass-converter', { value: 1, from: 'kg', to: 'furlong' }, apiKey);
    assert.equal(unknownUnit.statusCode, 400);
    assert.equal(await t.services.accounts.usedCredits(accountId), 0);
  });

  it('refunds a call that fails through the service (500, 503, 504) and hides the internal cause', async () => {
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const crash = await t.call('/api/v1/testing/faulty', { mode: 'crash' }, apiKey);
    assert.equal(crash.statusCode, 500);
    assert.equal(crash.json().error, 'internal_error');
    assert.doesNotMatch(crash.body, /boom|\/srv\/internal/);
    assert.equal(crash.headers['x-credits-remaining'], '10');
    const unavailable = await t.call('/api/v1/testing/faulty', { mode: 'unavailable' }, apiKey);
    assert.equal(unavailable.statusCode, 503);
    const slow = await t.call('/api/v1/testing/faulty', { mode: 'slow' }, apiKey);
    assert.equal(slow.statusCode, 504);
    assert.equal(slow.json().error, 'tool_timeout');
    assert.equal(await t.services.accounts.usedCredits(accountId), 0);
  });

  it('keeps the charge when the user input could not be processed (422)', async () => {
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const res = await t.call('/api/v1/testing/faulty', { mode: 'unreadable' }, apiKey);
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error, 'unprocessable_input');
    assert.equal(res.headers['x-credits-remaining'], '7');
    assert.equal(await t.services.accounts.usedCredits(accountId), 3);
  });

  it('replays an Idempotency-Key retry without charging again, and answers 409 for another body', async () => {
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const first = await t.call(EMI, EMI_BODY, apiKey, { 'idempotency-key': 'order-42' });
    assert.equal(first.statusCode, 200);
    const retry = await t.call(EMI, { tenure: 12, rate: 10, principal: 100000 }, apiKey, { 'idempotency-key': 'order-42' });
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await t.services.accounts.usedCredits(accountId), 1);
    const other = await t.call(EMI, { ...EMI_BODY, tenure: 24 }, apiKey, { 'idempotency-key': 'order-42' });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error, 'idempotency_key_reused');
    assert.equal(await t.services.accounts.usedCredits(accountId), 1);
    // A failed call releases its key, so the retry really runs.
    const crash = await t.call('/api/v1/testing/faulty', { mode: 'crash' }, apiKey, { 'idempotency-key': 'crash-1' });
    assert.equal(crash.statusCode, 500);
    const crashAgain = await t.call('/api/v1/testing/faulty', { mode: 'crash' }, apiKey, { 'idempotency-key': 'crash-1' });
    assert.equal(crashAgain.headers['idempotent-replayed'], undefined);
  });

  it('does not store a 429 refusal under an Idempotency-Key: once credits are back, the retry runs', async () => {
    const { apiKey, accountId } = await t.account({ quota: 1 });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    const refused = await t.call(EMI, EMI_BODY, apiKey, { 'idempotency-key': 'after-quota' });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error, 'quota_exhausted');
    await t.services.accounts.refund(accountId, 1);
    const retry = await t.call(EMI, EMI_BODY, apiKey, { 'idempotency-key': 'after-quota' });
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(retry.json().result.emi, 8791.59);
    const replay = await t.call(EMI, EMI_BODY, apiKey, { 'idempotency-key': 'after-quota' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
  });

  it('shares one quota between all keys of an account and reports usage per tool and per key', async () => {
    const { apiKey, accountId, keyId } = await t.account({ quota: 100 });
    const second = await t.services.accounts.createKey({ accountId, name: 'second' });
    await t.call(EMI, EMI_BODY, apiKey);
    await t.call(EMI, EMI_BODY, second.secret);
    const si = await t.call('/api/v1/calculators/simple-interest-calculator', { principal: 100, rate: 10, timeYears: 1 }, second.secret);
    assert.equal(si.headers['x-credits-remaining'], '97');
    assert.equal((await t.call(EMI, { principal: 'lots' }, apiKey)).statusCode, 400);
    const usage = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).json().result;
    assert.equal(usage.used, 3);
    assert.equal(usage.remaining, 97);
    assert.equal(usage.quota, 100);
    assert.equal(usage.period, periodOf(new Date()));
    assert.equal(usage.resetAt, periodResetAt(new Date()).toISOString());
    assert.deepEqual(usage.byTool, [
      { operationId: 'calculators_emi_calculator', calls: 3, failures: 1, credits: 2 },
      { operationId: 'calculators_simple_interest_calculator', calls: 1, failures: 0, credits: 1 },
    ]);
    const byKey = Object.fromEntries(usage.byKey.map((k: { keyId: string; calls: number }) => [k.keyId, k.calls]));
    assert.deepEqual(byKey, { [keyId]: 2, [second.key.id]: 2 });
    const noKey = await t.app.inject({ method: 'GET', url: '/api/v1/usage' });
    assert.equal(noKey.statusCode, 401);
  });

  it('resets the quota at the start of the UTC month', async () => {
    const { accountId } = await t.account({ quota: 5 });
    const november = new Date('2026-11-30T23:59:59.000Z');
    const december = new Date('2026-12-01T00:00:00.000Z');
    assert.equal((await t.services.accounts.charge(accountId, 5, 5, november)).charged, true);
    assert.equal((await t.services.accounts.charge(accountId, 1, 5, november)).charged, false);
    const fresh = await t.services.accounts.charge(accountId, 1, 5, december);
    assert.deepEqual(fresh, { charged: true, used: 1, remaining: 4 });
    assert.equal(periodResetAt(november).toISOString(), '2026-12-01T00:00:00.000Z');
  });

  it('keeps the ai-models family off the free plan (403) and on paid plans', async () => {
    const free = await t.account({ plan: 'free' });
    const res = await t.call('/api/v1/ai-models/echo-insight', { prompt: 'hi' }, free.apiKey);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'plan_forbidden');
    await t.services.accounts.setPlan(free.accountId, 'starter');
    const paid = await t.call('/api/v1/ai-models/echo-insight', { prompt: 'hi' }, free.apiKey);
    assert.equal(paid.statusCode, 200);
    assert.deepEqual(paid.json().result, { echo: 'hi' });
  });

  it('lists the plans with their credits, limits and engine jobs at once', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/plans' });
    assert.equal(res.statusCode, 200);
    const plans = res.json().result.plans as { id: string; monthlyCredits: number; requestsPerMinute: number; engineJobs: number }[];
    assert.deepEqual(
      plans.map((p) => [p.id, p.monthlyCredits, p.requestsPerMinute, p.engineJobs]),
      [['free', 500, 30, 1], ['starter', 10_000, 120, 2], ['pro', 50_000, 600, 4], ['business', 250_000, 3000, 8]],
    );
  });
});

// Its own app whose periodic flush never fires within the test: the reclaim below must find the
// lease as the three calls left it, before any flush, whatever the machine's speed.
describe('a lease reclaimed while its holder lives', () => {
  let q: TestApp;
  before(async () => {
    q = await startTestApp({ env: { USAGE_FLUSH_MS: '600000' } });
  });
  after(() => q.close());

  it('is counted again at its next flush, and usage still agrees', async () => {
    const { apiKey, accountId } = await q.account({ quota: 1000, rateLimit: 100_000 });
    for (let i = 0; i < 3; i++) assert.equal((await q.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    const leased = await q.services.accounts.usedCredits(accountId);
    assert.ok(leased > 3, `a lease of ${leased}`);
    // Another process took this one for dead (a stall past the stale limit) before its first flush.
    const row = await q.services.db.selectFrom('credit_leases').select(['id', 'heartbeat_at']).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    const other = newLeaseHolder();
    assert.equal(await new CreditLeaseStore(q.services.db, other).reclaim(row.id, row.heartbeat_at), leased);
    retireLeaseHolder(other);
    assert.equal(await q.services.accounts.usedCredits(accountId), 0);
    // The holder's flush finds its row gone and puts the lease back: it still holds those credits.
    await q.services.usage.flush();
    assert.equal(await q.services.accounts.usedCredits(accountId), leased);
    assert.equal((await q.call(EMI, EMI_BODY, apiKey)).statusCode, 200);
    assert.equal(await q.services.ledger.used(accountId), 4);
    await q.services.ledger.flush();
    assert.equal(await q.services.accounts.usedCredits(accountId), 4);
    const usage = (await q.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).json().result;
    assert.equal(usage.used, 4);
    assert.deepEqual(usage.byTool, [{ operationId: 'calculators_emi_calculator', calls: 4, failures: 0, credits: 4 }]);
  });

});
