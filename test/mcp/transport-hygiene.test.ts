// Transport hygiene (issue 17 §7): a Streamable HTTP client's standalone GET /mcp (it carries
// MCP-Protocol-Version, or Mcp-Session-Id) is answered 405 with Allow: POST, as the spec allows a
// server without a standalone stream, and opens no legacy SSE session (none is counted against
// the key's cap); the official SDK client (StreamableHTTPClientTransport) makes that GET after
// initializing, takes the 405 as "no stream" and works on. A legacy SSE client's GET (no version
// header yet) still opens its session, within the per-key cap. Capping in all and reaping idle
// sessions are tested in sse-sessions.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { isRawSession, openRawSession, sdkSseClient, type RawSession } from './sse-stream.ts';

const PER_KEY = 2;

describe('GET /mcp: 405 for a Streamable HTTP client, a session for a legacy SSE client', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  const streams: RawSession[] = [];
  before(async () => {
    t = await startTestApp({ env: { MCP_SSE_SESSIONS_PER_KEY: String(PER_KEY) } });
    base = await listen(t);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const stream of streams) stream.abort();
    await t.close();
  });

  const standaloneGet = (key: string, headers: Record<string, string>) =>
    fetch(`${base}/mcp`, { headers: { 'x-api-key': key, accept: 'text/event-stream', ...headers } });

  async function assert405(res: Response, what: string): Promise<void> {
    assert.equal(res.status, 405, what);
    assert.equal(res.headers.get('allow'), 'POST', what);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${what}: a JSON error, not an event stream`);
    const body = (await res.json()) as { error: string; message: string; detail: string };
    assert.equal(body.error, 'method_not_allowed', what);
    assert.match(body.message, /no standalone stream/, what);
  }

  it("a standalone GET with MCP-Protocol-Version or Mcp-Session-Id is 405 and holds no session slot; a legacy GET opens one, up to the key's cap", async () => {
    const { apiKey } = await t.account();
    // More than the key's cap: had any of them opened a session, the legacy GETs below would be refused.
    for (let i = 0; i < PER_KEY + 2; i++) {
      await assert405(await standaloneGet(apiKey, { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }), `GET with MCP-Protocol-Version #${i + 1}`);
    }
    await assert405(await standaloneGet(apiKey, { 'mcp-session-id': 'a-session-this-server-never-issued' }), 'GET with Mcp-Session-Id');
    for (let i = 0; i < PER_KEY; i++) {
      const opened = await openRawSession(base, apiKey);
      assert.ok(isRawSession(opened), `legacy GET #${i + 1} opens a session`);
      streams.push(opened);
    }
    const over = await openRawSession(base, apiKey);
    assert.ok(!isRawSession(over), 'the key is at its cap');
    assert.equal(over.status, 429);
    assert.equal(((await over.json()) as { error: string }).error, 'sse_sessions_exhausted');
  });

  it("the SDK's Streamable HTTP client takes the 405 on its GET as no stream and keeps working", async () => {
    const { apiKey } = await t.account({ quota: 100 });
    const gets: number[] = [];
    const errors: unknown[] = [];
    let getAnswered: () => void = () => undefined;
    const firstGet = new Promise<void>((resolve) => (getAnswered = resolve));
    // The client's own fetch, watched: every GET it makes and what it was answered.
    const watched: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET') {
        gets.push(res.status);
        getAnswered();
      }
      return res;
    };
    const client = new Client({ name: 'transport-hygiene', version: '1.0.0' });
    client.onerror = (err) => errors.push(err);
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: watched, requestInit: { headers: { 'x-api-key': apiKey } } });
    await client.connect(transport);
    clients.push(client);
    const answer = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: { principal: 100000, rate: 10, tenure: 12 } } });
    assert.equal(answer.isError, undefined, JSON.stringify(answerOf(answer)));
    assert.equal(answerOf(answer)['status'], 'ok');
    // The GET goes out, unawaited, after the initialized notification's 202: waited for here.
    await firstGet;
    assert.deepEqual(gets, [405], 'the client asked for the standalone stream once and was told there is none');
    assert.deepEqual(errors, [], 'the 405 is no error to the client');
    // And it holds no session: the key may still open its full share of legacy sessions.
    for (let i = 0; i < PER_KEY; i++) {
      const opened = await openRawSession(base, apiKey);
      assert.ok(isRawSession(opened), `legacy GET #${i + 1} after the SDK client's GET`);
      streams.push(opened);
    }
  });

  it("the SDK's legacy SSE client still connects and calls tools", async () => {
    const { apiKey } = await t.account({ quota: 100 });
    const client = await sdkSseClient(base, apiKey);
    clients.push(client);
    const found = await client.callTool({ name: 'discover_tools', arguments: { query: 'emi loan' } });
    assert.equal(found.isError, undefined);
    assert.ok((answerOf(found)['tools'] as unknown[]).length > 0);
  });
});
