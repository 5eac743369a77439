// Legacy HTTP+SSE sessions (src/mcp/sse-sessions.ts, mcp-routes.ts), through the SDK's own client
// and raw streams over real HTTP: every message runs as its own key with the account's state of
// that moment (suspended, un-verified, downgraded), a session answers only the key that opened it,
// a revoked key's session ends, sessions are capped per key and in all and reaped when idle.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { updateAccount } from '../support/other-connection.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { isRawSession, openRawSession, sdkSseClient, type RawSession } from './sse-stream.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };
const emi = { name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } };
const discover = { name: 'discover_tools', arguments: { query: 'emi loan' } };

/** Runs `attempt` until it runs within one clock minute (the per-minute window): what it saw is then one window's. */
async function inOneMinute<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    const minute = Math.floor(Date.now() / 60_000);
    const seen = await attempt();
    if (Math.floor(Date.now() / 60_000) === minute) return seen;
  }
}

async function rawSession(base: string, key: string): Promise<RawSession> {
  const opened = await openRawSession(base, key);
  if (!isRawSession(opened)) throw new Error(`GET /mcp answered ${opened.status}: ${await opened.text()}`);
  return opened;
}

describe('SSE sessions follow the account and the key', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  const streams: RawSession[] = [];
  // Another connection, as the CLI or another process would change the account.
  const setAccount = (accountId: string, values: Parameters<typeof updateAccount>[2]) => updateAccount(t.config.databaseUrl, accountId, values);
  const sse = async (streamKey: string, postKey?: () => string) => {
    const client = await sdkSseClient(base, streamKey, postKey);
    clients.push(client);
    return client;
  };
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
  });
  after(async () => {
    for (const client of clients) await client.close();
    for (const stream of streams) stream.abort();
    await t.close();
  });

  it('a suspended account is refused at its next message, free and billed tools alike, and served again once active', async () => {
    const { apiKey, accountId } = await t.account({ quota: 100 });
    const client = await sse(apiKey);
    assert.equal((await client.callTool(discover)).isError, undefined);
    await setAccount(accountId, { status: 'suspended' });
    for (const call of [discover, emi]) {
      const refused = await client.callTool(call);
      assert.equal(refused.isError, true, call.name);
      const body = answerOf(refused);
      assert.equal(body['error'], 'account_inactive', call.name);
      assert.equal(body['stage'], 'authorize');
    }
    assert.equal((await t.call('/api/v1/calculators/emi-calculator', EMI, apiKey)).json().error, 'account_inactive', 'REST says the same');
    await setAccount(accountId, { status: 'active' });
    const served = await client.callTool(emi);
    assert.equal(served.isError, undefined, JSON.stringify(answerOf(served)));
    await t.services.usage.flush();
    assert.equal(await t.services.ledger.used(accountId), 1, 'only the call made while active was charged');
  });

  it('an account whose e-mail was un-verified is refused at its next message', async () => {
    const { apiKey, accountId } = await t.account({ quota: 100 });
    const client = await sse(apiKey);
    assert.equal((await client.callTool(emi)).isError, undefined);
    await setAccount(accountId, { email_verified_at: null });
    for (const call of [discover, emi]) {
      const refused = answerOf(await client.callTool(call));
      assert.equal(refused['error'], 'email_not_verified', call.name);
    }
  });

  it("a plan downgraded mid-session applies at the next message: the free plan's quota and its per-minute limit", async () => {
    const seen = await inOneMinute(async () => {
      const account = await t.services.accounts.createAccount({ email: `pro-${Date.now()}-${Math.random()}@example.com`, verified: true, plan: 'pro' });
      const { secret } = await t.services.accounts.createKey({ accountId: account.id });
      const client = await sse(secret);
      // 499 of the free plan's 500 credits are already spent this month; pro had 50,000.
      await t.services.accounts.charge(account.id, 499, 50_000);
      await t.services.accounts.setPlan(account.id, 'free');
      const answers: Answer[] = [];
      answers.push(answerOf(await client.callTool(emi)));
      answers.push(answerOf(await client.callTool(emi)));
      // The free plan allows 30 requests a minute: two went to invoke_tool, 28 more free calls fit.
      for (let i = 0; i < 29; i++) answers.push(answerOf(await client.callTool(discover)));
      return { answers, used: await t.services.ledger.used(account.id) };
    });
    const [spent, over, ...free] = seen.answers;
    assert.equal(spent?.['status'], 'ok');
    assert.equal(over?.['error'], 'quota_exhausted', 'the free quota, not the pro one');
    assert.equal(seen.used, 500);
    assert.equal(free.slice(0, 28).filter((a) => a['error'] !== undefined).length, 0, 'the 30 requests of the minute are served');
    const limited = free[28];
    assert.equal(limited?.['error'], 'rate_limited', "the 31st is over the free plan's 30 a minute, not pro's 600");
    assert.equal(limited?.['stage'], 'rate');
    assert.ok(typeof limited?.['retryAfterSeconds'] === 'number' && limited['retryAfterSeconds'] >= 1 && limited['retryAfterSeconds'] <= 60);
  });

  it("a key limited to one tool posting into a full key's session gets 403 and nothing runs; so does another account's key", async () => {
    const { apiKey: full, accountId } = await t.account({ quota: 100 });
    const { secret: scoped } = await t.services.accounts.createKey({ accountId, tools: ['calculators_gst_calculator'] });
    const { apiKey: stranger } = await t.account({ quota: 100 });
    let postKey = full;
    const client = await sse(full, () => postKey);
    assert.equal((await client.callTool(emi)).isError, undefined);
    for (const other of [scoped, stranger]) {
      postKey = other;
      await assert.rejects(client.callTool(emi), /403[\s\S]*session_key_mismatch/);
    }
    postKey = full;
    await t.services.usage.flush();
    assert.equal(await t.services.ledger.used(accountId), 1, 'the refused calls ran nothing');
    assert.equal((await client.callTool(emi)).isError, undefined, 'the session still serves its own key');

    const stream = await rawSession(base, full);
    streams.push(stream);
    const refused = await stream.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: emi }, scoped);
    assert.equal(refused.status, 403);
    const body = (await refused.json()) as { error: string; message: string };
    assert.equal(body.error, 'session_key_mismatch');
    assert.match(body.message, /another API key/);
    assert.ok(!JSON.stringify(body).includes(stream.sessionId), 'the refusal does not echo the session id');
  });

  it("revoking the key that opened a session ends its stream, with or without a message to say so", async () => {
    const { apiKey, accountId, keyId } = await t.account();
    const quiet = await rawSession(base, apiKey);
    streams.push(quiet);
    const { key: second, secret: secondKey } = await t.services.accounts.createKey({ accountId });
    const told = await rawSession(base, secondKey);
    streams.push(told);

    await t.services.accounts.revokeKey(second.id, accountId);
    const refused = await told.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, secondKey);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: string }).error, 'api_key_revoked');
    await told.ended;

    // No message comes for this one: the sessions' sweep reads the key from the database.
    await t.services.accounts.revokeKey(keyId, accountId);
    await quiet.ended;
    const late = await quiet.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, apiKey);
    assert.equal(late.status, 401);
  });

  it('a message is answered on the stream, and a message to no session is a 404 JSON', async () => {
    const { apiKey } = await t.account();
    const stream = await rawSession(base, apiKey);
    streams.push(stream);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    assert.equal((await stream.post(init, apiKey)).status, 202);
    assert.equal(((await stream.answer(1)).result as { serverInfo: { name: string } }).serverInfo.name, 'tool-service');
    const notRpc = await stream.post({ hello: 'world' }, apiKey);
    assert.equal(notRpc.status, 400);
    const rpc = (await notRpc.json()) as { jsonrpc: string; error: { code: number; message: string } };
    assert.equal(rpc.error.code, -32600);
    assert.ok(!rpc.error.message.includes('hello'), 'the body is not echoed');
    const unknown = await fetch(`${base}/mcp/messages?sessionId=${crypto.randomUUID()}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: '{}' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: string }).error, 'session_not_found');
  });
});

describe('SSE sessions are capped per key and in all', () => {
  let t: TestApp;
  let base: string;
  const streams: RawSession[] = [];
  before(async () => {
    t = await startTestApp({ env: { MCP_SSE_SESSIONS_PER_KEY: '2', MCP_SSE_SESSIONS_MAX: '3' } });
    base = await listen(t);
  });
  after(async () => {
    for (const stream of streams) stream.abort();
    await t.close();
  });
  const open = async (key: string) => {
    const opened = await openRawSession(base, key);
    if (isRawSession(opened)) streams.push(opened);
    return opened;
  };
  const refusal = async (opened: RawSession | Response) => {
    assert.ok(!isRawSession(opened), 'refused');
    assert.equal(opened.status, 429);
    const retryAfter = Number(opened.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${opened.headers.get('retry-after')}`);
    return (await opened.json()) as { error: string; message: string; retryAfterSeconds?: number };
  };

  it('one key holds at most its share, all keys at most the total; closing a stream frees its slot', async () => {
    const { apiKey: a } = await t.account();
    const { apiKey: b } = await t.account();
    const { apiKey: c } = await t.account();
    const first = await open(a);
    assert.ok(isRawSession(first));
    assert.ok(isRawSession(await open(a)));
    const overKey = await refusal(await open(a));
    assert.equal(overKey.error, 'sse_sessions_exhausted');
    assert.match(overKey.message, /this API key/i);

    assert.ok(isRawSession(await open(b)), 'another key still gets in');
    const overAll = await refusal(await open(c));
    assert.equal(overAll.error, 'sse_sessions_exhausted');
    assert.match(overAll.message, /service/);

    // The client ends a stream: its slot is free as soon as the server sees the close.
    first.abort();
    let reopened = await open(a);
    while (!isRawSession(reopened)) {
      assert.equal(reopened.status, 429, 'only the cap refuses');
      await new Promise((resolve) => setTimeout(resolve, 20));
      reopened = await open(a);
    }
    assert.equal((await open(c) as Response).status, 429, 'the total is full again');
  });
});

describe('SSE sessions are reaped when idle', () => {
  let t: TestApp;
  let base: string;
  const streams: RawSession[] = [];
  before(async () => {
    t = await startTestApp({ env: { MCP_SSE_IDLE_SECONDS: '1', MCP_SSE_SESSIONS_PER_KEY: '1' } });
    base = await listen(t);
  });
  after(async () => {
    for (const stream of streams) stream.abort();
    await t.close();
  });

  it('a session with no message for its idle time ends its stream and frees its slot', async () => {
    const { apiKey } = await t.account();
    const stream = await rawSession(base, apiKey);
    streams.push(stream);
    const second = await openRawSession(base, apiKey);
    assert.ok(!isRawSession(second) && second.status === 429, 'the one slot of the key is taken');
    await stream.ended;
    const late = await stream.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, apiKey);
    assert.equal(late.status, 404);
    const again = await rawSession(base, apiKey);
    streams.push(again);
    assert.notEqual(again.sessionId, stream.sessionId);
  });
});
