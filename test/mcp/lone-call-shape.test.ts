// acceptableToolCall (src/mcp/lone-call.ts) takes a lone tools/call onto the pooled path only when
// the SDK's JSONRPCRequestSchema would take it, and hands on what that parse would give. Its
// hand-made check of the common shape must never accept more than the schema: compared here, body
// by body, with the schema's own answer, over the shapes a client (or a hostile one) can send.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSONRPCRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { acceptableToolCall } from '../../src/mcp/lone-call.ts';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
const call = (extra: Record<string, unknown> = {}, params: unknown = { name: 'invoke_tool', arguments: { operationId: 'x' } }) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra });

const BODIES: [string, unknown][] = [
  ['the common call', call()],
  ['a string id', call({ id: 'abc' })],
  ['an empty string id', call({ id: '' })],
  ['id 0 and negative ids', call({ id: -7 })],
  ['the largest safe integer id', call({ id: Number.MAX_SAFE_INTEGER })],
  ['an id past the safe integers', call({ id: 2 ** 60 })],
  ['a fractional id', call({ id: 1.5 })],
  ['a null id', call({ id: null })],
  ['no id (a notification)', (() => { const { id: _, ...rest } = call(); return rest; })()],
  ['an object id', call({ id: { n: 1 } })],
  ['jsonrpc 1.0', call({ jsonrpc: '1.0' })],
  ['no jsonrpc', (() => { const { jsonrpc: _, ...rest } = call(); return rest; })()],
  ['an extra top-level key', call({ extra: true })],
  ['a __proto__-named own key', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{},"__proto__":{"x":1}}')],
  ['no params', (() => { const { params: _, ...rest } = call(); return rest; })()],
  ['params null', call({}, null)],
  ['params an array', call({}, [1, 2])],
  ['params a string', call({}, 'x')],
  ['params with extra keys (loose)', call({}, { name: 'invoke_tool', arguments: {}, other: [1] })],
  ['params with a _meta progress token', call({}, { name: 'invoke_tool', _meta: { progressToken: 'p1' } })],
  ['params with a bad _meta', call({}, { name: 'invoke_tool', _meta: { progressToken: { no: 1 } } })],
  ['params with _meta null', call({}, { name: 'invoke_tool', _meta: null })],
  ['a result key too', call({ result: {} })],
];

describe('acceptableToolCall against JSONRPCRequestSchema', () => {
  for (const [name, body] of BODIES) {
    it(`${name}: the same verdict and the same request as the schema`, () => {
      const parsed = JSONRPCRequestSchema.safeParse(body);
      const taken = acceptableToolCall(HEADERS, body);
      // A message carrying a result is a response to the SDK's router: never taken, whatever the schema says.
      const expected = parsed.success && !(typeof body === 'object' && body !== null && 'result' in body) ? parsed.data : undefined;
      assert.deepEqual(taken, expected);
    });
  }
  it('the common call is actually taken (not every body refused)', () => {
    assert.ok(acceptableToolCall(HEADERS, call()));
    assert.ok(acceptableToolCall(HEADERS, call({ id: 'abc' })));
  });
});
