// client.mcp against the real app on loopback: the mcpServers entry, a meta-tool by its MCP name,
// one MCP connection reused by every call, isError answers and a refused key thrown as the SDK's
// error classes, and the MCP SDK never loaded by a client that does not use client.mcp.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AuthenticationError, PermissionDeniedError, QuotaExceededError, ToolServiceClient, ToolServiceError, ValidationError } from '../src/index.ts';
import { MCP_TOOL_NAMES, type OperationTypes } from '../src/generated/operations.ts';
import { listen } from '../../../test/support/http.ts';
import { startTestApp, type TestApp } from '../../../test/support/test-app.ts';

const here = dirname(fileURLToPath(import.meta.url));

describe('client.mcp', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  const clients: ToolServiceClient[] = [];
  /** A client whose MCP POSTs are counted by JSON-RPC method. */
  const counted = (key: string): { client: ToolServiceClient; methods: string[]; bodies: Record<string, unknown>[] } => {
    const methods: string[] = [];
    const bodies: Record<string, unknown>[] = [];
    const client = new ToolServiceClient({
      apiKey: key,
      baseUrl: base,
      fetch: async (input, init) => {
        if (typeof init?.body === 'string') {
          const body = JSON.parse(init.body) as Record<string, unknown>;
          methods.push(String(body['method']));
          bodies.push(body);
        }
        return fetch(input, init);
      },
    });
    clients.push(client);
    return { client, methods, bodies };
  };

  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    ({ apiKey } = await t.account({ quota: 1_000 }));
  });
  after(async () => {
    for (const client of clients) await client.mcp.close();
    await (t as TestApp | undefined)?.close();
  });

  it('config() is the mcpServers entry: the /mcp URL and the key header, under the name given', () => {
    const client = new ToolServiceClient({ apiKey, baseUrl: `${base}/` });
    assert.deepEqual(client.mcp.config({ name: 'tools' }), { mcpServers: { tools: { url: `${base}/mcp`, headers: { 'X-Api-Key': apiKey } } } });
    assert.deepEqual(Object.keys(client.mcp.config().mcpServers), ['tool-service'], 'a default name');
  });

  it('has a method for every tool tools/list answers, and no other', async () => {
    const { client } = counted(apiKey);
    const { tools } = (await client.mcp.callTool('discover_tools', { query: 'emi loan', pageSize: 1 })) as { tools?: unknown };
    assert.ok(Array.isArray(tools), 'discover_tools answered through callTool');
    // tools/list as the service answers it now, through the official client, compared with the generated names.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const raw = new Client({ name: 'list', version: '1.0.0' });
    await raw.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    const listed = (await raw.listTools()).tools.map((tool) => tool.name).sort();
    await raw.close();
    assert.deepEqual([...MCP_TOOL_NAMES].sort(), listed);
    for (const name of listed) assert.equal(typeof (client.mcp as unknown as Record<string, unknown>)[name], 'function', `client.mcp.${name}`);
  });

  it('plan_task plans a goal on the real service, free, over one reused connection', async () => {
    const { client, methods, bodies } = counted(apiKey);
    const plan = await client.mcp.plan_task({ goal: 'calculate the EMI of a loan' });
    const manifest = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { name: string; version: string };
    const initialize = bodies.find((b) => b['method'] === 'initialize') as { params?: { clientInfo?: unknown } } | undefined;
    assert.deepEqual(initialize?.params?.clientInfo, { name: manifest.name, version: manifest.version }, 'the client names itself as the package it is');
    assert.notEqual(plan.status, 'suggest', JSON.stringify(plan).slice(0, 400));
    assert.match(JSON.stringify(plan['tools'] ?? plan['job']), /calculators_emi_calculator/, JSON.stringify(plan).slice(0, 400));
    const second = await client.mcp.plan_task({ goal: 'convert a docx to pdf' });
    assert.match(JSON.stringify(second['tools'] ?? second['job']), /documents_docx_to_pdf/, JSON.stringify(second).slice(0, 400));
    assert.equal(methods.filter((m) => m === 'initialize').length, 1, `one connection for both calls: ${methods.join(', ')}`);
    assert.equal(methods.filter((m) => m === 'tools/call').length, 2);
    // After close() the next call connects again.
    await client.mcp.close();
    await client.mcp.list_skills();
    assert.equal(methods.filter((m) => m === 'initialize').length, 2, methods.join(', '));
  });

  it('invoke_tool answers the tool result and its credits', async () => {
    const { client } = counted(apiKey);
    const answer = await client.mcp.invoke_tool({ operationId: 'calculators_emi_calculator', input: { principal: 100000, rate: 10, tenure: 12 } });
    assert.equal(answer.status, 'ok');
    // invoke_tool's result is the tool's own REST result, so it is read by the generated type.
    assert.equal((answer['result'] as OperationTypes['calculators_emi_calculator']['result']).emi, 8791.59);
    assert.equal((answer['credits'] as { charged?: unknown }).charged, 1);
  });

  it('an isError answer throws the class of its code: validation, permission, quota', async () => {
    const { client } = counted(apiKey);
    await assert.rejects(
      client.mcp.invoke_tool({ operationId: 'calculators_emi_calculator', input: { principal: 'a lot', rate: 10, tenure: 12 } }),
      (error: unknown) => {
        assert.ok(error instanceof ValidationError, String(error));
        assert.equal(error.code, 'validation_error');
        assert.equal(error.status, 400);
        assert.match(error.detail, /principal/);
        return true;
      },
    );

    const limited = await t.account({ tools: ['calculators_emi_calculator'] });
    await assert.rejects(counted(limited.apiKey).client.mcp.invoke_tool({ operationId: 'calculators_sip_calculator', input: {} }), (error: unknown) => {
      assert.ok(error instanceof PermissionDeniedError, String(error));
      assert.equal(error.code, 'tool_not_allowed');
      assert.equal(error.status, 403);
      return true;
    });

    const broke = await t.account({ quota: 0 });
    await assert.rejects(
      counted(broke.apiKey).client.mcp.invoke_tool({ operationId: 'calculators_emi_calculator', input: { principal: 100000, rate: 10, tenure: 12 } }),
      (error: unknown) => {
        assert.ok(error instanceof QuotaExceededError, String(error));
        assert.equal(error.code, 'quota_exhausted');
        assert.equal(error.status, 429);
        return true;
      },
    );
  });

  it('a key the service refuses throws AuthenticationError from the /mcp 401', async () => {
    const { client } = counted('ts_live_not_a_key');
    await assert.rejects(client.mcp.plan_task({ goal: 'calculate the EMI of a loan' }), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError, String(error));
      assert.ok(error instanceof ToolServiceError);
      assert.equal(error.status, 401);
      return true;
    });
  });

  it('a REST-only client never loads the MCP SDK; the first client.mcp call does (and a refused connection is an APIConnectionError)', () => {
    // A child process records every module it resolves (module.registerHooks, Node >= 22.15).
    const script = `
      import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (r.url.includes('@modelcontextprotocol')) seen.push(r.url); return r; } });
      const { ToolServiceClient } = await import(${JSON.stringify(join(here, '../src/index.ts'))});
      const client = new ToolServiceClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
      client.mcp.config({ name: 'x' });
      const before = seen.length;
      const failed = await client.mcp.plan_task({ goal: 'x' }).then(() => 'answered', (error) => error.constructor.name);
      console.log(JSON.stringify({ before, after: seen.length, failed }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const counts = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { before: number; after: number; failed: string };
    assert.equal(counts.before, 0, 'nothing of @modelcontextprotocol resolved before client.mcp was called');
    assert.ok(counts.after > 0, 'client.mcp loads it when called');
    assert.equal(counts.failed, 'APIConnectionError', 'nothing listens on port 9: a connection error, as REST calls throw');
  });
});
