import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalog } from '../core/catalog.ts';
import { ServiceError } from '../core/errors.ts';
import type { Invoker } from '../core/invoke.ts';
import type { FileResult } from '../core/define-tool.ts';
import type { FileStore } from '../files/file-store.ts';
import { sendStoredFile } from './file-routes.ts';
import { receiveMultipart } from './upload.ts';

export interface ToolRouteOptions {
  uploadLimitBytes: number;
  store?: FileStore;
  binaryDeliveryDeprecatedAt: Date;
  binaryDeliverySunsetAt: Date;
  publicBaseUrl: string;
}

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
export function registerToolRoutes(app: FastifyInstance, catalog: Catalog, invoker: Invoker, options: ToolRouteOptions): void {
  for (const tool of catalog.tools) {
    const upload = tool.upload;
    app.route({
      method: tool.method,
      url: tool.path,
      handler: async (request, reply) => {
        // A caller who goes away aborts a conversion in progress. The response's close, not the
        // request's: the request stream closes as soon as its body is read. JSON tools finish in
        // microseconds and need no listener.
        let signal: AbortSignal | undefined;
        if (upload) {
          const controller = new AbortController();
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) controller.abort();
          });
          signal = controller.signal;
        }
        const query = { ...(request.query as Record<string, unknown>) };
        const delivery = typeof query['delivery'] === 'string' ? query['delivery'] : undefined;
        delete query['delivery'];
        const response = await invoker.invoke({
          operationId: tool.operationId,
          // File tools take options as multipart fields or query parameters; JSON tools take a JSON body.
          input: upload ? query : extractInput(request),
          receive: upload ? (workDir) => receiveMultipart(request, upload.field, workDir, options.uploadLimitBytes) : undefined,
          delivery: upload ? delivery : undefined,
          apiKey: headerValue(request, 'x-api-key'),
          idempotencyKey: request.method === 'POST' ? headerValue(request, 'idempotency-key') : undefined,
          requestId: request.id,
          log: request.log,
          signal,
        });
        reply.headers(response.headers);
        if (upload && delivery === 'binary' && response.status === 200 && response.body.status && options.store) {
          const result = response.body.result as FileResult;
          const stored = await options.store.get(result.fileId);
          if (stored) {
            // RFC 9745 Deprecation (a structured date), RFC 8594 Sunset, and where to read about it.
            reply.header('Deprecation', `@${Math.floor(options.binaryDeliveryDeprecatedAt.getTime() / 1000)}`);
            reply.header('Sunset', options.binaryDeliverySunsetAt.toUTCString());
            reply.header('Link', `<${options.publicBaseUrl}/docs>; rel="deprecation"; type="text/html"`);
            return sendStoredFile(reply.code(200), options.store, stored, 'application/octet-stream');
          }
        }
        return reply.code(response.status).send(response.body);
      },
    });
  }
}
