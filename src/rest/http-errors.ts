import { STATUS_CODES, maxHeaderSize, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope } from '../core/envelope.ts';
import { ServiceError } from '../core/errors.ts';
import { toServiceError } from '../core/call-failures.ts';
import { CLIENT_CLOSED_STATUS, type RequestObserver } from './request-observer.ts';

/**
 * The longest path segment the router takes (Fastify's maxParamLength). Result file names are
 * bounded well below it (see outputName), so every download link the service issues routes.
 */
export const MAX_PATH_SEGMENT_CHARS = 1024;

export function sendError(reply: FastifyReply, err: ServiceError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // Also set here, not only in onRequest: router failures (bad URL, long segment) skip the hooks.
  reply.header('X-Request-Id', reply.request.id);
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorEnvelope(err, reply.request.id));
}

/** Fastify's own failures (body parsing, limits) as the service's JSON error envelope. */
export function fromFastifyError(err: FastifyError, request: FastifyRequest, bodyLimit: number): ServiceError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError(413, 'payload_too_large', 'The request body is too large', { detail: `The limit is ${bodyLimit} bytes` });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // The file tools' scope has the multipart parser: there the fix is multipart, elsewhere JSON.
      if (request.server.hasContentTypeParser('multipart/form-data')) {
        return new ServiceError(415, 'multipart_required', 'Send the file as multipart/form-data', {
          detail: `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here; upload the source file as a multipart/form-data form field`,
        });
      }
      return new ServiceError(415, 'unsupported_media_type', `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here`, {
        detail: 'Send the fields as a JSON object with Content-Type: application/json',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError(400, 'invalid_json', 'The body is empty but Content-Type says JSON', { detail: 'Send a JSON object, or omit the Content-Type header' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceError(400, 'invalid_content_length', 'Content-Length does not match the body');
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ServiceError(400, 'invalid_json', 'The body is not valid JSON', { detail: err.message });
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ServiceError(status, 'bad_request', err.message);
  }
  return toServiceError(err, request.log);
}

/**
 * Failures of the router itself, before any route or hook runs (Fastify's frameworkErrors option).
 * `observer` records each (its line and count): Fastify's own recording never sees these.
 */
export function frameworkErrorHandler(observer: RequestObserver): (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (err, request, reply) => {
    observer.routerFailed(reply);
    const path = request.url.split('?')[0] ?? '/';
    switch (err.code) {
      case 'FST_ERR_BAD_URL':
        return sendError(reply, new ServiceError(400, 'invalid_url', 'The URL path is not valid percent-encoding', {
          detail: `${shorten(path)} holds a % not followed by two hex digits (or an invalid UTF-8 sequence); write a literal % as %25`,
        }));
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return sendError(reply, new ServiceError(414, 'uri_too_long', 'A path segment is too long', {
          detail: `A path segment may hold at most ${MAX_PATH_SEGMENT_CHARS} characters (percent-encoded); use the links exactly as the service returns them`,
        }));
    }
    return sendError(reply, new ServiceError(err.statusCode ?? 400, 'bad_request', err.message));
  };
}

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (headers over the limit, bad
 * syntax, a header timeout), answered with the same JSON envelope and an X-Request-Id rather than
 * Fastify's bare default. The parser's header limit (Node's 16 KB default, kept: it bounds memory
 * per connection) covers the request line, so a URL with a huge query string lands here as 431.
 * Each is one info line and one count (`observer.refused`): a client spraying junk is visible in
 * the access log and http_requests_total, but is never an error. A refusal that cannot be answered
 * (the connection is closing, or a response is already under way on it) is not written at all:
 * the connection is closed, and the refusal recorded as CLIENT_CLOSED_STATUS, the status of a
 * request that got no answer of its own.
 */
export function clientErrorHandler(observer: RequestObserver): (this: FastifyInstance, err: ConnectionError, socket: Socket) => void {
  return function onClientError(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
    // A connection reset or already gone: no request to answer (an idle keep-alive connection's reset is routine).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const serviceError = fromClientError(err);
    // Not the error object: Node puts the raw request bytes on it (rawPacket), headers and keys
    // included. The observer reads only the request line from them.
    // (Fastify's type says { type, data }; Node's parser errors carry the Buffer, timeouts none.)
    const raw: unknown = err.rawPacket;
    const refusal = { code: err.code, rawPacket: Buffer.isBuffer(raw) ? raw : undefined };
    // Answered only when the answer can be the next thing the client reads: not when a response
    // is already on its way on this connection (an SSE stream, a download, a long answer, with
    // junk or a bad pipelined request after it, or a bad chunk in its own body): a status line
    // written into that response's body would corrupt it. Node's default handler holds back too.
    const answerable = socket.writable && !responseUnderWay(socket);
    const requestId = observer.refused(this.log, socket, refusal, answerable ? serviceError.status : CLIENT_CLOSED_STATUS);
    if (!answerable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(errorEnvelope(serviceError, requestId));
    const head = [
      `HTTP/1.1 ${serviceError.status} ${STATUS_CODES[serviceError.status] ?? 'Error'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ].join('\r\n');
    // The socket's parser state is broken: the answer is the last thing on this connection.
    socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  };
}

/** Node's fields on a server connection and its response, absent from @types/node. */
interface HttpConnection extends Socket {
  /** The response being written on the connection now (null between responses); pipelined ones wait their turn. */
  _httpMessage?: (ServerResponse & { _headerSent?: boolean }) | null;
}

/**
 * Whether bytes of a response are already on the connection: its head has gone out (Node's
 * _headerSent, the check its own default handler makes). headersSent, which turns true when the
 * head is only rendered, stands in should the private field ever go (it errs on the side of
 * writing nothing).
 */
function responseUnderWay(socket: Socket): boolean {
  const current = (socket as HttpConnection)._httpMessage;
  if (current === undefined || current === null) return false;
  return current._headerSent ?? current.headersSent;
}

function fromClientError(err: ConnectionError): ServiceError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceError(431, 'headers_too_large', 'The URL and headers are too large', {
        detail: `The request line (the URL with its query string) and the headers together may hold at most ${maxHeaderSize} bytes; send long input as JSON in a POST body`,
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ServiceError(408, 'request_timeout', 'The request was not received in time', { detail: 'Send the whole request without pausing, then wait for the answer' });
  }
  return new ServiceError(400, 'malformed_request', 'The HTTP request is malformed', { detail: `Node's HTTP parser refused it (${err.code}); send a well-formed HTTP/1.1 request` });
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const KNOWN_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The near tools to name when a tool path matches none: `/api/v1/<family>/<slug>` -> their paths. */
export type ToolSuggester = (family: string, slug: string) => string[];

const TOOL_PATH = /^\/api\/v1\/([^/]{1,100})\/([^/]{1,200})\/?$/;

export function installErrorHandlers(app: FastifyInstance, bodyLimit: number, suggestTools?: ToolSuggester): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const serviceError = err instanceof ServiceError ? toServiceError(err, request.log) : fromFastifyError(err, request, bodyLimit);
    return sendError(reply, serviceError);
  });

  // Fastify answers an unknown method on a known path with 404; the service says 405 and lists what is allowed.
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    const allowed = KNOWN_METHODS.filter((method) => method !== request.method && app.hasRoute({ method, url }));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, new ServiceError(405, 'method_not_allowed', `${request.method} is not allowed on ${url}`, { detail: `Allowed: ${allowed.join(', ')}` }));
    }
    // A mistyped tool answers as MCP's unknown_tool does: with the nearest tools' paths.
    const tool = TOOL_PATH.exec(url);
    if (tool !== null && suggestTools !== undefined) {
      const suggestions = suggestTools(decodeSegment(tool[1] ?? ''), decodeSegment(tool[2] ?? ''));
      const hint = suggestions.length > 0 ? `Did you mean ${suggestions.join(', ')}? ` : '';
      return sendError(reply, new ServiceError(404, 'unknown_tool', `No tool at ${url}`, { detail: `${hint}GET /api/v1/tools lists the tools`, extra: { suggestions } }));
    }
    return sendError(reply, new ServiceError(404, 'not_found', `No route ${request.method} ${url}`, { detail: 'GET /api/v1/tools lists the tools; /docs documents the API' }));
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
