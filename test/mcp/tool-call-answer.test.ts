// What a tools/call answer costs the server, without changing a byte of it: responseJson
// (src/mcp/tool-result.ts) writes a result() success with its text as the structured content's
// JSON, and must equal JSON.stringify of the same response whatever the result holds; the lean
// tools/call handler (src/mcp/tool-call-handler.ts) parses a request once and sends the answer as
// the tool built it, and still refuses what the SDK refused, through the SDK's own Client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorResult, responseJson, result } from '../../src/mcp/tool-result.ts';
import { createMcpServer } from '../../src/mcp/tool-call-handler.ts';

const response = (result: unknown, id: string | number = 7) => ({ result, jsonrpc: '2.0' as const, id });

const STRUCTURED: [string, Record<string, unknown>][] = [
  ['a small result', { status: 'ok', operationId: 'calculators_emi_calculator', result: { emi: 8791.59 }, warnings: [] }],
  ['quotes, backslashes, control characters and unicode', { text: 'a "quoted" \\ back\nslash\t\u0001 é 漢字 😀 \u2028\u2029', lone: '\ud800' }],
  ['nested arrays, nulls, numbers and undefined fields', { a: [1, -0, 1e21, 1.5e-7, null, { b: undefined, c: [] }], d: undefined, e: null, f: Number.NaN }],
  ['a __proto__-named own key from parsed input', JSON.parse('{"__proto__":{"x":1},"y":"z"}') as Record<string, unknown>],
  ['a toJSON value', { when: new Date(0), big: { toJSON: () => 'custom' } }],
  ['an empty object', {}],
];

describe('responseJson: byte for byte what JSON.stringify writes', () => {
  for (const [name, structured] of STRUCTURED) {
    for (const id of [7, 'req-"1"', 0, Number.MAX_SAFE_INTEGER]) {
      it(`${name}, id ${JSON.stringify(id)}`, () => {
        const res = response(result(structured), id);
        assert.equal(responseJson(res), JSON.stringify(res));
      });
    }
  }

  it('an error result, a result with more keys, a changed text or another object: stringified as they are', () => {
    const built = result({ status: 'ok', n: 1 });
    const cases: unknown[] = [
      errorResult('rate_limited', 'slow down', { retryAfterSeconds: 3 }),
      { ...built, isError: false },
      { content: [{ type: 'text', text: '{"status":"changed"}' }], structuredContent: built.structuredContent },
      { content: built.content, structuredContent: { ...built.structuredContent } },
      { content: [...built.content, { type: 'text', text: 'more' }], structuredContent: built.structuredContent },
      { content: [{ ...built.content[0], annotations: { priority: 1 } }], structuredContent: built.structuredContent },
      { structuredContent: built.structuredContent, content: built.content },
      { content: [{ type: 'text', text: 'plain' }] },
    ];
    for (const value of cases) {
      const res = response(value);
      assert.equal(responseJson(res), JSON.stringify(res));
    }
    const shuffled = { jsonrpc: '2.0' as const, id: 1, result: built };
    assert.equal(responseJson(shuffled), JSON.stringify(shuffled));
  });

  it('the fast form is the one taken for a result() success (the structured content is not serialized again)', () => {
    let reads = 0;
    const structured = { status: 'ok' };
    const built = result(structured);
    Object.defineProperty(structured, 'status', { get: () => { reads++; return 'ok'; }, enumerable: true });
    const written = responseJson(response(built));
    assert.equal(reads, 0, 'the structured content was serialized again');
    assert.deepEqual(JSON.parse(written), { result: { content: [{ type: 'text', text: '{"status":"ok"}' }], structuredContent: { status: 'ok' } }, jsonrpc: '2.0', id: 7 });
  });
});

describe('the lean tools/call handler, through the SDK Client', () => {
  let client: Client;
  let server: McpServer;
  const sent: JSONRPCMessage[] = [];

  before(async () => {
    server = createMcpServer({ name: 'lean', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { inputSchema: { word: z.string().max(5) }, outputSchema: { word: z.string() } }, async ({ word }) => result({ word }));
    server.registerTool('broken', { inputSchema: { n: z.number() } }, async () => ({ content: [{ type: 'nonsense' }] }) as never);
    server.registerTool('throws', {}, async () => {
      throw new Error('the tool failed');
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const send = serverSide.send.bind(serverSide);
    serverSide.send = async (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    await server.connect(serverSide);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
  });

  after(async () => {
    await client.close();
    await server.close();
  });

  it('answers a call with the answer the tool built, checked by the client against its schema and outputSchema', async () => {
    await client.listTools();
    const answer = await client.callTool({ name: 'echo', arguments: { word: 'hi' } });
    assert.deepEqual(answer.structuredContent, { word: 'hi' });
    assert.deepEqual(answer.content, [{ type: 'text', text: '{"word":"hi"}' }]);
  });

  it('refuses arguments the tool schema refuses, as a tool error', async () => {
    const answer = await client.callTool({ name: 'echo', arguments: { word: 'far too long' } });
    assert.equal(answer.isError, true);
    assert.match(JSON.stringify(answer.content), /Input validation error/);
  });

  it('refuses a request the schema refuses (no name) with a JSON-RPC error, as the SDK does', async () => {
    await assert.rejects(client.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema), /name|Invalid/i);
  });

  it('a tool that throws is the McpServer\'s tool error, as before', async () => {
    const answer = await client.callTool({ name: 'throws', arguments: {} });
    assert.equal(answer.isError, true);
    assert.match(JSON.stringify(answer.content), /the tool failed/);
  });

  it('a malformed answer is no longer fixed on the server: the client refuses it', async () => {
    const before = sent.length;
    await assert.rejects(client.callTool({ name: 'broken', arguments: { n: 1 } }));
    const last = sent.slice(before).find((m) => 'result' in m) as { result: { content: { type: string }[] } } | undefined;
    assert.equal(last?.result.content[0]?.type, 'nonsense', 'the server sent what the tool returned');
  });
});
