import { randomUUID } from 'node:crypto';
import { METHODS, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from '../core/log-redaction.ts';
import { writeAccessLine } from './access-line.ts';
import type { Metrics } from '../core/metrics.ts';

/**
 * The status of a request that got no answer of its own: one its client abandoned (nginx's 'client
 * closed request'), and one the HTTP parser refused when no answer could be written (see refused).
 */
export const CLIENT_CLOSED_STATUS = 499;

/** The replies begun on a connection that requestCompleted has not seen: one at a time, several when pipelined. */
const OPEN = Symbol('openReplies');
/** When the connection opened or its last request completed: where a request the parser refuses began, at the earliest. */
const READY = Symbol('readySince');
interface WatchedSocket extends Socket {
  [OPEN]?: Set<FastifyReply>;
  [READY]?: number;
}

/** The route label of requests no route took: a router failure, a request the parser refused, a 404. */
const UNMATCHED = 'unmatched';
/** The methods Node's parser knows: the only method a refused request's line and metric name. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS);
/**
 * The longest URL a refused request's line shows: such URLs are the client's junk (up to the 16 KB
 * header limit, or the over-long one that was refused), and a client spraying them must not
 * make each line that large.
 */
const REFUSED_URL_CHARS = 1024;

/** The parser's code when the connection's reading side ended (the client's FIN) in the middle of a request. */
const CLIENT_ENDED = 'HPE_INVALID_EOF_STATE';

/** A request Node's HTTP parser refused, as rest/http-errors.ts's clientErrorHandler hears it. */
export interface ParserRefusal {
  /** Node's code: HPE_HEADER_OVERFLOW, HPE_INVALID_HEADER_TOKEN, ERR_HTTP_REQUEST_TIMEOUT, … */
  code: string;
  /** The raw bytes the parser held (headers and keys included): only its request line is read. */
  rawPacket?: Buffer | undefined;
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
      socket[READY] = performance.now();
      socket.once('close', () => this.#connectionClosed(socket));
    });
  }

  /** A request has begun on its connection (injected requests have no watched connection). */
  opened(reply: FastifyReply): void {
    (reply.request.raw.socket as WatchedSocket | null)?.[OPEN]?.add(reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const socket = request.raw.socket as WatchedSocket | null;
    // Off its connection's list; a reply not on it was either never there (injected) or already
    // recorded (when its connection closed, or as refused by the parser), and is then not recorded twice.
    if (socket?.[OPEN]?.delete(reply) === true) socket[READY] = performance.now();
    else if (this.#recorded.has(reply)) return;
    // A client that went away mid-request is the client's doing, not a fault of the service.
    if (error && clientWentAway(request)) return this.#abandoned(reply, error.message);
    if (!error) return this.#answered(request, reply.statusCode, reply.elapsedTime);
    const elapsedMs = reply.elapsedTime;
    request.log.error({ method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, ms: roundMs(elapsedMs), err: error }, 'request errored');
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode, elapsedMs / 1000);
  }

  /**
   * A request the router failed (bad percent-encoding, an over-long path segment), answered by
   * rest/http-errors.ts's frameworkErrorHandler. Fastify runs no onRequest hook for it and listens
   * to none of its response's events, so requestCompleted never comes: its line and count are
   * written when its response closes, finished or with its client gone first. Its time counts from
   * here, right after the routing that failed.
   */
  routerFailed(reply: FastifyReply): void {
    const started = performance.now();
    reply.raw.once('close', () => {
      const elapsedMs = performance.now() - started;
      if (reply.raw.writableFinished) this.#answered(reply.request, reply.statusCode, elapsedMs, REFUSED_URL_CHARS);
      else this.#abandoned(reply, undefined, elapsedMs);
    });
  }

  /**
   * A request Node's HTTP parser refused, answered `status` by rest/http-errors.ts's
   * clientErrorHandler (or CLIENT_CLOSED_STATUS when no answer could be written: the connection
   * was closing, or a response was already under way on it, and it was closed instead): its one
   * line, at info like every answered request (a client spraying junk shows as these lines and
   * their counts, never as errors), and its count. Returns the request id to answer with.
   *
   * The parser may fail in the body of a request the service has begun (a request timeout, a bad
   * chunk): that request is the refused one, so the line carries its id, method, URL, route and
   * receivedBytes (with answerStatusCode when the service's answer had begun; once its head was
   * on the wire no refusal could follow it, and `status` is CLIENT_CLOSED_STATUS), and neither the
   * close of its connection nor requestCompleted records it again. Otherwise Node hands over nothing
   * parsed: the method and URL come from the request line when the raw bytes begin with one
   * (never anything else of them), the time from the connection's opening or its last request's
   * end, and the id is new.
   */
  refused(log: FastifyBaseLogger, socket: Socket, refusal: ParserRefusal, status: number): string {
    const watched = socket as WatchedSocket;
    const begun = [...(watched[OPEN] ?? [])].find((reply) => !reply.request.raw.complete);
    // The client ended its side of the connection mid-request: a request the service had begun
    // was left by its client, and is recorded as abandoned when the connection closes (the answer
    // follows, then the close). One the service never saw is the parser's, as any other.
    if (begun !== undefined && refusal.code === CLIENT_ENDED) return begun.request.id;
    if (begun !== undefined) {
      const { request } = begun;
      watched[OPEN]?.delete(begun);
      this.#recorded.add(begun);
      const elapsedMs = begun.elapsedTime;
      const fields = {
        method: request.method,
        url: shorten(redactUrl(request.url)),
        statusCode: status,
        ...(begun.raw.headersSent ? { answerStatusCode: begun.statusCode } : {}),
        ms: roundMs(elapsedMs),
        code: refusal.code,
        receivedBytes: socket.bytesRead,
      };
      request.log.info(fields, 'request refused by the HTTP parser');
      this.#metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, status, elapsedMs / 1000);
      return request.id;
    }
    const requestId = randomUUID();
    const line = requestLine(refusal.rawPacket);
    const elapsedMs = performance.now() - (watched[READY] ?? performance.now());
    const fields = { [this.requestIdLogLabel]: requestId, ...line, statusCode: status, ms: roundMs(elapsedMs), code: refusal.code };
    log.info(fields, 'request refused by the HTTP parser');
    this.#metrics.observeRequest(line?.method ?? 'unknown', UNMATCHED, status, elapsedMs / 1000);
    return requestId;
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
    if (raw.headersSent && !raw.writableEnded && (reply.sent || isEventStream(reply))) return this.#answered(request, reply.statusCode, reply.elapsedTime);
    this.#abandoned(reply);
  }

  /** The access line of an answered request, and its count. */
  #answered(request: FastifyRequest, statusCode: number, elapsedMs: number, urlChars?: number): void {
    // The query string's values are shown only for harmless parameters: signed links, session
    // ids and keys sent there by mistake stay out of the access log.
    const url = redactUrl(request.url);
    writeAccessLine(request.log, { method: request.method, url: urlChars === undefined ? url : shorten(url, urlChars), statusCode, ms: roundMs(elapsedMs) });
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, statusCode, elapsedMs / 1000);
  }

  /** A request its client left before the answer was all sent: warned (never an error) and counted as 499. */
  #abandoned(reply: FastifyReply, reason?: string, elapsedMs = reply.elapsedTime): void {
    const { request, raw } = reply;
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
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, CLIENT_CLOSED_STATUS, elapsedMs / 1000);
  }
}

function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function shorten(text: string, chars = REFUSED_URL_CHARS): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

/** `METHOD /target HTTP/1.x` at the start of the raw bytes: the method and the redacted, shortened URL. */
const REQUEST_LINE = /^([A-Z]{1,16}) ([!-~]+) HTTP\/1\.[01]\r?$/;

function requestLine(raw: Buffer | undefined): { method: string; url: string } | undefined {
  if (raw === undefined) return undefined;
  const end = raw.indexOf(0x0a);
  const match = REQUEST_LINE.exec(raw.subarray(0, end === -1 ? 0 : end).toString('latin1'));
  if (match === null || !KNOWN_METHODS.has(match[1]!)) return undefined;
  return { method: match[1]!, url: shorten(redactUrl(match[2]!)) };
}

function isEventStream(reply: FastifyReply): boolean {
  const type = reply.raw.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/** The client closed the connection before the request was read or answered. */
export function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.destroyed || (request.raw.readableAborted ?? false);
}
