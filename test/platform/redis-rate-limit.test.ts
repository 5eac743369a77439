// The per-minute limits shared through Redis (src/accounts/shared-rate-limiter.ts), on a real
// redis-server: two limiters on one Redis are two nodes, and together they allow exactly the
// limit; they answer what the in-memory limiter answers; a Redis killed mid-way gives per-node
// limits (never refusals, never a free-for-all) with one warning, and its return gives shared
// limits again with a line saying so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino, type Logger } from 'pino';
import { RateLimiter, type RateDecision } from '../../src/accounts/rate-limiter.ts';
import { RedisConnection } from '../../src/accounts/redis-connection.ts';
import { SharedRateLimiter } from '../../src/accounts/shared-rate-limiter.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

/** A logger whose lines the test reads. */
function capturedLog(): { log: Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { log, lines };
}
const WARN = 40;
const warnings = (lines: Array<{ level: number; msg: string }>) => lines.filter((l) => l.level === WARN);

/** Waits for `condition`, checking it every few ms, failing after `ms` with `what`. */
async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const allowedOf = (decisions: RateDecision[]) => decisions.filter((d) => d.allowed).length;
// A fixed instant 10 s into a minute: every take of a test lands in one window, whatever the clock does.
const AT = Date.UTC(2026, 10, 27, 12, 0, 10);

describe('rate limits shared through Redis', () => {
  let redis: RedisServer;
  const connections: RedisConnection[] = [];
  const node = (log: Logger = pino({ level: 'silent' })) => {
    const connection = new RedisConnection(redis.url, log);
    connections.push(connection);
    return { connection, limiter: new SharedRateLimiter(connection) };
  };

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const connection of connections) await connection.close();
    await redis.stop();
  });

  it('two nodes on one Redis allow exactly N of a concurrent flood of 3N for one account', async () => {
    const a = node();
    const b = node();
    await a.connection.connect(5000);
    await b.connection.connect(5000);
    for (const n of [1, 7, 50]) {
      const account = `acct-flood-${n}`;
      const flood = await Promise.all(Array.from({ length: 3 * n }, (_, i) => (i % 2 === 0 ? a : b).limiter.take(account, n, AT)));
      assert.equal(allowedOf(flood), n, `limit ${n}: allowed across both nodes`);
      // Each allowed take saw its own count: remaining runs N-1 … 0 once each, the refused ones 0.
      const remaining = flood.filter((d) => d.allowed).map((d) => d.remaining).sort((x, y) => y - x);
      assert.deepEqual(remaining, Array.from({ length: n }, (_, i) => n - 1 - i));
      assert.ok(flood.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.limit === n));
      // Another account, the same instant: its own window.
      assert.equal((await b.limiter.take(`${account}-other`, n, AT)).remaining, n - 1);
    }
  });

  it('answers what the in-memory limiter answers (the RateLimit and Retry-After values), window by window', async () => {
    const { connection, limiter } = node();
    await connection.connect(5000);
    const memory = new RateLimiter();
    // 59.2 s into a minute: 0.8 s left answers 1 s; the next minute starts a fresh window.
    const times = [AT, AT + 25_400, Date.UTC(2026, 10, 27, 12, 0, 59, 200), Date.UTC(2026, 10, 27, 12, 1, 0, 0), Date.UTC(2026, 10, 27, 12, 1, 30, 0)];
    for (const at of times) {
      for (let i = 0; i < 4; i++) {
        assert.deepEqual(await limiter.take('acct-same', 3, at), memory.take('acct-same', 3, at), `take ${i + 1} at ${new Date(at).toISOString()}`);
      }
    }
  });

  it("without a pinned instant the window is Redis's current minute, and its key expires after it", async () => {
    const { connection, limiter } = node();
    await connection.connect(5000);
    const [seconds] = (await connection.client.time()) as unknown as [string, string];
    const first = await limiter.take('acct-clock', 2);
    assert.equal(first.allowed, true);
    assert.equal(first.remaining, 1);
    const leftInMinute = 60 - (Number(seconds) % 60);
    assert.ok(first.resetSeconds >= 1 && first.resetSeconds <= leftInMinute + 1, `resetSeconds ${first.resetSeconds}, ${leftInMinute} s left`);
    const keys = await connection.client.keys('tool-service:ratelimit:{acct-clock}:*');
    assert.equal(keys.length, 1);
    const ttl = await connection.client.pttl(keys[0]!);
    assert.ok(ttl > 0 && ttl <= first.resetSeconds * 1000 + 5000, `the key expires with its window (${ttl} ms)`);
  });

  it('covered(): the token a request took is the first its calls spend, as in memory', async () => {
    const { connection, limiter } = node();
    await connection.connect(5000);
    const paid = await limiter.take('acct-cover', 3, AT);
    const inside = await limiter.covered('acct-cover', paid, async () => {
      await Promise.resolve();
      const first = await limiter.take('acct-cover', 3, AT);
      const second = await limiter.take('acct-cover', 3, AT);
      return { first, second };
    });
    assert.equal(inside.first, paid, 'the covered token, not a new one');
    assert.equal(inside.second.remaining, 1, 'a second call takes a token of its own');
  });

  it('a Redis that accepts but does not answer: the take falls back after the command timeout, not never', { timeout: 30_000 }, async () => {
    const log = capturedLog();
    const { connection, limiter } = node(log.log);
    await connection.connect(5000);
    assert.equal((await limiter.take('acct-hung', 2, AT)).remaining, 1, 'shared');
    redis.pause();
    try {
      // Without a bound this would wait for the resume below, which only comes after it.
      const first = await limiter.take('acct-hung', 2, AT);
      assert.deepEqual(first, { allowed: true, limit: 2, remaining: 1, resetSeconds: 50 }, "counted by the node's own window");
      assert.equal((await limiter.take('acct-hung', 2, AT)).remaining, 0);
      assert.equal((await limiter.take('acct-hung', 2, AT)).allowed, false, 'per-node limit, not unlimited');
      assert.equal(connection.status().state, 'degraded');
      assert.match(connection.status().detail ?? '', /timed out/i);
      assert.equal(warnings(log.lines).length, 1);
    } finally {
      redis.resume();
    }
    await until(() => connection.status().state === 'ready', 'the resumed Redis to answer the probe');
    assert.equal(log.lines.filter((l) => /Redis answers again/.test(l.msg)).length, 1);
  });

  it('Redis killed mid-way: per-node limits and one warning; Redis back: shared limits and a line saying so', async () => {
    const logA = capturedLog();
    const logB = capturedLog();
    const a = node(logA.log);
    const b = node(logB.log);
    await a.connection.connect(5000);
    await b.connection.connect(5000);
    const limit = 5;
    // Shared: three of the five tokens spent, across the two nodes.
    assert.equal(allowedOf(await Promise.all([a.limiter.take('acct-out', limit, AT), b.limiter.take('acct-out', limit, AT), a.limiter.take('acct-out', limit, AT)])), 3);
    assert.deepEqual(warnings(logA.lines), []);

    await redis.kill();
    // Each node now counts alone: five each (none of the shared three is known locally), never more, never none.
    const alone = async (n: { limiter: SharedRateLimiter }) => {
      const seen: RateDecision[] = [];
      for (let i = 0; i < 8; i++) seen.push(await n.limiter.take('acct-out', limit, AT));
      return seen;
    };
    const [onA, onB] = [await alone(a), await alone(b)];
    assert.deepEqual(onA.map((d) => d.allowed), [true, true, true, true, true, false, false, false], 'node A: its own five');
    assert.deepEqual(onB.map((d) => d.allowed), [true, true, true, true, true, false, false, false], 'node B: its own five');
    assert.equal(onA[0]!.remaining, 4);
    assert.equal(a.connection.status().state, 'degraded');
    assert.match(a.connection.status().detail ?? '', /does not answer.*per node/);
    // One warning per node for the whole outage, not one per take.
    for (const lines of [logA.lines, logB.lines]) {
      assert.equal(warnings(lines).length, 1, JSON.stringify(lines));
      assert.match(warnings(lines)[0]!.msg, /Redis does not answer: rate limits are per node/);
    }

    await redis.restart();
    await until(() => a.connection.status().state === 'ready' && b.connection.status().state === 'ready', 'both nodes to find Redis again');
    for (const lines of [logA.lines, logB.lines]) {
      assert.equal(lines.filter((l) => /Redis answers again: rate limits are shared/.test(l.msg)).length, 1, JSON.stringify(lines));
      assert.equal(warnings(lines).length, 1, 'no further warning');
    }
    // Shared again (the restarted Redis saved nothing, so the window starts empty): five across both.
    const flood = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).limiter.take('acct-out', limit, AT)));
    assert.equal(allowedOf(flood), limit);
  });
});
