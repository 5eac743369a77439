// REDIS_URL through the real app: two apps on one database and one Redis are two nodes, and a
// 10-a-minute account gets exactly 10 answers across both, with the RateLimit headers counting
// the shared window; a Redis outage keeps the app serving (counted per node) and /readyz says
// `degraded` while still answering 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

const EMI = '/api/v1/calculators/emi-calculator';
const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };

/** The minute Redis's clock is in: the windows are Redis's minutes. */
async function redisMinute(t: TestApp): Promise<number> {
  const [seconds] = (await t.services.redis!.client.time()) as unknown as [string, string];
  return Math.floor(Number(seconds) / 60);
}

async function readyz(t: TestApp): Promise<{ code: number; body: { status: string; checks: Record<string, { state: string; detail?: string }> } }> {
  const res = await t.app.inject({ method: 'GET', url: '/readyz' });
  return { code: res.statusCode, body: res.json() };
}

/**
 * Resolves once `t`'s connection uses Redis again after an outage, by ioredis's own 'ready' event
 * rather than a clock. The connection's 'ready' listener (registered in its constructor, so before
 * ours) sends the PING that ends its outage (RedisConnection #check); our PING goes after it on the
 * same socket and Redis answers in order, so when ours is answered the connection has its answer.
 * A hang here (Redis never back) is bounded by the test runner's per-test timeout.
 */
async function redisBack(t: TestApp): Promise<void> {
  const { client } = t.services.redis!;
  if (client.status === 'ready') {
    // ioredis sets the status at once but emits 'ready' on the next tick: one turn of that queue lets the
    // connection's listener send its PING before ours, had it not yet.
    await new Promise<void>((resolve) => process.nextTick(resolve));
  } else {
    // Not events.once(): it rejects on 'error', which a reconnect refused before the restart may still emit.
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  }
  await client.ping();
}

describe('two apps sharing one Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  let one: TestApp;
  let two: TestApp;

  before(async () => {
    redis = await startRedisServer();
    one = await startTestApp({ env: { REDIS_URL: redis.url } });
    // The second node: the same database (DATA_DIR) and the same Redis.
    two = await startTestApp({ env: { REDIS_URL: redis.url, DATA_DIR: one.dataDir } });
  });
  after(async () => {
    // The second node's app only: the shared folder goes with the first node's close().
    await two?.app.close();
    await one?.close();
    await redis?.stop();
  });

  it('a 10-a-minute account gets exactly 10 answers across both apps, and the headers count one window', async () => {
    for (;;) {
      const { apiKey } = await one.account({ rateLimit: 10, quota: 1000 });
      const minute = await redisMinute(one);
      const answers: LightMyRequestResponse[] = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : two).call(EMI, EMI_BODY, apiKey)));
      // A flood that straddled a minute saw two windows: try again in one (a fresh account).
      if ((await redisMinute(one)) !== minute) continue;
      const ok = answers.filter((r) => r.statusCode === 200);
      const limited = answers.filter((r) => r.statusCode === 429);
      assert.equal(ok.length, 10, answers.map((r) => r.statusCode).join(','));
      assert.equal(limited.length, 20);
      // RateLimit: "minute";r=<remaining>;t=<seconds>: the ten answers counted down one shared window.
      const remaining = ok.map((r) => Number(/"minute";r=(\d+);t=(\d+)/.exec(String(r.headers['ratelimit']))?.[1])).sort((x, y) => y - x);
      assert.deepEqual(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      assert.match(String(ok[0]!.headers['ratelimit-policy']), /^"minute";q=10;w=60, /);
      for (const res of limited) {
        assert.equal(res.json().error, 'rate_limited');
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      }
      return;
    }
  });

  it('Redis out: both apps serve, counted per node, /readyz 200 with redis degraded; Redis back: ready again', async () => {
    assert.deepEqual((await readyz(one)).body.checks['redis'], { state: 'ready' });
    await redis.kill();
    // Per node: three each and then 429, neither refused nor unlimited (a node's own windows follow its clock).
    for (;;) {
      const { apiKey } = await one.account({ rateLimit: 3, quota: 1000 });
      const minute = Math.floor(Date.now() / 60_000);
      const seen: number[] = [];
      for (const t of [one, two]) for (let i = 0; i < 4; i++) seen.push((await t.call(EMI, EMI_BODY, apiKey)).statusCode);
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      assert.deepEqual(seen, [200, 200, 200, 429, 200, 200, 200, 429]);
      break;
    }
    for (const t of [one, two]) {
      const { code, body } = await readyz(t);
      assert.equal(code, 200, 'degraded is still ready: the node serves');
      assert.equal(body.status, 'ready');
      assert.equal(body.checks['redis']?.state, 'degraded');
      assert.match(body.checks['redis']?.detail ?? '', /^redis:\/\/127\.0\.0\.1:\d+ does not answer .*per node/);
    }
    await redis.restart();
    for (const t of [one, two]) {
      await redisBack(t);
      assert.deepEqual(t.services.redis!.status(), { state: 'ready' }, 'the app found Redis again');
      assert.deepEqual((await readyz(t)).body.checks['redis'], { state: 'ready' });
    }
  });

  it('a node started while Redis is out starts (degraded, serving) and shares the limits once Redis is up', async () => {
    await redis.kill();
    const late = await startTestApp({ env: { REDIS_URL: redis.url, DATA_DIR: one.dataDir } });
    try {
      const { code, body } = await readyz(late);
      assert.equal(code, 200);
      assert.equal(body.checks['redis']?.state, 'degraded');
      const { apiKey } = await late.account({ rateLimit: 5, quota: 1000 });
      assert.equal((await late.call(EMI, EMI_BODY, apiKey)).statusCode, 200, 'served while Redis is out');
      await redis.restart();
      for (const t of [late, one]) {
        await redisBack(t);
        assert.deepEqual(t.services.redis!.status(), { state: 'ready' }, 'the nodes found Redis');
      }
      // Shared with the node that was up all along: five in all across both, not five each.
      for (;;) {
        const { apiKey: shared } = await late.account({ rateLimit: 5, quota: 1000 });
        const minute = await redisMinute(late);
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? late : one).call(EMI, EMI_BODY, shared)));
        if ((await redisMinute(late)) !== minute) continue;
        assert.equal(answers.filter((r) => r.statusCode === 200).length, 5);
        break;
      }
    } finally {
      // Its app only: TestApp.close() would remove the folder the other nodes still use.
      await late.app.close();
    }
  });
});
