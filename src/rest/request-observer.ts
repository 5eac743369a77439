import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from '../core/log-redaction.ts';
import type { Metrics } from '../core/metrics.ts';

/** The status an abandoned request is counted under: nginx's 'client closed request'. */
export const CLIENT_CLOSED_STATUS = 499;

/** The replies begun on a connection that requestCompleted has not seen: one at a time, several when pipelined. */
const OPEN = Symbol('openReplies');
interface WatchedSocket extends Socket {
  [OPEN]?: Set<FastifyReply>;
}

/**
 * What the service records of every request: one access log line, with the request id
 * (request.log carries it), and the request metrics. Fastify calls its log controller's
 * requestCompleted() for every reply that finishes, so this needs no onResponse hook: a hook
 * runner per request is measurable on the hot path. It replaces Fastify's own two lines per
 * request ('incoming request', 'request completed') with this one.
 *
 * A reply whose client has gone never finishes (it is written to a closed socket, or never
 * written), so Fastify never calls requestCompleted for it. Those are found when their
 * connection closes: each connection keeps the replies begun on it (`opened`, from the onRequest
 * hook that already runs per request) until requestCompleted takes them off, and one 'close'
 * listener per connection (`watch`) records what is left, once.
 */
export class RequestObserver extends LogController {
  readonly #metrics: Metrics;
  /** Replies recorded when their connection closed: Fastify's 'error' path may still complete them. */
  readonly #recorded = new WeakSet<FastifyReply>();

  constructor(metrics: Metrics) {
    super({ disableRequestLogging: true });
    this.#metrics = metrics;
  }

  /** Hears every connection of `server` close (a listener per connection, none per request). */
  watch(server: Server): void {
    server.on('connection', (socket: WatchedSocket) => {
      socket[OPEN] = new Set();
      socket.once('close', () => this.#connectionClosed(socket));
    });
  }

  /** A request has begun on its connection (injected requests have no watched connection). */
  opened(reply: FastifyReply): void {
    (reply.request.raw.socket as WatchedSocket | null)?.[OPEN]?.add(reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Off its connection's list; a reply not on it was either never there (injected, a router
    // failure) or already recorded when its connection closed, and is then not recorded twice.
    if ((request.raw.socket as WatchedSocket | null)?.[OPEN]?.delete(reply) !== true && this.#recorded.has(reply)) return;
    // A client that went away mid-request is the client's doing, not a fault of the service.
    if (error && clientWentAway(request)) return this.#abandoned(reply, error.message);
    const elapsedMs = reply.elapsedTime;
    // The query string's values are shown only for harmless parameters: signed links, session
    // ids and keys sent there by mistake stay out of the access log.
    const fields = { method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, ms: roundMs(elapsedMs) };
    if (error) request.log.error({ ...fields, err: error }, 'request errored');
    else request.log.info(fields, 'request');
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, elapsedMs / 1000);
  }

  #connectionClosed(socket: WatchedSocket): void {
    const open = socket[OPEN];
    if (open === undefined || open.size === 0) return;
    for (const reply of open) {
      // Finished: requestCompleted follows once the route's onResponse hooks (an async one for
      // uploads) have run, and records it.
      if (reply.raw.writableFinished) continue;
      this.#recorded.add(reply);
      this.#unfinished(reply);
    }
    open.clear();
  }

  /** A reply whose connection closed before it finished: its one line and its count. */
  #unfinished(reply: FastifyReply): void {
    const { request, raw } = reply;
    // An event stream (an MCP answer with progress) or a reply the route took over (the legacy
    // SSE session) stays open until its client leaves: that is its normal end, logged as a
    // request the server ended is, not as an alarm.
    if (raw.headersSent && !raw.writableEnded && (reply.sent || isEventStream(reply))) {
      const elapsedMs = reply.elapsedTime;
      request.log.info({ method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, ms: roundMs(elapsedMs) }, 'request');
      this.#metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, elapsedMs / 1000);
      return;
    }
    this.#abandoned(reply);
  }

  /** A request its client left before the answer was all sent: warned (never an error) and counted as 499. */
  #abandoned(reply: FastifyReply, reason?: string): void {
    const { request, raw } = reply;
    const elapsedMs = reply.elapsedTime;
    // The answer's status when it was already on its way (written, or being streamed), and how
    // much had arrived when the body was cut short (by the client, or by the server's body pace
    // or request time limit: rest/body-pace.ts).
    const bodyCut = !request.raw.complete;
    const fields = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: CLIENT_CLOSED_STATUS,
      ...(raw.headersSent ? { answerStatusCode: reply.statusCode } : {}),
      ms: roundMs(elapsedMs),
      ...(bodyCut ? { receivedBytes: request.raw.socket?.bytesRead } : {}),
      ...(reason === undefined ? {} : { reason }),
    };
    const upload = bodyCut && /^multipart\//i.test(request.headers['content-type'] ?? '');
    request.log.warn(fields, upload ? 'upload abandoned: the connection closed mid-body' : 'request abandoned by the client');
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', CLIENT_CLOSED_STATUS, elapsedMs / 1000);
  }
}

function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function isEventStream(reply: FastifyReply): boolean {
  const type = reply.raw.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/** The client closed the connection before the request was read or answered. */
export function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.destroyed || (request.raw.readableAborted ?? false);
}
