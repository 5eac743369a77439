// Servers kept between stateless Streamable HTTP requests (src/mcp/server-pool.ts): the pool
// itself, and through the SDK's own client over real HTTP that a reused server answers exactly as a
// fresh one: each call under its own request id, a plan change seen at the next call, concurrent
// calls of one key each with its own answer, and initialize / tools/list unaffected.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Caller } from '../../src/accounts/account-store.ts';
import { ServerPool } from '../../src/mcp/server-pool.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };

/** A Caller as the account store makes one: only key.id and the object's identity matter here. */
function callerFor(keyId: string): Caller {
  return { key: { id: keyId } } as unknown as Caller;
}

describe('ServerPool', () => {
  it('hands an item back only to the very caller it was given for, last given first', () => {
    const pool = new ServerPool<string>(10);
    const a = callerFor('key_a');
    const b = callerFor('key_b');
    pool.give(a, 'a1');
    pool.give(a, 'a2');
    pool.give(b, 'b1');
    assert.equal(pool.size, 3);
    assert.equal(pool.take(b), 'b1');
    assert.equal(pool.take(b), undefined);
    assert.equal(pool.take(a), 'a2');
    assert.equal(pool.take(a), 'a1');
    assert.equal(pool.take(a), undefined);
    assert.equal(pool.size, 0);
  });

  it('drops the items of a key whose Caller was replaced (scopes, plan or revocation changed)', () => {
    const pool = new ServerPool<string>(10);
    const before = callerFor('key_a');
    const after = callerFor('key_a');
    pool.give(before, 'old1');
    pool.give(before, 'old2');
    assert.equal(pool.take(after), undefined);
    assert.equal(pool.size, 0);
    assert.equal(pool.take(before), undefined);
    // Giving for the new caller also drops what the old one left.
    pool.give(before, 'old3');
    pool.give(after, 'new1');
    assert.equal(pool.size, 1);
    assert.equal(pool.take(before), undefined);
    assert.equal(pool.take(after), undefined);
    pool.give(after, 'new2');
    assert.equal(pool.take(after), 'new2');
  });

  it('holds at most its limit, taking from the key given back least recently', () => {
    const pool = new ServerPool<string>(3);
    const a = callerFor('key_a');
    const b = callerFor('key_b');
    const c = callerFor('key_c');
    pool.give(a, 'a1');
    pool.give(b, 'b1');
    pool.give(a, 'a2');
    pool.give(c, 'c1');
    assert.equal(pool.size, 3);
    // b was given back least recently (a moved behind it when a2 came back).
    assert.equal(pool.take(b), undefined);
    assert.equal(pool.take(c), 'c1');
    assert.equal(pool.take(a), 'a2');
    assert.equal(pool.take(a), 'a1');
    const none = new ServerPool<string>(0);
    none.give(a, 'a1');
    assert.equal(none.size, 0);
    assert.equal(none.take(a), undefined);
  });
});

describe('MCP servers reused between requests', () => {
  let t: TestApp | undefined;
  let base = '';
  const clients: Client[] = [];
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t?.close();
  });

  /** A client whose every POST carries the next X-Request-Id from `ids` (the service keeps a sane one). */
  async function clientWithIds(apiKey: string, ids: string[]): Promise<Client> {
    const withId: typeof fetch = (url, init) => {
      const headers = new Headers(init?.headers);
      const id = (init?.method ?? 'GET') === 'POST' ? ids.shift() : undefined;
      if (id !== undefined) headers.set('x-request-id', id);
      return fetch(url, { ...init, headers });
    };
    const client = new Client({ name: 'pool-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } }, fetch: withId }));
    return client;
  }

  async function invokeEmi(client: Client): Promise<Record<string, unknown>> {
    const answer = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(answer.isError, undefined, JSON.stringify(answer));
    return answerOf(answer);
  }

  it('answers each call under its own request id, one call after another on one key', async () => {
    const { apiKey } = await t!.account({ quota: 1000 });
    // initialize and notifications/initialized take the first two ids.
    const ids = ['init-1', 'init-2', 'call-1', 'call-2', 'call-3'];
    const client = await clientWithIds(apiKey, ids);
    for (const id of ['call-1', 'call-2', 'call-3']) {
      const body = await invokeEmi(client);
      assert.equal(body['status'], 'ok');
      assert.deepEqual(body['execution'], { runId: null, intentId: id, intentType: 'invoke_tool', idempotencyKey: null, projectScope: null });
    }
    assert.deepEqual(ids, []);
  });

  it('sees a plan change at the next call: the key gets a server built for its new caller', async () => {
    const { apiKey, accountId } = await t!.account({ plan: 'business' });
    const client = await clientWithIds(apiKey, []);
    const first = (await invokeEmi(client))['credits'] as { charged: number; remaining: number };
    assert.ok(first.charged > 0);
    assert.ok(first.remaining > 200_000, `business plan remaining ${first.remaining}`);
    await t!.services.accounts.setPlan(accountId, 'starter');
    const second = (await invokeEmi(client))['credits'] as { charged: number; remaining: number };
    assert.equal(second.charged, first.charged);
    assert.equal(second.remaining, 10_000 - 2 * first.charged);
  });

  it('answers twenty concurrent calls of one key, each with its own id and the exact result', async () => {
    const { apiKey } = await t!.account({ quota: 100_000 });
    const reference = await t!.call('/api/v1/calculators/emi-calculator', EMI, apiKey);
    assert.equal(reference.statusCode, 200);
    const expected = (reference.json() as { result: unknown }).result;
    const ids = ['init-1', 'init-2'];
    const client = await clientWithIds(apiKey, ids);
    const callIds = Array.from({ length: 20 }, (_, i) => `concurrent-${i}`);
    ids.push(...callIds);
    const answers = await Promise.all(callIds.map(() => invokeEmi(client)));
    assert.deepEqual(answers.map((a) => (a['execution'] as { intentId: string }).intentId).sort(), [...callIds].sort());
    for (const answer of answers) assert.deepEqual(answer['result'], expected);
    // A second wave on the servers the first one gave back.
    const again = await Promise.all(callIds.map(() => invokeEmi(client)));
    for (const answer of again) assert.deepEqual(answer['result'], expected);
  });

  it('leaves initialize and tools/list as they were between tool calls', async () => {
    const { apiKey } = await t!.account({ quota: 1000 });
    const client = await clientWithIds(apiKey, []);
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    await invokeEmi(client);
    await invokeEmi(client);
    const after = (await client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(after, before);
    assert.ok(after.includes('invoke_tool'));
    const other = await clientWithIds(apiKey, []);
    assert.deepEqual(other.getServerVersion()?.name, 'tool-service');
    assert.deepEqual((await other.listTools()).tools.map((tool) => tool.name), before);
  });
});
