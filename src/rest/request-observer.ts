import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from '../core/log-redaction.ts';
import type { Metrics } from '../core/metrics.ts';

/**
 * What the service records of every finished request: one access log line, with the request id
 * (request.log carries it), and the request metrics. Fastify calls its log controller's
 * requestCompleted() for every reply, so this needs no onResponse hook: a hook runner per request
 * is measurable on the hot path. It replaces Fastify's own two lines per request ('incoming
 * request', 'request completed') with this one.
 */
export class RequestObserver extends LogController {
  readonly #metrics: Metrics;

  constructor(metrics: Metrics) {
    super({ disableRequestLogging: true });
    this.#metrics = metrics;
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const elapsedMs = reply.elapsedTime;
    // The query string's values are shown only for harmless parameters: signed links, session
    // ids and keys sent there by mistake stay out of the access log.
    const fields = { method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, ms: Math.round(elapsedMs * 100) / 100 };
    // A client that went away mid-request is the client's doing, not a fault of the service.
    if (error && clientWentAway(request)) request.log.warn({ ...fields, reason: error.message }, 'request abandoned by the client');
    else if (error) request.log.error({ ...fields, err: error }, 'request errored');
    else request.log.info(fields, 'request');
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, elapsedMs / 1000);
  }
}

/** The client closed the connection before the request was read or answered. */
export function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.destroyed || (request.raw.readableAborted ?? false);
}
