// The hot path of MCP (src/mcp/lone-call.ts): a lone tools/call answered as JSON by a pooled server
// over its own transport, sent as raw HTTP so every header and byte of the exchange is the test's.
// It must answer exactly as the SDK's transport does: 200 and the JSON-RPC response under the
// request's own id; and a request the SDK's transport refuses (Accept, protocol version, a body
// that is not a JSON-RPC request) or streams (a progress token) must still meet the SDK's own
// answer, since only a request the SDK would take as it is may take the short path.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };
const JSON_AND_SSE = 'application/json, text/event-stream';

interface RpcAnswer {
  jsonrpc: string;
  id: string | number | null;
  result?: { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string };
}

describe('a lone tools/call over raw HTTP', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let reference: Record<string, unknown>;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    ({ apiKey } = await t.account({ quota: 100_000 }));
    const rest = await t.call('/api/v1/calculators/emi-calculator', EMI, apiKey);
    assert.equal(rest.statusCode, 200, rest.body);
    reference = rest.json().result as Record<string, unknown>;
  });
  after(async () => {
    await t.close();
  });

  const call = (id: string | number, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } }, ...extra }),
    });

  it('answers 200 with the JSON-RPC response under its own id, the same result as REST, call after call', async () => {
    for (const id of [1, 'two', 3, 'four', 5]) {
      const res = await call(id);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json(;|$)/);
      assert.match(res.headers.get('x-request-id') ?? '', /.+/);
      const body = (await res.json()) as RpcAnswer;
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.id, id);
      assert.equal(body.result?.isError, undefined, JSON.stringify(body));
      const answer = answerOf(body.result!);
      assert.equal(answer['status'], 'ok');
      assert.deepEqual(answer['result'], reference);
    }
  });

  it('answers calls sent at once, even under one id, each with its own answer', async () => {
    const principals = Array.from({ length: 12 }, (_, i) => 50_000 + i * 1000);
    const answers = await Promise.all(
      principals.map(async (principal) => {
        const res = await fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: JSON_AND_SSE },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: { ...EMI, principal } } } }),
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as RpcAnswer;
        assert.equal(body.id, 7);
        return answerOf(body.result!);
      }),
    );
    for (const [i, answer] of answers.entries()) {
      const rest = await t.call('/api/v1/calculators/emi-calculator', { ...EMI, principal: principals[i] }, apiKey);
      assert.deepEqual(answer['result'], rest.json().result, `principal ${principals[i]}`);
    }
  });

  it("an unknown tool is the SDK's JSON-RPC answer, and the next call is answered as before", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: JSON_AND_SSE },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as RpcAnswer;
    assert.equal(body.id, 9);
    const text = JSON.stringify(body);
    assert.ok(body.result?.isError === true || body.error !== undefined, text);
    assert.match(text, /no_such_tool/);
    const next = (await (await call(10)).json()) as RpcAnswer;
    assert.deepEqual(answerOf(next.result!)['result'], reference);
  });

  it("keeps the SDK's own refusals: Accept without text/event-stream is 406, an unknown protocol version 400", async () => {
    const notAcceptable = await call(11, { accept: 'application/json' });
    assert.equal(notAcceptable.status, 406);
    const refusal = (await notAcceptable.json()) as RpcAnswer;
    assert.equal(refusal.error?.code, -32000);
    assert.match(refusal.error?.message ?? '', /Not Acceptable/);

    const badVersion = await call(12, { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(badVersion.status, 400);
    assert.match(((await badVersion.json()) as RpcAnswer).error?.message ?? '', /Unsupported protocol version: 1999-01-01/);
  });

  it("keeps the SDK's answer to a body that is not a JSON-RPC request", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: JSON_AND_SSE },
      body: JSON.stringify({ jsonrpc: '1.0', id: 13, method: 'tools/call', params: { name: 'invoke_tool', arguments: {} } }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as RpcAnswer).error?.code, -32700);
  });

  it('a call with a progress token is answered as an event stream carrying the same result', async () => {
    const res = await call(14, {}, { params: { name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI }, _meta: { progressToken: 'p-14' } } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = (await res.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as RpcAnswer);
    const answer = events.find((e) => e.id === 14);
    assert.ok(answer?.result, JSON.stringify(events));
    assert.deepEqual(answerOf(answer.result)['result'], reference);
  });
});
