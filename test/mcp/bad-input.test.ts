// Issue 10 §8, the bad input a hostile or confused MCP client sends, each answered as the MCP and
// JSON-RPC specifications prescribe (a JSON-RPC error for a message the server cannot take, an
// isError tool result for a call it can), with a message that says what to do, never a 5xx, and
// the service still answering afterwards. Cases covered elsewhere: a JSON object that is not
// JSON-RPC, no key, a bad key, a foreign Origin (mcp-surface.test.ts); an unknown operationId and
// wrong tool fields (mcp-surface.test.ts); a bad or oversized base64 within the message
// (file-tools.test.ts); another account's runId (runs.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };
const BODY_LIMIT = 65_536;

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string; data?: { error?: string } };
}

describe('MCP bad input: protocol errors and isError results, never a 5xx', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  const clients: Client[] = [];
  before(async () => {
    t = await startTestApp({ env: { MCP_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    base = await listen(t);
    apiKey = (await t.account({ quota: 1000 })).apiKey;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
  });

  const headers = (key: string) => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key });
  const post = (body: string, key = apiKey) => fetch(`${base}/mcp`, { method: 'POST', headers: headers(key), body });
  const streamable = async (key: string) => {
    const client = new Client({ name: 'bad-input', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    clients.push(client);
    return client;
  };
  const stillServing = async () => {
    const client = await streamable(apiKey);
    const r = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(r.isError, undefined, 'the service still answers calls');
  };

  it('malformed JSON: HTTP 400 with a JSON-RPC parse error (-32700), id null', async () => {
    const r = await post('{"jsonrpc":"2.0","id":1,"method":');
    assert.equal(r.status, 400);
    const body = (await r.json()) as RpcError;
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32700);
    assert.match(body.error.message, /not valid JSON/);
    await stillServing();
  });

  it('an unknown method: JSON-RPC -32601 Method not found for that id', async () => {
    const r = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/frobnicate' }));
    assert.equal(r.status, 200);
    const body = (await r.json()) as RpcError;
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32601);
  });

  it('an unknown tool and wrong argument types: isError results naming the problem', async () => {
    const client = await streamable(apiKey);
    const unknown = await client.callTool({ name: 'convert_everything', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(JSON.stringify(unknown.content), /Tool convert_everything not found/);
    const wrongType = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 42 } });
    assert.equal(wrongType.isError, true);
    assert.match(JSON.stringify(wrongType.content), /expected string, received number at operationId/);
    const wrongPaging = await client.callTool({ name: 'discover_tools', arguments: { pageSize: 'many' } });
    assert.equal(wrongPaging.isError, true);
    assert.match(JSON.stringify(wrongPaging.content), /pageSize/);
  });

  it('failures reach a client that listed the tools (and so checks output schemas) as isError results with the code in their text', async () => {
    const client = await streamable(apiKey);
    await client.listTools();
    const cases: [string, Record<string, unknown>, string][] = [
      ['get_run', { runId: 'run_00000000000000000000000000000000' }, 'run_not_found'],
      ['get_tool_schema', { operationId: 'calculators_emi_calculater' }, 'unknown_tool'],
      ['load_skill', { skillId: 'seo-audits' }, 'skill_not_found'],
      ['fetch_payload', { dataRefId: 'ref_nothing' }, 'payload_not_found'],
      ['invoke_tool', { operationId: 'calculators_emi_calculater', input: EMI }, 'unknown_tool'],
      ['invoke_tool', { operationId: 'calculators_emi_calculator', input: { principal: 'lots' } }, 'validation_error'],
      ['run_playbook', { skillId: 'nope', input: {} }, 'unknown_skill'],
      ['delete_feature', { featureId: 'feat_00000000000000000000000000000000' }, 'feature_not_found'],
    ];
    for (const [name, args, code] of cases) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, name);
      assert.equal(r.structuredContent, undefined, `${name}: a failure is not the success shape`);
      assert.equal(answerOf(r)['error'], code, name);
    }
  });

  it('a base64 file larger than an MCP message may be: HTTP 413 with a JSON-RPC error that says how to send it instead', async () => {
    const huge = Buffer.alloc(BODY_LIMIT, 'x').toString('base64');
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', file: { base64: huge } } } };
    const r = await post(JSON.stringify(call));
    assert.equal(r.status, 413);
    const body = (await r.json()) as RpcError;
    assert.equal(body.error.code, -32600);
    assert.equal(body.error.data?.error, 'payload_too_large');
    assert.match(body.error.message, new RegExp(`at most ${BODY_LIMIT} bytes: give a large file as \\{url\\}`));
    // Through the SDK's client the same refusal is an error the caller can read, not a hang.
    const client = await streamable(apiKey);
    await assert.rejects(client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', file: { base64: huge } } }), /give a large file as \{url\}/);
    await stillServing();
  });

  it('a key revoked mid-session: the next Streamable HTTP request is a 401, not a call on the old key', async () => {
    const { apiKey: key, keyId, accountId } = await t.account({ quota: 100 });
    const client = await streamable(key);
    const first = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(first.isError, undefined);
    await t.services.accounts.revokeKey(keyId, accountId);
    await assert.rejects(client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } }), /401|api_key_revoked/);
    const raw = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), key);
    assert.equal(raw.status, 401);
    assert.equal(((await raw.json()) as { error: string }).error, 'api_key_revoked');
  });

  it('a key revoked while its SSE stream is open: the next message POST is a 401', async () => {
    const { apiKey: key, keyId, accountId } = await t.account({ quota: 100 });
    const client = new Client({ name: 'bad-input-sse', version: '1.0.0' });
    const transport = new SSEClientTransport(new URL(`${base}/mcp`), {
      eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': key } }) },
      requestInit: { headers: { 'x-api-key': key } },
    });
    await client.connect(transport);
    clients.push(client);
    assert.equal((await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } })).isError, undefined);
    await t.services.accounts.revokeKey(keyId, accountId);
    await assert.rejects(client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } }), /401|revoked/);
    await stillServing();
  });
});
