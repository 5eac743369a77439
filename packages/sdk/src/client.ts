// ToolServiceClient: one method per catalog operation, attached from the generated OPERATIONS
// table, so the SDK has no hand-kept list of tools and cannot drift from the service.
import { ToolServiceError } from './errors.ts';
import { createFiles, buildMultipart, type FileInput, type FileResult, type FilesApi } from './files.ts';
import { apiPromise, send, type APIPromise, type HttpContext, type HttpRequest, type HttpResponse, type RequestOptions } from './http.ts';
import { createMcpHelpers } from './mcp.ts';
import { OPERATIONS, type OperationId, type OperationKind, type OperationSpec, type OperationTypes, type RouteOperationId, type RouteTypes } from './generated/operations.ts';

export interface ClientOptions {
  /** Default: process.env.TOOL_SERVICE_API_KEY. */
  apiKey?: string;
  /** Default: process.env.TOOL_SERVICE_BASE_URL, then http://localhost:8080. */
  baseUrl?: string;
  /** Retries of a failed attempt that may succeed on a second try (default 2). */
  maxRetries?: number;
  /** Time allowed for each attempt in ms (default 60000). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  fetch?: typeof fetch;
  /** Lets the client start in a browser. Keys must not be shipped in browser code: use this only for a key the user typed in themselves. */
  dangerouslyAllowBrowser?: boolean;
}

/** The service's success envelope; `result` typed from the tool's output schema. */
export interface Envelope<T> {
  status: true;
  code: number;
  message: string;
  result: T;
  warnings: string[];
  error: string;
}

type Input<K extends OperationId> = OperationTypes[K]['input'];
type Result<K extends OperationId> = OperationTypes[K]['result'];

/**
 * The operation's kind: the generated table's literal when it keeps one (`as const`), else read
 * from the types themselves: a text result is a body-answer tool, a file link a file tool, a URL
 * report a URL tool. What stays open ('unknown': a JSON tool or a body tool answering JSON) takes
 * either input form.
 */
type KindOf<K extends OperationId> = OperationKind extends (typeof OPERATIONS)[K]['kind'] ? InferredKind<K> : (typeof OPERATIONS)[K]['kind'];
type InferredKind<K extends OperationId> = [Result<K>] extends [string]
  ? 'body'
  : [Result<K>] extends [{ fileId: string; downloadUrl: string }]
    ? 'file'
    : [Result<K>] extends [{ url: string; finalUrl: string; report: unknown }]
      ? 'url'
      : 'unknown';

/** URL tools: `format: 'json'` answers the bare result, `'markdown'` the report as text, no format the envelope. */
export interface UrlMethod<I, R> {
  (input: I & { format?: undefined }, options?: RequestOptions): APIPromise<Envelope<R>>;
  (input: I & { format: 'json' }, options?: RequestOptions): APIPromise<R>;
  (input: I & { format: 'markdown' }, options?: RequestOptions): APIPromise<string>;
}

/** What a tool's method takes. */
export type MethodInput<K extends OperationId> = [KindOf<K>] extends ['file' | 'body']
  ? FileInput<Input<K>>
  : [KindOf<K>] extends ['json']
    ? Input<K>
    : [KindOf<K>] extends ['url']
      ? Input<K> & { format?: 'json' | 'markdown' }
      : Input<K> | FileInput<Input<K>>;

/**
 * What a tool's method resolves to: the envelope; for a body-answer tool what it answers (its
 * text, or the envelope of its JSON).
 */
export type MethodAnswer<K extends OperationId> = [KindOf<K>] extends ['body']
  ? Result<K> extends string
    ? string
    : Envelope<Result<K>>
  : [KindOf<K>] extends ['file']
    ? Envelope<Result<K> & FileResult>
    : Envelope<Result<K>>;

export type OperationMethod<K extends OperationId> = [KindOf<K>] extends ['url']
  ? UrlMethod<Input<K>, Result<K>>
  : (input: MethodInput<K>, options?: RequestOptions) => APIPromise<MethodAnswer<K>>;

/** One method per operation, named by its operationId (as MCP's invoke_tool and discover_tools name it). */
export type OperationMethods = { readonly [K in OperationId]: OperationMethod<K> };

/**
 * What a route beside the tools answers, typed from the service's own schema (RouteTypes):
 * `client.request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' })`.
 */
export type RouteAnswer<K extends RouteOperationId> = Envelope<RouteTypes[K]['result']>;

/** A request to any path of the API (accounts, usage, keys): the same retries, errors and meta as the tools. */
export interface RawRequest {
  method: HttpRequest['method'];
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

// The class and this interface merge: the operation methods are put on the prototype below.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface ToolServiceClient extends OperationMethods {}

/**
 * The client. Every method returns an APIPromise: await it for the answer (an object answer
 * carries the response metadata as a non-enumerable `meta`: requestId, creditsRemaining,
 * rateLimit, quota, replayed, attempts, status, headers), or call `.withResponse()` for
 * `{ data, meta }`. Failures throw ToolServiceError subclasses (see errors.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ToolServiceClient {
  readonly baseUrl: string;
  readonly files: FilesApi;
  readonly mcp: ReturnType<typeof createMcpHelpers>;
  readonly #http: HttpContext;

  constructor(options: ClientOptions = {}) {
    const scope = globalThis as { window?: unknown; document?: unknown; process?: { env?: Record<string, string | undefined> } };
    if (typeof scope.window !== 'undefined' && typeof scope.document !== 'undefined' && options.dangerouslyAllowBrowser !== true) {
      throw new ToolServiceError({
        code: 'browser_not_allowed',
        message: 'ToolServiceClient refuses to run in a browser: an API key in browser code is readable by anyone who loads the page',
        detail: 'Call the service from your server instead; pass dangerouslyAllowBrowser: true only for a key the user entered themselves',
      });
    }
    const env = scope.process?.env ?? {};
    const apiKey = options.apiKey ?? env['TOOL_SERVICE_API_KEY'];
    if (!apiKey) {
      throw new ToolServiceError({ code: 'missing_api_key', message: 'No API key: pass { apiKey } or set TOOL_SERVICE_API_KEY' });
    }
    this.baseUrl = (options.baseUrl ?? env['TOOL_SERVICE_BASE_URL'] ?? 'http://localhost:8080').replace(/\/+$/, '');
    const fetchImpl = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
    this.#http = { baseUrl: this.baseUrl, apiKey, fetch: fetchImpl, maxRetries: options.maxRetries ?? 2, timeoutMs: options.timeoutMs ?? 60_000 };
    this.files = createFiles(this.#http);
    this.mcp = createMcpHelpers({ baseUrl: this.baseUrl, apiKey, fetch: fetchImpl });
  }

  /** Calls a tool by its operationId: the same as `client[operationId](body, options)`. */
  invoke<K extends OperationId>(operationId: K, body: MethodInput<K>, options?: RequestOptions): APIPromise<MethodAnswer<K>> {
    return apiPromise(async () => {
      const spec = (OPERATIONS as Readonly<Record<string, OperationSpec>>)[operationId];
      if (!spec) throw new ToolServiceError({ code: 'unknown_operation', message: `No operation ${String(operationId)} in this SDK's catalog` });
      const { body: answer, meta } = await this.#call(spec, (body ?? {}) as Record<string, unknown>, options);
      return { data: answer as MethodAnswer<K>, meta };
    });
  }

  /** Any path of the API, e.g. `client.request({ method: 'GET', path: '/api/v1/usage' })`. */
  request<T = unknown>(req: RawRequest, options?: RequestOptions): APIPromise<T> {
    return apiPromise(async () => {
      const { body, meta } = await send(this.#http, req, options);
      return { data: body as T, meta };
    });
  }

  #call(spec: OperationSpec, input: Record<string, unknown>, options: RequestOptions | undefined): Promise<HttpResponse> {
    const { path, kind, method } = spec;
    if (kind === 'file' || kind === 'body') {
      return buildMultipart(input, spec.fileField ?? 'file').then((form) => send(this.#http, { method: 'POST', path, body: form }, options));
    }
    // GET tools take their fields in the query string (URL tools, mostly), the others a JSON body.
    return send(this.#http, method === 'GET' ? { method, path, query: input } : { method: 'POST', path, body: input }, options);
  }
}

for (const [operationId, spec] of Object.entries(OPERATIONS as Readonly<Record<string, OperationSpec>>)) {
  if (operationId in ToolServiceClient.prototype) continue;
  Object.defineProperty(ToolServiceClient.prototype, operationId, {
    value: function (this: ToolServiceClient, input: unknown, options?: RequestOptions) {
      return this.invoke(spec.operationId as OperationId, input as never, options);
    },
    writable: true,
    configurable: true,
  });
}
