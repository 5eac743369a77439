import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../core/catalog.ts';
import { ServiceError } from '../core/errors.ts';
import { toServiceError } from '../core/call-failures.ts';
import type { InvokeRequest, Invoker } from '../core/invoke.ts';
import type { Caller } from '../accounts/account-store.ts';
import { errorToHttp, outcomeToHttp, type HttpAnswer } from './outcome-response.ts';
import type { ErrorBody, FileResult } from '../core/define-tool.ts';
import type { FileStore } from '../files/file-store.ts';
import { sendFileBody } from './file-routes.ts';
import { checkDelivery, keptResultPath, openKeptResult, openStoredResult, type ResultBytes } from './binary-delivery.ts';
import { abandonedUpload, receiveMultipart } from './upload.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';

export interface ToolRouteOptions {
  uploadLimitBytes: number;
  store?: FileStore;
  /** work folders for file tool calls: each request owns one until it has answered */
  files?: FilePipeline;
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
  // The parsed body is this request's own object: used as it is unless fields are nested.
  if (!Object.hasOwn(body, 'inputs')) return body;
  const { inputs, ...rest } = body as Record<string, unknown>;
  if (inputs === undefined) return rest;
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw new ServiceError(400, 'invalid_body', '"inputs" must be a JSON object');
  }
  return { ...rest, ...(inputs as Record<string, unknown>) };
}

/**
 * One route per catalog tool, derived from the catalog: there is no other list of routes.
 *
 * The file tools live in a scope of their own with the multipart parser: @fastify/multipart adds
 * an async onRequest and an async onResponse hook to every route of the scope it is registered
 * in, and the JSON tools, the hot path, should not pay two promises and a close listener per
 * call for uploads they never take. A multipart body sent to a JSON tool is a 415.
 */
export async function registerToolRoutes(app: FastifyInstance, catalog: Catalog, invoker: Invoker, options: ToolRouteOptions): Promise<void> {
  const jsonTools = catalog.tools.filter((tool) => !tool.upload);
  const fileTools = catalog.tools.filter((tool) => tool.upload);
  addToolRoutes(app, jsonTools, invoker, options);
  await app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true, limits: { fileSize: options.uploadLimitBytes } });
    addToolRoutes(scope, fileTools, invoker, options);
  });
}

function addToolRoutes(app: FastifyInstance, tools: Catalog['tools'], invoker: Invoker, options: ToolRouteOptions): void {
  for (const tool of tools) {
    const upload = tool.upload;
    const handler = upload
      ? fileToolHandler(tool, upload.field, invoker, options)
      : tool.kind === 'url'
        ? urlToolHandler(tool, invoker)
        : jsonToolHandler(tool.operationId, invoker, tool.errorBody);
    app.route({ method: tool.method, url: tool.path, handler });
  }
}

/**
 * The caller behind the X-Api-Key header, or the 401 to answer. A known key comes from the cache
 * without a promise; only a miss waits on the database.
 */
async function authenticate(request: FastifyRequest, invoker: Invoker, errorBody?: ErrorBody): Promise<Caller | HttpAnswer> {
  const apiKey = headerValue(request, 'x-api-key');
  const cached = invoker.cachedCaller(apiKey);
  if (cached) return cached;
  try {
    return await invoker.authenticate(apiKey);
  } catch (err) {
    return errorToHttp(toServiceError(err, request.log), request.id, errorBody);
  }
}

function isAnswer(value: Caller | HttpAnswer): value is HttpAnswer {
  return 'status' in value && 'body' in value;
}

/**
 * One tool call over HTTP: the key authenticated (a 401 answered as it is), then the call through
 * the invoke path with REST's own fields (Idempotency-Key on POST), its outcome as the envelope.
 */
async function invokeOverHttp(
  request: FastifyRequest,
  invoker: Invoker,
  call: Omit<InvokeRequest, 'caller' | 'idempotencyKey' | 'requestId' | 'log'>,
  errorBody?: ErrorBody,
  known?: Caller,
): Promise<HttpAnswer> {
  const caller = known ?? (await authenticate(request, invoker, errorBody));
  if (isAnswer(caller)) return caller;
  const outcome = await invoker.invoke({
    ...call,
    caller,
    idempotencyKey: request.method === 'POST' ? headerValue(request, 'idempotency-key') : undefined,
    requestId: request.id,
    log: request.log,
  });
  return outcomeToHttp(outcome, request.id, errorBody);
}

/** A JSON tool: its fields come in the JSON body (or the query string for GET), its answer is the envelope. */
function jsonToolHandler(operationId: string, invoker: Invoker, errorBody?: ErrorBody) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // format= in a POST's query string is a URL tool's switch; a JSON tool has no other form, so it
    // is refused (before anything is charged) rather than ignored in silence, once the key is known.
    if (request.method === 'POST' && Object.hasOwn((request.query ?? {}) as object, 'format')) {
      const caller = await authenticate(request, invoker, errorBody);
      if (isAnswer(caller)) return reply.headers(caller.headers).code(caller.status).send(caller.body);
      throw new ServiceError(400, 'invalid_format', `${operationId} has no markdown or bare-result form: its answer is the JSON envelope`, {
        detail: 'Leave format out; format=markdown and format=json apply to the URL tools (seo-apis, security-apis)',
        extra: { field: 'format' },
      });
    }
    const input = extractInput(request);
    const response = await invokeOverHttp(request, invoker, {
      operationId,
      input,
    }, errorBody);
    return reply.headers(response.headers).code(response.status).send(response.body);
  };
}

const FORMATS = ['markdown', 'json'] as const;
type Format = (typeof FORMATS)[number];

/** `format` is the surface's, not the tool's: taken out of the fields before they are validated. */
function takeFormat(input: unknown): Format | undefined {
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, 'format')) return undefined;
  const fields = input as Record<string, unknown>;
  const format = fields['format'];
  delete fields['format'];
  if (typeof format === 'string' && (FORMATS as readonly string[]).includes(format)) return format as Format;
  throw new ServiceError(400, 'invalid_format', `format must be one of ${FORMATS.join(', ')}`, {
    detail: 'format=markdown answers text/markdown, format=json the result alone, pretty-printed; leave it out for the envelope',
  });
}

/**
 * A URL tool: a JSON tool whose fetches end when the caller goes away, and whose result can be
 * had as Markdown (format=markdown) or as the bare result (format=json). Errors stay the JSON
 * envelope whatever the format, so a client always reads a failure the same way.
 */
function urlToolHandler(tool: Catalog['tools'][number], invoker: Invoker) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const input = extractInput(request);
    // GET: among the query fields; POST: in the query string or the body.
    const format = request.method === 'GET' ? takeFormat(input) : (takeFormat({ ...(request.query as Record<string, unknown>) }) ?? takeFormat(input));
    const response = await invokeOverHttp(request, invoker, {
      operationId: tool.operationId,
      input,
      signal: controller.signal,
    });
    reply.headers(response.headers).code(response.status);
    if (format === undefined || response.status !== 200 || !('result' in response.body)) return reply.send(response.body);
    const result = response.body.result;
    if (format === 'json') return reply.type('application/json; charset=utf-8').send(`${JSON.stringify(result, null, 2)}\n`);
    const render = tool.markdown;
    if (!render) return reply.send(response.body);
    return reply.type('text/markdown; charset=utf-8').send(render(result, tool.title));
  };
}

/** A file tool: the upload comes as multipart (options as form fields or query parameters), the answer holds a signed link. */
function fileToolHandler(tool: Catalog['tools'][number], field: string, invoker: Invoker, options: ToolRouteOptions) {
  const { operationId } = tool;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // A caller who goes away aborts a conversion in progress. The response's close, not the
    // request's: the request stream closes as soon as its body is read.
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const query = { ...(request.query as Record<string, unknown>) };
    const delivery = typeof query['delivery'] === 'string' ? query['delivery'] : undefined;
    delete query['delivery'];
    const files = options.files;
    if (!files) throw new Error('file tool routes need the file pipeline');
    // The key first: a request without a valid one is answered 401 before anything touches the disk.
    const caller = await authenticate(request, invoker, tool.errorBody);
    if (isAnswer(caller)) return reply.headers(caller.headers).code(caller.status).send(caller.body);
    // This request's work folder: the upload lands in it, and it is gone before the answer leaves.
    const workDir = await files.createWorkDir();
    // delivery=binary sends the bytes the conversion keeps here, not the stored copy (binary-delivery.ts).
    const keepResultAt = delivery === 'binary' && tool.answer !== 'json' && tool.answer !== 'text' ? keptResultPath(workDir) : undefined;
    let response: HttpAnswer;
    let kept: ResultBytes | undefined;
    try {
      // A client gone while its key was checked or its folder made (the awaits above; on PostgreSQL
      // the key check is a query, and the close often lands before the mkdir's callback) is an
      // abandoned upload: nothing is run for it (its line comes from the request observer when
      // the connection closes).
      const gone = abandonedUpload(request);
      if (gone) response = errorToHttp(gone, request.id, tool.errorBody);
      else response = await invokeOverHttp(request, invoker, {
        operationId,
        input: query,
        file: {
          kind: 'upload',
          receive: (dir, wants) => {
            checkDelivery(delivery, options.binaryDeliverySunsetAt);
            return receiveMultipart(request, field, dir, options.uploadLimitBytes, tool.upload?.alsoAccepts, wants);
          },
        },
        workDir,
        delivery,
        keepResultAt,
        signal: controller.signal,
      }, tool.errorBody, caller);
      if (keepResultAt !== undefined && response.status === 200 && response.headers['idempotent-replayed'] === undefined) kept = await openKeptResult(keepResultAt);
    } finally {
      await files.removeWorkDir(workDir).catch((err: unknown) => {
        kept?.body.destroy();
        throw err;
      });
    }
    reply.headers(response.headers);
    const success = response.status === 200 && 'result' in response.body ? response.body : undefined;
    // A tool answering text (convertors/to-base64) sends the text itself, not the envelope.
    if (success && tool.answer === 'text' && typeof success.result === 'string') return reply.code(200).type('text/plain; charset=utf-8').send(success.result);
    if (keepResultAt !== undefined && success) {
      const result = success.result as FileResult;
      let bytes = kept;
      // A replay ran nothing and kept nothing: its bytes are the stored result's, read now.
      if (!bytes && options.store) {
        try {
          bytes = await openStoredResult(options.store, result.fileId);
        } catch (err) {
          const failed = errorToHttp(toServiceError(err, request.log), request.id, tool.errorBody);
          return reply.headers(failed.headers).code(failed.status).send(failed.body);
        }
      }
      if (bytes) {
        // RFC 9745 Deprecation (a structured date), RFC 8594 Sunset, and where to read about it.
        reply.header('Deprecation', `@${Math.floor(options.binaryDeliveryDeprecatedAt.getTime() / 1000)}`);
        reply.header('Sunset', options.binaryDeliverySunsetAt.toUTCString());
        reply.header('Link', `<${options.publicBaseUrl}/docs>; rel="deprecation"; type="text/html"`);
        return sendFileBody(reply.code(200), bytes.body, { fileName: result.fileName, sizeBytes: bytes.sizeBytes }, 'application/octet-stream');
      }
    }
    return reply.code(response.status).send(response.body);
  };
}
