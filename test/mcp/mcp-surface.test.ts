// The MCP surface through the official SDK's own client, over real HTTP, on both transports:
// the meta-tools, one credit pool with REST, errors as isError results, and the HTTP-level gates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };

async function streamableClient(base: string, headers: Record<string, string>, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
  return client;
}

async function sseClient(base: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-sse-client', version: '1.0.0' });
  const withKey: typeof fetch = (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), ...headers } });
  await client.connect(new SSEClientTransport(new URL(`${base}/mcp`), { requestInit: { headers }, eventSourceInit: { fetch: withKey } }));
  return client;
}

interface Structured {
  [key: string]: unknown;
}

describe('MCP surface', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  const clients: Client[] = [];
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    ({ apiKey } = await t.account({ quota: 1000 }));
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });
  const connect = async (make: () => Promise<Client>) => {
    const client = await make();
    clients.push(client);
    return client;
  };

  for (const [name, make] of [
    ['Streamable HTTP on /mcp', () => streamableClient(base, { 'x-api-key': apiKey })],
    ['Streamable HTTP on /mcp/http with a Bearer key', () => streamableClient(base, { authorization: `Bearer ${apiKey}` }, '/mcp/http')],
    ['legacy HTTP+SSE on GET /mcp', () => sseClient(base, { 'x-api-key': apiKey })],
  ] as const) {
    it(`${name}: lists the meta-tools with schemas and annotations, and runs the search -> schema -> invoke loop`, async () => {
      const client = await connect(make);
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, [
        'capture_feature', 'compare_feature_memory', 'delete_feature', 'discover_tools', 'fetch_payload', 'get_run', 'get_tool_schema', 'invoke_tool',
        'job_start', 'job_status', 'job_submit_check', 'list_community_patterns', 'list_feature_memory', 'list_skills', 'load_skill',
        'plan_task', 'publish_feature_pattern', 'recall_context', 'run_playbook', 'run_workflow', 'solve_task', 'unpublish_feature_pattern', 'verify_task',
      ]);
      for (const tool of tools) {
        assert.match(tool.name, /^[A-Za-z0-9_.-]{1,64}$/);
        assert.ok(tool.description && tool.description.length > 80, `${tool.name} is described for an agent`);
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
        assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean');
      }

      const found = await client.callTool({ name: 'discover_tools', arguments: { query: 'emi loan' } });
      const page = answerOf(found) as { tools: { operationId: string; credits: number }[]; total: number };
      assert.equal(page.tools[0]?.operationId, 'calculators_emi_calculator');
      assert.equal(page.tools[0]?.credits, 1);
      assert.deepEqual(JSON.parse((found.content as { text: string }[])[0]!.text), found.structuredContent, 'the text mirrors the structured result');

      const schema = answerOf(await client.callTool({ name: 'get_tool_schema', arguments: { operationId: 'calculators_emi_calculator' } })) as Structured;
      assert.equal(schema['mcpCallable'], true);
      const properties = Object.keys((schema['inputSchema'] as { properties: object }).properties);
      for (const field of ['principal', 'rate', 'tenure']) assert.ok(properties.includes(field), `the input schema names ${field}`);
      assert.equal(schema['credits'], 1);

      const rest = (await t.call('/api/v1/calculators/emi-calculator', EMI, apiKey)).json().result;
      const called = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
      assert.equal(called.isError, undefined);
      const out = answerOf(called) as Structured;
      assert.equal(out['status'], 'ok');
      assert.deepEqual(out['result'], rest, 'the same result as REST');
      assert.equal((out['credits'] as { charged: number }).charged, 1);
      assert.equal((out['execution'] as { intentType: string }).intentType, 'invoke_tool');
    });
  }

  it('list_skills and load_skill read the playbooks; an unknown id is an isError naming close ids', async () => {
    const client = await connect(() => streamableClient(base, { 'x-api-key': apiKey }));
    const listed = answerOf(await client.callTool({ name: 'list_skills', arguments: { query: 'security' } })) as { skills: { id: string; estimatedCredits: number }[] };
    assert.equal(listed.skills[0]?.id, 'security-baseline');
    const loaded = answerOf(await client.callTool({ name: 'load_skill', arguments: { skillId: 'security-baseline' } })) as { steps: { operationId: string; credits: number }[]; estimatedCredits: { total: number } };
    assert.equal(loaded.estimatedCredits.total, loaded.steps.reduce((sum, step) => sum + step.credits, 0));
    assert.equal(loaded.estimatedCredits.total, listed.skills[0]?.estimatedCredits);
    for (const step of loaded.steps) assert.ok(t.services.catalog.get(step.operationId), step.operationId);
    const missing = await client.callTool({ name: 'load_skill', arguments: { skillId: 'security-baseline2' } });
    assert.equal(missing.isError, true);
    assert.equal((answerOf(missing) as Structured)['error'], 'skill_not_found');
    assert.deepEqual((answerOf(missing) as Structured)['suggestions'], ['security-baseline']);
  });

  it('one credit pool: REST and MCP calls alternate on one quota and both end exactly at zero', async () => {
    const { apiKey: key, accountId } = await t.account({ quota: 6 });
    const client = await connect(() => streamableClient(base, { 'x-api-key': key }));
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.call('/api/v1/calculators/emi-calculator', EMI, key)).statusCode, 200);
      const r = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
      assert.equal(r.isError, undefined, JSON.stringify(answerOf(r)));
      assert.equal((answerOf(r) as { credits: { remaining: number } }).credits.remaining, 6 - 2 * (i + 1));
    }
    const refused = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(refused.isError, true);
    const body = answerOf(refused) as Structured;
    assert.equal(body['error'], 'quota_exhausted');
    assert.equal(body['stage'], 'quota');
    assert.equal(body['retryAfterSeconds'], undefined, 'no retry advice when the quota is gone');
    assert.equal((await t.call('/api/v1/calculators/emi-calculator', EMI, key)).json().error, 'quota_exhausted');
    await t.services.usage.flush();
    assert.equal(await t.services.accounts.usedCredits(accountId), 6);
  });

  it('the per-minute limit is shared with REST and answers rate_limited with retryAfterSeconds', async () => {
    const { apiKey: key } = await t.account({ quota: 100, rateLimit: 2 });
    const client = await connect(() => streamableClient(base, { 'x-api-key': key }));
    assert.equal((await t.call('/api/v1/calculators/emi-calculator', EMI, key)).statusCode, 200);
    assert.equal((await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } })).isError, undefined);
    const limited = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(limited.isError, true);
    const body = answerOf(limited) as Structured;
    assert.equal(body['error'], 'rate_limited');
    assert.ok(typeof body['retryAfterSeconds'] === 'number' && body['retryAfterSeconds'] >= 1);
  });

  it('bad calls are isError results that say what to do: unknown operation, wrong fields, a file tool, a key scoped away', async () => {
    const client = await connect(() => streamableClient(base, { 'x-api-key': apiKey }));
    const unknown = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculater', input: EMI } });
    assert.equal(unknown.isError, true);
    assert.equal((answerOf(unknown) as Structured)['error'], 'unknown_tool');
    assert.ok(((answerOf(unknown) as Structured)['suggestions'] as string[]).includes('calculators_emi_calculator'));

    const invalid = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: { principal: 'lots', rate: 10, tenure: 12 } } });
    assert.equal(invalid.isError, true);
    const issues = ((answerOf(invalid) as Structured)['details'] as { issues: { field: string }[] }).issues;
    assert.equal((answerOf(invalid) as Structured)['error'], 'validation_error');
    assert.deepEqual(issues.map((i) => i.field), ['principal']);

    const file = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_docx_to_pdf', input: {} } });
    assert.equal((answerOf(file) as Structured)['error'], 'file_required');

    const { apiKey: scoped } = await t.account({ tools: ['calculators_gst_calculator'] });
    const scopedClient = await connect(() => streamableClient(base, { 'x-api-key': scoped }));
    const forbidden = await scopedClient.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } });
    assert.equal(forbidden.isError, true);
    assert.equal((answerOf(forbidden) as Structured)['error'], 'tool_not_allowed');
    assert.equal((answerOf(forbidden) as Structured)['stage'], 'authorize');

    // A tool name the server does not have, and wrong argument types: the SDK's own answers, naming the problem.
    const missing = await client.callTool({ name: 'no_such_tool', arguments: {} });
    assert.equal(missing.isError, true);
    assert.match((missing.content as { text: string }[])[0]!.text, /no_such_tool/);
    const wrongTypes = await client.callTool({ name: 'discover_tools', arguments: { pageSize: 'ten' } });
    assert.equal(wrongTypes.isError, true);
    assert.match((wrongTypes.content as { text: string }[])[0]!.text, /pageSize/);
  });

  it('answers 401 JSON before any MCP processing without a valid key, 403 to a foreign Origin, and JSON-RPC errors to malformed messages', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: string }).error, 'missing_api_key');
    const bad = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'x-api-key': 'uts_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, body: JSON.stringify(init) });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { error: string }).error, 'invalid_api_key');
    const foreign = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'x-api-key': apiKey, origin: 'https://evil.example' }, body: JSON.stringify(init) });
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: string }).error, 'origin_not_allowed');
    const notRpc = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'x-api-key': apiKey }, body: JSON.stringify({ hello: 'world' }) });
    assert.ok(notRpc.status >= 400 && notRpc.status < 500, String(notRpc.status));
    const rpc = (await notRpc.json()) as { jsonrpc: string; error: { code: number; message: string } };
    assert.equal(rpc.jsonrpc, '2.0');
    assert.ok(rpc.error.code < 0, rpc.error.message);
    const staleSession = await fetch(`${base}/mcp`, { method: 'GET', headers: { 'x-api-key': apiKey, 'mcp-session-id': 'abc' } });
    assert.equal(staleSession.status, 405);
  });
});
