import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope } from '../core/envelope.ts';
import { ServiceError } from '../core/errors.ts';
import { toServiceError } from '../core/invoke.ts';

export function sendError(reply: FastifyReply, err: ServiceError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorEnvelope(err, reply.request.id));
}

/** Fastify's own failures (body parsing, limits) as the service's JSON error envelope. */
function fromFastifyError(err: FastifyError, request: FastifyRequest, bodyLimit: number): ServiceError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError(413, 'payload_too_large', 'The request body is too large', { detail: `The limit is ${bodyLimit} bytes` });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError(415, 'unsupported_media_type', `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here`, {
        detail: 'Send JSON with Content-Type: application/json',
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

const KNOWN_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function installErrorHandlers(app: FastifyInstance, bodyLimit: number): void {
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
    return sendError(reply, new ServiceError(404, 'not_found', `No route ${request.method} ${url}`, { detail: 'GET /api/v1/tools lists the tools; /docs documents the API' }));
  });
}
