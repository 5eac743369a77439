import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalog } from '../core/catalog.ts';
import { ServiceError } from '../core/errors.ts';
import type { Invoker } from '../core/invoke.ts';

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** JSON body fields are accepted at the top level or nested under `inputs`. */
export function extractInput(request: FastifyRequest): unknown {
  if (request.method === 'GET') return { ...(request.query as Record<string, unknown>) };
  const body = request.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError(400, 'invalid_body', 'The body must be a JSON object', { detail: 'Send the tool fields as a JSON object, at the top level or under "inputs"' });
  }
  const { inputs, ...rest } = body as Record<string, unknown>;
  if (inputs === undefined) return rest;
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw new ServiceError(400, 'invalid_body', '"inputs" must be a JSON object');
  }
  return { ...rest, ...(inputs as Record<string, unknown>) };
}

/** One route per catalog tool, derived from the catalog: there is no other list of routes. */
export function registerToolRoutes(app: FastifyInstance, catalog: Catalog, invoker: Invoker): void {
  for (const tool of catalog.tools) {
    app.route({
      method: tool.method,
      url: tool.path,
      handler: async (request, reply) => {
        const controller = new AbortController();
        request.raw.once('close', () => {
          if (!reply.sent) controller.abort();
        });
        const response = await invoker.invoke({
          operationId: tool.operationId,
          input: extractInput(request),
          apiKey: headerValue(request, 'x-api-key'),
          idempotencyKey: request.method === 'POST' ? headerValue(request, 'idempotency-key') : undefined,
          requestId: request.id,
          log: request.log,
          signal: controller.signal,
        });
        reply.headers(response.headers);
        return reply.code(response.status).send(response.body);
      },
    });
  }
}
