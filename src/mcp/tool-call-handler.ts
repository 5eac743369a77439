// tools/call with the request parsed once and our answers not parsed again. The SDK's `Server`
// wraps the tools/call handler it is given: it parses the request with CallToolRequestSchema (a
// second time: Protocol's handler entry has just parsed it with the same schema) and then parses
// the handler's answer with CallToolResultSchema, copying it, before it is sent. The answers are
// ours, built by tool-result.ts (or the McpServer's own tool error), and the SDK's client parses
// every answer with that schema anyway, as the tests do through it; the two parses were a tenth of
// invoke_tool's server CPU. Here the McpServer's handler is installed as Protocol installs a
// handler: the request parsed once with the same schema (an invalid one refused as before), the
// capability checked, the answer sent as the handler gave it. A request for a task (params.task)
// still goes through the SDK's own wrapper, which checks a task's answer. Any other SDK, whose
// handlers this cannot find, keeps its own.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getMethodLiteral } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';

type RequestHandler = (request: { params?: Record<string, unknown> | undefined }, extra: unknown) => Promise<unknown>;
type SetRequestHandler = (schema: unknown, handler: (request: never, extra: never) => unknown) => void;

type ServerInfo = ConstructorParameters<typeof McpServer>[0];
type ServerOptions = NonNullable<ConstructorParameters<typeof McpServer>[1]>;

/**
 * A McpServer whose tools/call handler is the lean one. The McpServer sets its tool handlers in
 * its constructor when the options declare the tools capability, before anything could be
 * installed, so the capability is declared here after the hook, and the handlers are set by the
 * first registerTool (which declares it too).
 */
export function createMcpServer(info: ServerInfo, options: ServerOptions): McpServer {
  const { tools, ...capabilities } = options.capabilities ?? {};
  const server = new McpServer(info, { ...options, capabilities });
  leanToolCalls(server);
  if (tools !== undefined) server.server.registerCapabilities({ tools });
  return server;
}

/** Installs the lean tools/call handler on `server`, whose tool handlers are not set yet. */
function leanToolCalls(server: McpServer): void {
  const inner = server.server as unknown as { setRequestHandler: SetRequestHandler; _requestHandlers?: Map<string, RequestHandler> };
  const sdkSet = inner.setRequestHandler.bind(inner);
  const protocolSet = (Protocol.prototype as unknown as { setRequestHandler?: SetRequestHandler }).setRequestHandler;
  inner.setRequestHandler = (schema, handler) => {
    sdkSet(schema, handler);
    const handlers = inner._requestHandlers;
    if (getMethodLiteral(schema as Parameters<typeof getMethodLiteral>[0]) !== 'tools/call' || handlers === undefined || protocolSet === undefined) return;
    const wrapped = handlers.get('tools/call');
    protocolSet.call(inner, schema, handler);
    const lean = handlers.get('tools/call');
    if (wrapped === undefined || lean === undefined || lean === wrapped) return;
    handlers.set('tools/call', (request, extra) => (request.params?.['task'] === undefined ? lean : wrapped)(request, extra));
  };
}
