// The hot path of MCP: a lone tools/call POSTed to the stateless Streamable HTTP endpoint and
// answered as JSON. The SDK's web-standard transport cannot be reused across requests in
// stateless mode, so each such call paid for a new transport, a web Request built from the Node
// request, a web Response read back as text, and a connect and close of the server (close builds
// the SDK's 'Connection closed' McpError, a stack trace per call): together more server CPU than
// the tool call itself. Here a server kept in the pool stays connected to a CallTransport of its
// own, which hands it one request at a time and gives back the response it sends.
//
// Only a request the SDK's transport would accept as it is takes this path: Accept naming both
// application/json and text/event-stream, a JSON Content-Type, a supported MCP-Protocol-Version
// (or none), and a body that parses as one JSON-RPC request with the SDK's own schema. Anything
// else goes through the SDK's transport, which answers it with its own errors, exactly as before.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Caller } from '../accounts/account-store.ts';
import type { InFlightCalls } from './in-flight-calls.ts';
import type { ServerPool } from './server-pool.ts';
import { responseJson } from './tool-result.ts';

export type CallResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
type RequestDispatch = (request: JSONRPCRequest, extra?: MessageExtraInfo) => void;

/**
 * A transport that carries one request at a time from the HTTP route to its server and the
 * server's response back. Notifications the server sends meanwhile (progress, logging) and
 * requests to the client have no stream to go on in a JSON answer: they are dropped, as the
 * SDK's transport drops them in JSON response mode. A client that wants progress asks for it with
 * a progress token, and such a call goes through the SDK's transport as an event stream.
 */
export class CallTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  #pending: { id: JSONRPCRequest['id']; resolve: (response: CallResponse | undefined) => void } | undefined;
  #closed = false;
  #dispatch: RequestDispatch | undefined;

  /**
   * Connects `server` to this transport. A request is then handed straight to the server's request
   * dispatch: the SDK's message router (Protocol.connect's onmessage) first tries the message as
   * a result and as an error response, two schema parses that fail for every request and build
   * their errors (16 µs per call, more than the rest of the SDK's handling). What the router does
   * for a request is exactly that dispatch; without it (another SDK version) the router is used.
   */
  async connectTo(server: McpServer): Promise<void> {
    await server.connect(this);
    const protocol = server.server as unknown as { _onrequest?: RequestDispatch };
    this.#dispatch = typeof protocol._onrequest === 'function' ? protocol._onrequest.bind(protocol) : undefined;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // The server's own message, so its shape is known: a response has an id and a result or an
    // error (the SDK's isJSONRPC*Response guards would run a schema parse of the whole result).
    if (!('id' in message) || !('result' in message || 'error' in message)) return;
    const pending = this.#pending;
    if (pending === undefined || pending.id !== message.id) {
      // The SDK's transport throws here too; the server reports it through onerror.
      throw new Error(`No request ${String(message.id)} is waiting for this response`);
    }
    this.#pending = undefined;
    pending.resolve(message as CallResponse);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A call cut short (its client left, or it was cancelled) has no answer.
    this.#pending?.resolve(undefined);
    this.#pending = undefined;
    this.onclose?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The server's response to `request`, or undefined when the transport was closed first. */
  call(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<CallResponse | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#pending !== undefined) throw new Error('CallTransport carries one request at a time');
    return new Promise((resolve) => {
      this.#pending = { id: request.id, resolve };
      if (this.#dispatch !== undefined) this.#dispatch(request, extra);
      else this.onmessage?.(request, extra);
    });
  }
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The request of a lone tools/call the SDK's transport would accept unchanged, or undefined:
 * then the SDK's transport takes the request and answers it (or refuses it) itself.
 */
export function acceptableToolCall(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  if (!isPlainObject(body) || body['method'] !== 'tools/call') return undefined;
  // A message with a result or an error the SDK's router would take for a response.
  if ('result' in body || 'error' in body) return undefined;
  const accept = headerOf(headers, 'accept');
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headerOf(headers, 'content-type'))) return undefined;
  const version = headerOf(headers, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (plainToolCall(body)) return body;
  // The SDK parses with its message union, whose first member is this schema: a request it takes is
  // parsed as this schema alone would, and anything else goes to the SDK to be answered.
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The common request, checked by hand: a subset of what JSONRPCRequestSchema (strict: these four
 * keys; an id that is a string or a safe integer; params an object, loose) accepts, so whatever
 * passes here the schema takes unchanged. Anything else (a _meta, an odd id) is left to the
 * schema itself. The schema's parse costs ~3.5 µs of every MCP call's server CPU; this, well
 * under one.
 */
function plainToolCall(body: Record<string, unknown>): body is JSONRPCRequest {
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  return params === undefined || (isPlainObject(params) && params['_meta'] === undefined);
}

/** A server kept between lone calls, with the transport it stays connected to. */
export interface KeptServer {
  server: McpServer;
  transport: CallTransport;
}

export interface LoneCallContext {
  reply: FastifyReply;
  caller: Caller;
  authInfo: AuthInfo;
  pool: ServerPool<KeptServer>;
  /** a new server for this caller (when the pool has none) */
  build: () => McpServer;
  inFlight: InFlightCalls;
}

/**
 * Answers a lone tools/call with a server from the pool (or a new one), as the SDK's transport
 * would in JSON response mode: 200 with the JSON-RPC response, or a bare 202 when the call was
 * cancelled (a cancelled call is never answered). A server whose call was cut short (cancelled,
 * or its client left) is closed, which aborts the handler's signal, and not kept.
 */
export async function answerLoneCall(call: JSONRPCRequest, context: LoneCallContext): Promise<FastifyReply> {
  const { reply, caller, pool, inFlight } = context;
  let kept = pool.take(caller);
  if (kept === undefined) {
    const server = context.build();
    const transport = new CallTransport();
    await transport.connectTo(server);
    kept = { server, transport };
  }
  const { server, transport } = kept;
  const tracked = inFlight.track(caller.key.id, call, transport);
  void tracked.cancelled.then(() => server.close());
  const left = () => void server.close();
  reply.raw.once('close', left);
  const response = await Promise.race([transport.call(call, { authInfo: context.authInfo }), tracked.cancelled.then(() => undefined)]);
  // From here on the server is done with this call: neither a late cancel nor the client leaving may close it once it is back in the pool.
  tracked.release();
  reply.raw.off('close', left);
  if (response === undefined) return reply.code(202).send();
  if (!transport.closed) pool.give(caller, kept);
  return reply.code(200).type('application/json').send(responseJson(response));
}
