// The MCP surface on the one Fastify app, built on the official SDK's transports:
//   POST /mcp, POST /mcp/http   Streamable HTTP, stateless: every request gets a fresh transport
//                               and a server built for its caller (a lone tools/call may get one
//                               kept from that key's earlier call, with its own transport:
//                               lone-call.ts, server-pool.ts), so any process
//                               on the same database answers any request. A client's
//                               notifications/cancelled, in a POST of its own, reaches the call
//                               it names through in-flight-calls.ts.
//   GET /mcp                    the legacy HTTP+SSE transport: an SSE stream whose `endpoint` event
//                               names POST /mcp/messages?sessionId=…. That session lives in the
//                               process holding the stream (the transport's design), so its POSTs
//                               must reach the same process. A GET from a Streamable HTTP client
//                               (it carries MCP-Protocol-Version or Mcp-Session-Id) asks for the
//                               standalone stream, which this stateless server does not offer:
//                               405 with Allow: POST, as the spec allows. A session is bound to
//                               its key, capped and reaped (sse-sessions.ts).
// Every request needs an API key (X-Api-Key, or Authorization: Bearer for clients that can only
// send that): 401 JSON in the onRequest hook, before the body is read or any MCP processing. A
// browser Origin other than the service's own is refused (DNS-rebinding protection); the SDK
// checks the protocol-version header. Every message runs as the caller of its own request
// (call-scope.ts), through the tool guard (tool-guard.ts): account state and rate limit per call.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Readable } from 'node:stream';
import type { AccountStore, Caller } from '../accounts/account-store.ts';
import type { RequestLimiter } from '../accounts/rate-limiter.ts';
import type { Catalog } from '../core/catalog.ts';
import { errorEnvelope } from '../core/envelope.ts';
import { ServiceError, isServiceError } from '../core/errors.ts';
import { fromFastifyError } from '../rest/http-errors.ts';
import { toServiceError } from '../core/call-failures.ts';
import type { Invoker } from '../core/invoke.ts';
import { registerMetaTools } from './meta-tools.ts';
import { ServerPool } from './server-pool.ts';
import { acceptableToolCall, answerLoneCall, type KeptServer } from './lone-call.ts';
import { currentScope, scopeAuthInfo, type CallScope } from './call-scope.ts';
import { DEFAULT_SSE_SESSIONS, SseSessions, type SseSessionSettings } from './sse-sessions.ts';
import { InFlightCalls } from './in-flight-calls.ts';
import { guardTools } from './tool-guard.ts';
import { registerSkillTools } from './skill-tools.ts';
import { registerFeatureTools } from './feature-tools.ts';
import { registerJobTools } from './job-tools.ts';
import { compactToolList } from './tool-list.ts';
import { createMcpServer } from './tool-call-handler.ts';
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
  /** the per-minute limiter invoke uses: free tools count against it too (tool-guard.ts) */
  rateLimiter: RequestLimiter;
  /** where an open SSE session learns that its key was revoked */
  accounts: Pick<AccountStore, 'getKey'>;
  /** caps and idle time of legacy SSE sessions */
  sse?: SseSessionSettings;
  publicBaseUrl: string;
  version: string;
  /** async runs, get_run and fetch_payload (src/runs/) */
  runs?: McpRunServices;
  /** file sources for file tools over MCP (see file-source.ts) */
  files?: { pipeline: FilePipeline };
  /** how often a long invoke_tool reports progress (MCP_PROGRESS_INTERVAL_MS) */
  progressIntervalMs?: number;
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
  'Calls are billed from the account credits as REST calls are; planning, search, schemas and feature memory cost no credits; every call counts against the per-minute rate limit.';

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

/** Idle servers kept for lone tools/calls, across all keys (each holds its tools' closures: a few KB). */
const POOLED_SERVERS = 64;

/** The web Request the SDK's transport reads: method, URL and headers; the body comes parsed. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  const raw = request.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: request.method, headers });
}

/** A refusal sent from a hook, before the body was read: the connection is not kept to drain a body nobody reads. */
function refuseEarly(reply: FastifyReply, request: FastifyRequest, error: ServiceError): FastifyReply {
  const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (hasBody) reply.header('Connection', 'close');
  return sendError(reply, request, error);
}

function sessionIdOf(request: FastifyRequest): string | undefined {
  const id = (request.query as Record<string, unknown> | undefined)?.['sessionId'];
  return typeof id === 'string' ? id : undefined;
}

export function registerMcpRoutes(app: FastifyInstance, options: McpRouteOptions): void {
  // A key that is gone (revoked, or removed with its account) ends its sessions.
  const keyGone = async (keyId: string) => {
    const key = await options.accounts.getKey(keyId);
    return key === undefined || key.revokedAt !== null;
  };
  const sessions = new SseSessions(options.sse ?? DEFAULT_SSE_SESSIONS, keyGone);
  // An open stream would hold the server's close for ever: end them first.
  app.addHook('preClose', async () => sessions.closeAll());
  /** The caller each admitted request was authenticated as, by the onRequest hook. */
  const callers = new WeakMap<FastifyRequest, Caller>();
  const callerOf = (request: FastifyRequest): Caller => {
    const caller = callers.get(request);
    if (!caller) throw new Error('MCP route without its admission hook');
    return caller;
  };

  // One validator for every server: the SDK builds a new Ajv (with its formats) per server
  // otherwise, which cost more than the whole tools/call. It serves only elicitation, which
  // these tools do not use.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const guard = { invoker: options.invoker, rateLimiter: options.rateLimiter };
  // Tools read the caller, logger and request id of the call running now (call-scope.ts), so a
  // server kept in the pool or serving an SSE session answers each message as that message's own
  // caller: a tool must read ctx.caller, ctx.log and ctx.requestId when called, never copy them
  // at registration. Only the key's account id may be read at registration: it never changes.
  const buildServer = (caller: Caller, request: FastifyRequest): McpServer => {
    const built: CallScope = { caller, log: request.log, requestId: request.id };
    const scope = () => currentScope(built);
    const server = createMcpServer({ name: 'tool-service', version: options.version }, { instructions: INSTRUCTIONS, capabilities: { tools: {} }, jsonSchemaValidator });
    guardTools(server, guard);
    /** `fields` with caller, log and requestId read from the call running now. */
    const withScope = <T extends object>(fields: T): T & CallScope =>
      Object.defineProperties(fields, {
        caller: { get: () => scope().caller, enumerable: true },
        log: { get: () => scope().log, enumerable: true },
        requestId: { get: () => scope().requestId, enumerable: true },
      }) as T & CallScope;
    registerMetaTools(server, withScope({ catalog: options.catalog, invoker: options.invoker, runs: options.runs, files: options.files, progressIntervalMs: options.progressIntervalMs }));
    if (options.skills) registerSkillTools(server, options.skills);
    if (options.featureMemory) registerFeatureTools(server, withScope({ memory: options.featureMemory }));
    if (options.codingJobs) registerCodingJobTools(server, withScope({ jobs: options.codingJobs }));
    if (options.jobs) registerJobTools(server, withScope({ jobs: options.jobs, runs: options.runs }));
    options.extend?.(server, caller, request);
    compactToolList(server);
    return server;
  };
  const pool = new ServerPool<KeptServer>(POOLED_SERVERS);
  const inFlight = new InFlightCalls();

  /** The caller, or the 401/403 already sent. */
  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<Caller | undefined> => {
    if (!originAllowed(request.headers.origin, request.headers.host, options.publicBaseUrl)) {
      refuseEarly(reply, request, new ServiceError(403, 'origin_not_allowed', 'Requests from this Origin are not accepted', { detail: `Origin ${request.headers.origin} is not the service's own` }));
      return undefined;
    }
    try {
      return await options.invoker.authenticate(apiKeyOf(request));
    } catch (err) {
      // A message posted with its session's revoked key: that session ends now, not at the next sweep.
      const sessionId = request.url.startsWith('/mcp/messages') ? sessionIdOf(request) : undefined;
      if (isServiceError(err) && err.error === 'api_key_revoked' && sessionId !== undefined) void sessions.closeIfRevoked(sessionId);
      refuseEarly(reply, request, toServiceError(err, request.log));
      return undefined;
    }
  };

  /**
   * onRequest: the key is checked before Fastify reads the body, so a request without a valid key
   * is answered 401 without its (up to MCP_BODY_LIMIT_BYTES) body being received or parsed. A
   * known key comes from the cache without a promise: the hot path stays synchronous.
   */
  const admission = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const cached = originAllowed(request.headers.origin, request.headers.host, options.publicBaseUrl) ? options.invoker.cachedCaller(apiKeyOf(request)) : undefined;
    if (cached) {
      callers.set(request, cached);
      done();
      return;
    }
    admit(request, reply).then((caller) => {
      if (!caller) return; // answered: Fastify ends the request without reading the body
      callers.set(request, caller);
      done();
    }, (err: unknown) => done(err instanceof Error ? err : new Error(String(err))));
  };

  const streamable = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(request);
    const progress = wantsProgress(request.body);
    const authInfo = scopeAuthInfo({ caller, log: request.log, requestId: request.id });
    // The hot path: a lone tools/call answered as JSON, by a server kept for this key (lone-call.ts).
    // Initialize, lists, batches, streams and anything the SDK would refuse get a fresh server on
    // the SDK's own transport, so nothing a client declares outlives its request. An `extend`
    // hook is handed the request itself, so its servers are never reused.
    const lone = !progress && options.extend === undefined ? acceptableToolCall(request.headers, request.body) : undefined;
    if (lone !== undefined) return answerLoneCall(lone, { reply, caller, authInfo, pool, build: () => buildServer(caller, request), inFlight });
    const server = buildServer(caller, request);
    // A plain JSON answer unless the client asked for progress (which needs the event stream).
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !progress });
    // A cancel of a call another POST carries goes to that call's transport; this POST then goes on as usual.
    inFlight.cancel(caller.key.id, request.body, authInfo);
    const tracked = inFlight.track(caller.key.id, request.body, transport);
    // A cancelled call is never answered (the SDK drops its result): its server is closed, which
    // ends an event stream; a JSON answer that will never come is replaced by a bare 202 below.
    void tracked.cancelled.then(() => server.close());
    reply.raw.once('close', () => {
      tracked.release();
      // The client went away before the answer: the SDK aborts in-flight handlers on close. A
      // server answered whole is left to the collector unclosed (closing would only build the
      // SDK's 'Connection closed' error, a stack trace per request).
      if (!reply.raw.writableFinished) void server.close();
    });
    await server.connect(transport);
    // The SDK's web-standard transport, driven directly: the Request carries only what it reads
    // (method, URL, headers) and the body Fastify already parsed, and its Response goes back
    // through Fastify as one write with a Content-Length. The Node wrapper converted the whole
    // Node request to a web one and wrote the answer back chunked, several writes per answer.
    const response = await Promise.race([transport.handleRequest(webRequestOf(request), { parsedBody: request.body, authInfo }), tracked.cancelled.then(() => undefined)]);
    if (response === undefined) return reply.code(202).send();
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    if (response.body === null) return reply.send();
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) return reply.send(Readable.fromWeb(response.body as never));
    return reply.send(await response.text());
  };

  // A body the HTTP layer cannot take (not JSON, over the limit) is answered as JSON-RPC says:
  // an error object with id null, so an MCP client reads the reason as it reads any protocol error.
  const limit = options.bodyLimitBytes;
  const post = {
    ...(limit === undefined ? {} : { bodyLimit: limit }),
    onRequest: admission,
    errorHandler: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendRpcError(reply, request, err, limit),
  };
  app.post('/mcp', post, streamable);
  app.post('/mcp/http', post, streamable);

  app.get('/mcp', { onRequest: admission }, async (request, reply) => {
    // A legacy SSE client opens its stream before it has negotiated a version, so it sends neither header.
    if (request.headers['mcp-session-id'] !== undefined || request.headers['mcp-protocol-version'] !== undefined) {
      return sendError(
        reply.header('Allow', 'POST'),
        request,
        new ServiceError(405, 'method_not_allowed', 'This Streamable HTTP endpoint offers no standalone stream and keeps no sessions: send every message as a POST', {
          detail: 'Stateless server: answers come on each POST (an event stream when you ask for progress); GET /mcp without MCP-Protocol-Version is the legacy HTTP+SSE transport',
        }),
      );
    }
    const caller = callerOf(request);
    // Checked and opened with no await in between, so concurrent GETs cannot pass the cap together.
    const refused = sessions.refusal(caller.key.id);
    if (refused) return sendError(reply, request, refused);
    reply.hijack();
    const transport = new SSEServerTransport('/mcp/messages', reply.raw);
    const id = transport.sessionId;
    sessions.open({ id, transport, keyId: caller.key.id, accountId: caller.account.id });
    const server = buildServer(caller, request);
    reply.raw.on('close', () => {
      sessions.closed(id);
      void server.close();
    });
    await server.connect(transport);
    return reply;
  });

  // A message into a session: the key is checked, and the session found and matched to it, in the
  // hook, before the body is read. Then the message runs as this request's caller (authInfo), and
  // its answer goes out on the session's stream; the POST itself is answered 202.
  const messageAdmission = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    admission(request, reply, (err) => {
      if (err) return done(err);
      const caller = callerOf(request);
      const sessionId = sessionIdOf(request);
      const session = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (!session) {
        refuseEarly(reply, request, new ServiceError(404, 'session_not_found', 'No SSE session with this sessionId here', { detail: 'Open GET /mcp again; an SSE session lives in the process holding its stream, and ends when idle' }));
        return;
      }
      if (session.keyId !== caller.key.id) {
        refuseEarly(reply, request, new ServiceError(403, 'session_key_mismatch', 'This SSE session was opened with another API key', { detail: 'Send every message of a session with the key that opened it (GET /mcp), or open a session with this key' }));
        return;
      }
      done();
    });
  };

  app.post('/mcp/messages', { ...post, onRequest: messageAdmission }, async (request, reply) => {
    const caller = callerOf(request);
    const sessionId = sessionIdOf(request) ?? '';
    const session = sessions.get(sessionId);
    if (!session) {
      return sendError(reply, request, new ServiceError(404, 'session_not_found', 'No SSE session with this sessionId here', { detail: 'The session ended while its message was being received' }));
    }
    sessions.received(sessionId, request.body);
    try {
      await session.transport.handleMessage(request.body, { authInfo: scopeAuthInfo({ caller, log: request.log, requestId: request.id }) });
    } catch {
      return reply
        .code(400)
        .type('application/json; charset=utf-8')
        .send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request. The body is not a JSON-RPC 2.0 message.', data: { error: 'invalid_message', requestId: request.id } } });
    }
    return reply.code(202).type('text/plain; charset=utf-8').send('Accepted');
  });

  app.delete('/mcp', async (request, reply) =>
    sendError(reply.header('Allow', 'POST'), request, new ServiceError(405, 'method_not_allowed', 'This Streamable HTTP endpoint keeps no sessions to delete')),
  );
}
