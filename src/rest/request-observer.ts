import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
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
    const fields = { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(elapsedMs * 100) / 100 };
    if (error) request.log.error({ ...fields, err: error }, 'request errored');
    else request.log.info(fields, 'request');
    this.#metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, elapsedMs / 1000);
  }
}
