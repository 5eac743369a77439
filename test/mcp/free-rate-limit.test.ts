// Free MCP tools count against the account's per-minute limit (src/mcp/tool-guard.ts): a free key's
// free calls stop at its plan's limit with the same rate_limited answer billed tools give, every
// tool the server lists goes through the guard on both transports, and a billed call still costs
// one token, not two (its tool call's token is the one invoke spends).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getPlan } from '../../src/accounts/plans.ts';
import { RateLimiter } from '../../src/accounts/rate-limiter.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { sdkSseClient } from './sse-stream.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };

/** Runs `attempt` until it runs within one clock minute (the per-minute window): what it saw is then one window's. */
async function inOneMinute<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    const minute = Math.floor(Date.now() / 60_000);
    const seen = await attempt();
    if (Math.floor(Date.now() / 60_000) === minute) return seen;
  }
}

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  minimum?: number;
}

/** The smallest valid value of a tool's input schema, so the SDK's validation lets the call reach the tool. */
function sample(schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 0, 0);
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}));
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, sample(schema.properties?.[name] ?? {})]));
    default:
      return null;
  }
}

describe('RateLimiter.covered: the token a tool call took is the first one its catalog calls spend', () => {
  it('the first take of the same account inside is the covered token; later takes, other accounts and takes outside count', async () => {
    const limiter = new RateLimiter();
    const at = Date.UTC(2026, 0, 1, 12, 0, 10);
    const paid = limiter.take('a', 3, at);
    assert.equal(paid.remaining, 2);
    const inside = await limiter.covered('a', paid, async () => {
      await Promise.resolve();
      const first = limiter.take('a', 3, at);
      const other = limiter.take('b', 3, at);
      const second = await new Promise<ReturnType<RateLimiter['take']>>((resolve) => setImmediate(() => resolve(limiter.take('a', 3, at))));
      return { first, other, second };
    });
    assert.equal(inside.first, paid, 'the covered token, not a new one');
    assert.equal(inside.other.remaining, 2, "another account's take is its own");
    assert.equal(inside.second.remaining, 1, 'a second call inside takes a token of its own');
    const outside = limiter.take('a', 3, at);
    assert.equal(outside.remaining, 0);
    assert.equal(limiter.take('a', 3, at).allowed, false, 'three tokens in all: the covered call was counted once');
  });
});

describe('free MCP tools are rate limited', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });
  const streamable = async (key: string) => {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    clients.push(client);
    return client;
  };
  const sse = async (key: string) => {
    const client = await sdkSseClient(base, key);
    clients.push(client);
    return client;
  };

  it("a free key's free calls stop at the free plan's per-minute limit with rate_limited, and REST is limited with them", async () => {
    const perMinute = getPlan('free')!.requestsPerMinute;
    const freeCalls = [
      { name: 'discover_tools', arguments: { query: 'pdf to word' } },
      { name: 'get_tool_schema', arguments: { operationId: 'calculators_emi_calculator' } },
      { name: 'list_skills', arguments: {} },
      { name: 'load_skill', arguments: { skillId: 'security-baseline' } },
      { name: 'plan_task', arguments: { goal: 'audit the SEO of https://shop.example' } },
      { name: 'list_feature_memory', arguments: {} },
    ];
    const seen = await inOneMinute(async () => {
      const account = await t.services.accounts.createAccount({ email: `free-${Date.now()}-${Math.random()}@example.com`, verified: true, plan: 'free' });
      const { secret } = await t.services.accounts.createKey({ accountId: account.id });
      const client = await streamable(secret);
      const answers: { name: string; answer: Answer; isError: boolean }[] = [];
      for (let i = 0; i <= perMinute; i++) {
        const call = freeCalls[i % freeCalls.length]!;
        const result = await client.callTool(call);
        answers.push({ name: call.name, answer: answerOf(result), isError: result.isError === true });
      }
      const rest = await t.call('/api/v1/calculators/emi-calculator', EMI, secret);
      return { answers, rest: { status: rest.statusCode, error: rest.json().error as string } };
    });
    const served = seen.answers.slice(0, perMinute);
    assert.deepEqual(served.filter((a) => a.isError).map((a) => `${a.name}: ${JSON.stringify(a.answer)}`), [], `the first ${perMinute} calls are served`);
    const limited = seen.answers[perMinute]!;
    assert.equal(limited.isError, true);
    assert.equal(limited.answer['error'], 'rate_limited');
    assert.equal(limited.answer['stage'], 'rate');
    assert.match(String(limited.answer['message']), new RegExp(`${perMinute} requests per minute`));
    assert.ok(typeof limited.answer['retryAfterSeconds'] === 'number' && limited.answer['retryAfterSeconds'] >= 1 && limited.answer['retryAfterSeconds'] <= 60);
    assert.deepEqual(seen.rest, { status: 429, error: 'rate_limited' }, 'the free calls used the same per-minute limit as REST');
  });

  it('invoke_tool costs one token of the per-minute limit, not two', async () => {
    const seen = await inOneMinute(async () => {
      const { apiKey, accountId } = await t.account({ quota: 100, rateLimit: 3 });
      const client = await streamable(apiKey);
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push(answerOf(await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } })));
      await t.services.usage.flush();
      return { answers, used: await t.services.ledger.used(accountId) };
    });
    assert.deepEqual(seen.answers.map((a) => a['status']), ['ok', 'ok', 'ok', 'error']);
    assert.equal(seen.answers[3]?.['error'], 'rate_limited');
    assert.equal(seen.used, 3, 'the refused call was not charged');
  });

  for (const [transport, connect] of [
    ['Streamable HTTP', (key: string) => streamable(key)],
    ['legacy SSE', (key: string) => sse(key)],
  ] as const) {
    it(`every tool the server lists answers rate_limited once the minute's requests are spent (${transport})`, async () => {
      const seen = await inOneMinute(async () => {
        const { apiKey } = await t.account({ quota: 100, rateLimit: 1 });
        const client = await connect(apiKey);
        const { tools } = await client.listTools();
        const first = answerOf(await client.callTool({ name: 'list_skills', arguments: {} }));
        const answers: [string, Answer][] = [];
        for (const tool of tools) answers.push([tool.name, answerOf(await client.callTool({ name: tool.name, arguments: sample(tool.inputSchema as JsonSchema) as Record<string, unknown> }))]);
        return { first, answers };
      });
      assert.ok(Array.isArray(seen.first['skills']), 'the one request of the minute is served');
      assert.ok(seen.answers.length >= 20, `${seen.answers.length} tools listed`);
      const notLimited = seen.answers.filter(([, answer]) => answer['error'] !== 'rate_limited').map(([name, answer]) => `${name}: ${JSON.stringify(answer).slice(0, 200)}`);
      assert.deepEqual(notLimited, [], 'every tool passes through the guard');
    });
  }
});
