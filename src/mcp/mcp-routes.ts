// The MCP surface on the one Fastify app, built on the official SDK's transports:
//   POST /mcp, POST /mcp/http   Streamable HTTP, stateless: every request gets a fresh transport
//                               and a server built for its caller (a lone tools/call may get one
//                               kept from that key's earlier call: server-pool.ts), so any process
//                               on the same database answers any request.
//   GET /mcp                    the legacy HTTP+SSE transport: an SSE stream whose `endpoint` event
//                               names POST /mcp/messages?sessionId=…. That session lives in the
//                               process holding the stream (the transport's design), so its POSTs
//                               must reach the same process; a GET carrying Mcp-Session-Id is
//                               Streamable HTTP's, which keeps no sessions here: 405.
// Every request needs an API key (X-Api-Key, or Authorization: Bearer for clients that can only
// send that): 401 JSON before any MCP processing. A browser Origin other than the service's own
// is refused (DNS-rebinding protection); the SDK checks the protocol-version header.
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Readable } from 'node:stream';
import type { Caller } from '../accounts/account-store.ts';
import type { Catalog } from '../core/catalog.ts';
import { errorEnvelope } from '../core/envelope.ts';
import { ServiceError, isServiceError } from '../core/errors.ts';
import { fromFastifyError } from '../rest/http-errors.ts';
import { toServiceError, type Invoker } from '../core/invoke.ts';
import { registerMetaTools } from './meta-tools.ts';
import { ServerPool } from './server-pool.ts';
import { registerSkillTools } from './skill-tools.ts';
import { registerFeatureTools } from './feature-tools.ts';
import { registerJobTools } from './job-tools.ts';
import type { JobService } from '../runs/workflow/job-service.ts';
import { registerCodingJobTools } from './coding-job-tools.ts';
import type { FeatureMemory } from '../runs/feature-memory/feature-memory.ts';
import type { CodingJobStore } from '../runs/coding-jobs/coding-job-store.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import type { PlaybookRegistry } from '../runs/playbooks/playbook-registry.ts';
import type { McpRunServices } from './run-tools.ts';

export interface McpRouteOptions {
  catalog: Catalog;
  invoker: Invoker;
  publicBaseUrl: string;
  version: string;
  /** async runs, get_run and fetch_payload (src/runs/) */
  runs?: McpRunServices;
  /** file sources for file tools over MCP (see file-source.ts) */
  files?: { pipeline: FilePipeline };
  /** the playbooks, for list_skills and load_skill */
  skills?: PlaybookRegistry;
  /** recall_context, capture_feature and the other feature-memory tools */
  featureMemory?: FeatureMemory;
  /** job_start, job_status, job_submit_check */
  codingJobs?: CodingJobStore;
  /** plan_task, solve_task, run_playbook, run_workflow, verify_task */
  jobs?: JobService;
  /** the largest MCP message in bytes (a base64 file rides inside one); REST's body limit applies elsewhere */
  bodyLimitBytes?: number;
  /** extra capabilities registered on every server (list_skills, get_run… as they come) */
  extend?: (server: McpServer, caller: Caller, request: FastifyRequest) => void;
}

const INSTRUCTIONS =
  'Utility tool service. For an outcome (an SEO audit, security headers and TLS, ship readiness, page speed, a competitor comparison): ' +
  'plan_task, then solve_task or run_playbook, apply only loop.nextActions[0] in your workspace, then verify_task with the previous result as ' +
  'baseline until loop.gate is pass or loop.stop is set. For one operation: discover_tools, get_tool_schema, invoke_tool. ' +
  'Calls are billed from the account credits as REST calls are; planning, search, schemas and feature memory are free.';

function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key) return key;
  const auth = request.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  return bearer?.[1];
}

/** JSON-RPC 2.0 codes: -32700 the body is not JSON; -32600 it is not an acceptable request (too large, wrong media type). */
function sendRpcError(reply: FastifyReply, request: FastifyRequest, err: FastifyError, bodyLimit: number | undefined): FastifyReply {
  const error = isServiceError(err) ? err : fromFastifyError(err, request, bodyLimit ?? 0);
  if (error.status >= 500) return sendError(reply, request, toServiceError(error, request.log));
  const code = error.error === 'invalid_json' ? -32700 : -32600;
  const hint =
    error.error === 'payload_too_large'
      ? ` An MCP message may hold at most ${bodyLimit ?? 0} bytes: give a large file as {url} (the service fetches it, up to the upload limit) or send it to the tool's REST endpoint as a multipart upload.`
      : ` ${error.detail}`;
  return reply
    .code(error.status)
    .header('X-Request-Id', request.id)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: null, error: { code, message: `${error.message}.${hint}`, data: { error: error.error, requestId: request.id } } });
}

function sendError(reply: FastifyReply, request: FastifyRequest, error: ServiceError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send(errorEnvelope(error, request.id));
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostnameOf(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return null;
  }
}

/**
 * A browser page on another site must not drive the API from the user's machine (DNS
 * rebinding: evil.example resolving to 127.0.0.1 sends Host and Origin evil.example, which agree
 * with each other, so agreement proves nothing). A request with an Origin is accepted only from the
 * service's own public origin, or, on a loopback address, from a loopback page (a local client's
 * browser UI). Clients that are not browsers send no Origin.
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined, publicBaseUrl: string): boolean {
  if (origin === undefined) return true;
  if (origin === new URL(publicBaseUrl).origin) return true;
  let originHost: string;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    return false;
  }
  const host = hostnameOf(hostHeader);
  return host !== null && LOOPBACK_NAMES.has(host) && LOOPBACK_NAMES.has(originHost);
}

/** Whether a message (or a batch) carries a progress token, so its answer must be an event stream. */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/** A lone tools/call request, the hot path: it may be answered by a server kept from an earlier request. */
function isLoneToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'tools/call';
}

/** The request a server is answering: its tools read these when called, not when registered. */
interface RequestSlot {
  log: FastifyBaseLogger;
  requestId: string;
}

interface BuiltServer {
  server: McpServer;
  slot: RequestSlot;
}

/** Idle servers kept for lone tools/calls, across all keys (each holds its tools' closures: a few KB). */
const POOLED_SERVERS = 64;

/** The web Request the SDK's transport reads: method, URL and headers; the body comes parsed. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  const raw = request.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: request.method, headers });
}

export function registerMcpRoutes(app: FastifyInstance, options: McpRouteOptions): void {
  const sse = new Map<string, { transport: SSEServerTransport; accountId: string }>();

  // One validator for every server: the SDK builds a new Ajv (with its formats) per server
  // otherwise, which cost more than the whole tools/call. It serves only elicitation, which
  // these tools do not use.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  // Tools take the request's logger and id through getters on the slot, so that a server kept in
  // the pool answers each request under that request's own id: a tool must read ctx.log and
  // ctx.requestId when called, never copy them at registration.
  const buildServer = (caller: Caller, request: FastifyRequest): BuiltServer => {
    const slot: RequestSlot = { log: request.log, requestId: request.id };
    const server = new McpServer({ name: 'tool-service', version: options.version }, { instructions: INSTRUCTIONS, capabilities: { tools: {} }, jsonSchemaValidator });
    registerMetaTools(server, { caller, catalog: options.catalog, invoker: options.invoker, get log() { return slot.log; }, get requestId() { return slot.requestId; }, runs: options.runs, files: options.files });
    if (options.skills) registerSkillTools(server, options.skills);
    if (options.featureMemory) registerFeatureTools(server, { caller, memory: options.featureMemory });
    if (options.codingJobs) registerCodingJobTools(server, { caller, jobs: options.codingJobs });
    if (options.jobs) registerJobTools(server, { caller, jobs: options.jobs, runs: options.runs, get log() { return slot.log; }, get requestId() { return slot.requestId; } });
    options.extend?.(server, caller, request);
    return { server, slot };
  };
  const pool = new ServerPool<BuiltServer>(POOLED_SERVERS);

  /** The caller, or the 401/403 already sent. */
  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<Caller | undefined> => {
    if (!originAllowed(request.headers.origin, request.headers.host, options.publicBaseUrl)) {
      sendError(reply, request, new ServiceError(403, 'origin_not_allowed', 'Requests from this Origin are not accepted', { detail: `Origin ${request.headers.origin} is not the service's own` }));
      return undefined;
    }
    try {
      const apiKey = apiKeyOf(request);
      return options.invoker.cachedCaller(apiKey) ?? (await options.invoker.authenticate(apiKey));
    } catch (err) {
      sendError(reply, request, toServiceError(err, request.log));
      return undefined;
    }
  };

  const streamable = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await admit(request, reply);
    if (!caller) return reply;
    const progress = wantsProgress(request.body);
    // Only a lone tools/call answered as JSON reuses a server: initialize, lists, batches and
    // streams get a fresh one, as before, so nothing a client declares outlives its request.
    // An `extend` hook is handed the request itself, so its servers are never reused.
    const reusable = !progress && options.extend === undefined && isLoneToolCall(request.body);
    const built = (reusable ? pool.take(caller) : undefined) ?? buildServer(caller, request);
    const { server } = built;
    built.slot.log = request.log;
    built.slot.requestId = request.id;
    // A plain JSON answer unless the client asked for progress (which needs the event stream):
    // framing one answer as a stream costs more than the call itself for most tools.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !progress });
    let answered = false;
    reply.raw.once('close', () => {
      // The client went away before the answer: the SDK aborts in-flight handlers on close, and
      // this server is not reused (its handlers may still be running).
      if (!reply.raw.writableFinished) void server.close();
      // Answered whole: nothing is in flight. Closing detaches the transport so the server can
      // take the next request's; a server that is not kept is left to the collector unclosed
      // (closing would only build the SDK's 'Connection closed' error, a stack trace per request).
      else if (reusable && answered) void server.close().then(() => pool.give(caller, built));
    });
    await server.connect(transport);
    // The SDK's web-standard transport, driven directly: the Request carries only what it reads
    // (method, URL, headers) and the body Fastify already parsed, and its Response goes back
    // through Fastify as one write with a Content-Length. The Node wrapper converted the whole
    // Node request to a web one and wrote the answer back chunked, several writes per answer.
    const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    if (response.body === null) return reply.send();
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) return reply.send(Readable.fromWeb(response.body as never));
    const text = await response.text();
    answered = response.status === 200;
    return reply.send(text);
  };

  // A body the HTTP layer cannot take (not JSON, over the limit) is answered as JSON-RPC says:
  // an error object with id null, so an MCP client reads the reason as it reads any protocol error.
  const limit = options.bodyLimitBytes;
  const post = { ...(limit === undefined ? {} : { bodyLimit: limit }), errorHandler: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendRpcError(reply, request, err, limit) };
  app.post('/mcp', post, streamable);
  app.post('/mcp/http', post, streamable);

  app.get('/mcp', async (request, reply) => {
    if (request.headers['mcp-session-id'] !== undefined) {
      return sendError(reply.header('Allow', 'POST'), request, new ServiceError(405, 'method_not_allowed', 'This Streamable HTTP endpoint keeps no sessions: send every message as a POST', { detail: 'Stateless server: GET streams and DELETE are not used' }));
    }
    const caller = await admit(request, reply);
    if (!caller) return reply;
    reply.hijack();
    const transport = new SSEServerTransport('/mcp/messages', reply.raw);
    sse.set(transport.sessionId, { transport, accountId: caller.account.id });
    const { server } = buildServer(caller, request);
    reply.raw.on('close', () => {
      sse.delete(transport.sessionId);
      void server.close();
    });
    await server.connect(transport);
    return reply;
  });

  app.post('/mcp/messages', post, async (request, reply) => {
    const caller = await admit(request, reply);
    if (!caller) return reply;
    const sessionId = (request.query as Record<string, unknown>)['sessionId'];
    const session = typeof sessionId === 'string' ? sse.get(sessionId) : undefined;
    // Another account's session is as unknown as a session that does not exist.
    if (!session || session.accountId !== caller.account.id) {
      return sendError(reply, request, new ServiceError(404, 'session_not_found', 'No SSE session with this sessionId here', { detail: 'Open GET /mcp again; an SSE session lives in the process holding its stream' }));
    }
    reply.hijack();
    await session.transport.handlePostMessage(request.raw, reply.raw, request.body);
    return reply;
  });

  app.delete('/mcp', async (request, reply) =>
    sendError(reply.header('Allow', 'POST'), request, new ServiceError(405, 'method_not_allowed', 'This Streamable HTTP endpoint keeps no sessions to delete')),
  );
}
