// The per-minute limits counted in Redis (REDIS_URL), so an account gets its N requests a minute
// across all nodes, not N per node. Same windows as the in-memory RateLimiter (fixed, one minute,
// aligned to the clock: Redis's clock, so nodes with skewed clocks still share one window), same
// RateDecision, so the RateLimit and Retry-After headers do not change. One atomic script per
// take: no two nodes can both take the last token.
//
// When Redis does not answer (redis-connection.ts: refused, timed out, out since), the take is
// counted by this node's own in-memory RateLimiter: an outage gives per-node limits, never a
// refused service and never an unlimited one.
import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection.ts';
import { RateLimiter, type RateDecision, type RequestLimiter } from './rate-limiter.ts';

/**
 * KEYS[1]: the key's prefix (`<prefix>{<key>}`; the window is appended, the braces keep a key's
 * windows in one cluster slot). ARGV[1]: the limit. ARGV[2]: the time in ms, or '' for Redis's.
 * A refused take does not count (as in memory): the count is the allowed takes of the window.
 * Answers { allowed (1/0), count, ms left in the window }. The key expires a little after its
 * window ends, so nothing is left behind.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[2])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = math.floor(now / 60000)
local left = (window + 1) * 60000 - now
local key = KEYS[1] .. ':' .. string.format('%d', window)
local limit = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', key) or '0')
if count >= limit then return {0, count, left} end
count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, left + 5000) end
return {1, count, left}
`;
const TAKE_SHA = createHash('sha1').update(TAKE_SCRIPT).digest('hex');

export interface SharedRateLimiterOptions {
  /** Prefix of the limiter's keys in Redis (one Redis may serve several services). */
  keyPrefix?: string;
}

export class SharedRateLimiter implements RequestLimiter {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  /** This node's own windows: the fallback while Redis is out, and the keeper of covered() tokens. */
  readonly local = new RateLimiter();

  constructor(redis: RedisConnection, options: SharedRateLimiterOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix ?? 'tool-service:ratelimit:';
  }

  /** `nowMs` pins the window (tests); without it the window is Redis's current minute. */
  async take(key: string, limit: number, nowMs?: number): Promise<RateDecision> {
    // Before any await: the cover lives in the caller's async context.
    const paid = this.local.spendCover(key);
    if (paid !== undefined) return paid;
    const answer = await this.#redis.attempt((client) => runTake(client, `${this.#prefix}{${key}}`, limit, nowMs));
    if (answer === undefined) return this.local.take(key, limit, nowMs ?? Date.now());
    const [allowed, count, leftMs] = answer.value;
    const resetSeconds = Math.max(1, Math.ceil(leftMs / 1000));
    return allowed === 1 ? { allowed: true, limit, remaining: Math.max(0, limit - count), resetSeconds } : { allowed: false, limit, remaining: 0, resetSeconds };
  }

  covered<T>(key: string, decision: RateDecision, work: () => T): T {
    return this.local.covered(key, decision, work);
  }
}

type TakeAnswer = [allowed: number, count: number, leftMs: number];

/** EVALSHA, and EVAL once when Redis does not know the script (first use, or a restarted Redis). */
async function runTake(client: RedisConnection['client'], key: string, limit: number, nowMs: number | undefined): Promise<TakeAnswer> {
  const args = [key, String(limit), nowMs === undefined ? '' : String(Math.floor(nowMs))] as const;
  let answer: unknown;
  try {
    answer = await client.evalsha(TAKE_SHA, 1, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    answer = await client.eval(TAKE_SCRIPT, 1, ...args);
  }
  if (!Array.isArray(answer) || answer.length !== 3 || !answer.every((n) => typeof n === 'number')) {
    throw new Error(`unexpected answer from the rate-limit script: ${JSON.stringify(answer)}`);
  }
  return answer as TakeAnswer;
}
