import { escapeDescriptionHtml, openApiTags } from './openapi-tags.ts';
import { z } from 'zod';
import type { Catalog } from '../core/catalog.ts';
import type { AnyTool, ErrorBody, FileToolExample } from '../core/define-tool.ts';
import { insightSuccess, successEnvelope } from '../core/envelope.ts';
import type { RouteSpec } from './route-spec.ts';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // A field's unit (zod metadata `unit`) is an OpenAPI extension keyword, `x-unit`.
    override: ({ jsonSchema: node }) => {
      if (typeof node['unit'] === 'string') {
        node['x-unit'] = node['unit'];
        delete node['unit'];
      }
    },
  }) as JsonSchema;
  delete out['$schema'];
  return out;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: the envelope names each bad field (`issues`) and what to fix (required, a whole number, a range with its unit, the allowed values of an enum, a field the tool does not have); `forbidden_key` for a `__proto__` or `constructor.prototype` key. Not charged.',
  401: 'Missing, invalid or revoked API key (`missing_api_key`, `invalid_api_key`, `api_key_revoked`).',
  403: 'Not allowed: e-mail not verified, account inactive, tool outside the plan or outside the key scopes.',
  404: 'Not found.',
  410: '`delivery=binary` after its sunset date.',
  413: 'The upload is larger than the upload limit.',
  415: 'The upload is not of an accepted type (checked by content, not name), or not multipart/form-data; for JSON tools, a Content-Type other than application/json.',
  422: 'The file could not be processed: corrupt, encrypted, a document bomb, or unsafe content. Charged: the work was attempted on the file given.',
  409: 'Idempotency-Key reused with a different body, or still running; or a conflicting resource.',
  429: 'Rate limited (`rate_limited`, with Retry-After) or monthly quota exhausted (`quota_exhausted`, with `resetAt` and `x-should-retry: false`).',
  500: 'The service failed; the call is refunded.',
  502: 'An upstream provider failed or refused (`ai_provider_error`, `ai_provider_unreachable`, with `providerStatus`); refunded.',
  503: 'A dependency (an engine) is unavailable; refunded.',
  504: 'The tool did not finish in time; refunded.',
};

const TOOL_ERRORS = [400, 401, 403, 409, 429, 500, 504] as const;

/** The headers every metered answer carries: defined once in components.headers, referenced by each 200. */
const METERED_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  RateLimit: { description: 'IETF RateLimit header: remaining requests this minute and credits this period', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF RateLimit-Policy: the per-minute limit and the monthly credit quota', schema: { type: 'string' } },
  'X-Credits-Remaining': { description: 'Credits left in the account this period', schema: { type: 'integer' } },
  'X-Request-Id': { description: 'The request id, also in the logs', schema: { type: 'string' } },
};

const meteredHeaders = Object.fromEntries(Object.keys(METERED_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** components.responses name of an error status: the error answers are defined once and referenced. */
const errorResponseName = (status: number): string => `Error${status}`;

/** The schema of each error body a tool may answer (define-tool.ts ErrorBody). */
const ERROR_BODY_SCHEMA: Record<ErrorBody, string> = { envelope: 'ErrorEnvelope', 'status-message': 'StatusMessageError', insight: 'InsightEnvelope' };

/**
 * The error answers of `statuses`: the shared components for the error envelope; inline for a tool
 * whose errors have another body (to-jpg's `{status, message}`, video-insight's envelope).
 */
function errorResponses(statuses: readonly number[], body: ErrorBody = 'envelope'): Record<string, unknown> {
  if (body === 'envelope') return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_BODY_SCHEMA[body]}` } } } },
    ]),
  );
}

/** The error responses `paths` refers to (an unused component is a lint warning). */
function errorResponseComponents(paths: unknown): Record<string, unknown> {
  const used = new Set([...JSON.stringify(paths).matchAll(/#\/components\/responses\/(Error\d+)/g)].map((m) => m[1]));
  return Object.fromEntries(
    Object.entries(ERROR_DESCRIPTIONS).filter(([status]) => used.has(errorResponseName(Number(status)))).map(([status, description]) => [
      errorResponseName(Number(status)),
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    ]),
  );
}

function successSchema(result: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['status', 'code', 'message', 'result', 'warnings', 'error'],
    properties: {
      status: { type: 'boolean', const: true },
      code: { type: 'integer' },
      message: { type: 'string' },
      result,
      warnings: { type: 'array', items: { type: 'string' } },
      error: { type: 'string', description: 'Empty on success' },
    },
  };
}

/** The 200 body of a JSON tool: the success envelope, or video-insight's own (its text as `result`, beside `meta`). */
function jsonToolSuccess(tool: AnyTool, results: ResultSchemas): { schema: JsonSchema; example: (output: unknown) => unknown } {
  if (tool.errorBody !== 'insight') return { schema: successSchema(results.of(tool)), example: (result) => successEnvelope(result) };
  const output = jsonSchema(tool.output, 'output');
  const meta = ((output['properties'] ?? {}) as Record<string, JsonSchema>)['meta'] ?? { type: 'object' };
  return {
    schema: { allOf: [{ $ref: '#/components/schemas/InsightEnvelope' }, { type: 'object', properties: { status: { const: true }, result: { type: 'string', description: "The model's answer" }, meta } }] },
    example: (result) => insightSuccess(result),
  };
}

/**
 * Each tool's result schema, defined once in components.schemas under a name typed clients use
 * (`SeoApisMetaTagsResult`) and referenced from every answer that carries it (a URL tool's
 * envelope and its format=json body, a file tool's envelope).
 */
class ResultSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  of(tool: AnyTool): JsonSchema {
    const name = `${tool.operationId.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Result`;
    this.schemas[name] ??= jsonSchema(tool.output, 'output');
    return { $ref: `#/components/schemas/${name}` };
  }
}

function toolOperation(tool: AnyTool, publicBaseUrl: string, results: ResultSchemas): Record<string, unknown> {
  const input = jsonSchema(tool.input, 'input');
  const exampleInputs = [...tool.examples, ...(tool.urlExamples ?? [])];
  const examples = Object.fromEntries(exampleInputs.map((ex, i) => [`example${i + 1}`, { summary: ex.title, value: ex.input }]));
  // A file tool's 200 is fileToolSuccess's (below); only a JSON tool's result goes in components here.
  const success = tool.upload ? undefined : jsonToolSuccess(tool, results);
  const responseExamples = Object.fromEntries(tool.examples.map((ex, i) => [`example${i + 1}`, { summary: ex.title, value: success?.example(ex.output) }]));
  const errorBody = tool.errorBody ?? 'envelope';
  // The AI tool can also refuse the video (422), fail upstream (502) or find no provider (503).
  const toolErrors = [...(tool.method === 'POST' ? [...TOOL_ERRORS, 415] : TOOL_ERRORS), ...(tool.family === 'ai-models' ? [422, 502, 503] : [])];
  const operation: Record<string, unknown> = {
    operationId: tool.operationId,
    summary: tool.title,
    description: `${tool.description}\n\nCost: ${tool.credits} credit${tool.credits === 1 ? '' : 's'} per successful call.${
      tool.aliases.length > 0 ? ` Also known as: ${tool.aliases.join(', ')}.` : ''
    }`,
    tags: [tool.family],
    security: [{ ApiKeyAuth: [] }],
    'x-credits': tool.credits,
    responses: {
      ...(success ? { '200': { description: 'Success envelope', headers: meteredHeaders, content: { 'application/json': { schema: success.schema, examples: responseExamples } } } } : {}),
      // A POST JSON tool answers 415 to a body that is not application/json.
      ...errorResponses(toolErrors, errorBody),
    },
  };
  if (tool.upload) {
    const fileExamples = tool.fileExamples ?? [];
    operation['parameters'] = [
      { $ref: '#/components/parameters/IdempotencyKey' },
      {
        name: 'delivery',
        in: 'query',
        required: false,
        deprecated: true,
        description: '`binary` returns the bytes directly with Deprecation and Sunset headers (deprecated; 410 after the sunset). Omit it for the JSON answer with a downloadUrl.',
        schema: { type: 'string', enum: ['json', 'binary'] },
      },
    ];
    const properties = { ...((input['properties'] ?? {}) as Record<string, JsonSchema>) };
    operation['requestBody'] = {
      required: true,
      description: `The source file in the form field \`${tool.upload.field}\`${(tool.upload.alsoAccepts ?? []).map((f) => ` (or \`${f}\`)`).join('')} (${tool.upload.accept.join(', ')}; the type is checked by content). Options as form fields or query parameters.`,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: [tool.upload.field],
            properties: { [tool.upload.field]: { type: 'string', format: 'binary', description: `The ${tool.upload.accept.join(' / ')} file` }, ...properties },
          },
        },
      },
    };
    operation['responses'] = {
      '200': fileToolSuccess(tool, fileExamples, publicBaseUrl, results),
      ...errorResponses([...TOOL_ERRORS, 410, 413, 415, 422, 503], errorBody),
    };
    return operation;
  }
  if (tool.kind === 'url') describeUrlTool(operation, tool, results);
  if (tool.method === 'GET') {
    const properties = (input['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = new Set((input['required'] ?? []) as string[]);
    const firstExample = (exampleInputs[0]?.input ?? {}) as Record<string, unknown>;
    operation['parameters'] = [
      ...Object.entries(properties).map(([name, schema]) => ({
        name,
        in: 'query',
        required: required.has(name),
        schema,
        description: schema['description'],
        ...(firstExample[name] === undefined ? {} : { example: firstExample[name] }),
      })),
      ...(tool.kind === 'url' ? [FORMAT_PARAMETER] : []),
    ];
  } else {
    operation['parameters'] = [{ $ref: '#/components/parameters/IdempotencyKey' }, ...(tool.kind === 'url' ? [FORMAT_PARAMETER] : [])];
    operation['requestBody'] = {
      required: true,
      description: 'The fields at the top level, or nested under `inputs`.',
      content: {
        'application/json': {
          schema: { oneOf: [input, { type: 'object', required: ['inputs'], properties: { inputs: input } }] },
          examples,
        },
      },
    };
  }
  return operation;
}

const FORMAT_PARAMETER = {
  name: 'format',
  in: 'query',
  required: false,
  description: '`markdown`: the report as text/markdown from a fixed template; `json`: the result alone, pretty-printed, without the envelope. Leave it out for the envelope. Errors are always the JSON envelope.',
  schema: { type: 'string', enum: ['markdown', 'json'] },
};

/** A URL tool answers Markdown too, and names the fetch failures it can answer (none of them charged). */
function describeUrlTool(operation: Record<string, unknown>, tool: AnyTool, results: ResultSchemas): void {
  const responses = operation['responses'] as Record<string, { content?: Record<string, unknown> }>;
  const ok = responses['200'];
  if (ok?.content) {
    ok.content['text/markdown'] = { schema: { type: 'string' }, example: '# ' + tool.title + '\n\nURL: `https://example.com/`\n\n## Scores\n…' };
    // format=json answers the result alone, not the envelope: the JSON body is one or the other.
    const json = ok.content['application/json'] as { schema: JsonSchema } | undefined;
    if (json) json.schema = { anyOf: [json.schema, { description: 'With format=json: the result alone, without the envelope', allOf: [results.of(tool)] }] };
  }
  Object.assign(responses, errorResponses([422]));
  operation['description'] = `${String(operation['description'])}\n\nA refused URL (400 url_not_allowed, invalid_url), an unreachable one (422 fetch_failed, naming dns, connect, tls, timeout, size, redirects or http) and a full fetch queue (429 fetch_busy) are not charged.`;
}

function routeOperation(route: RouteSpec): Record<string, unknown> {
  const operation: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    responses: {
      [String(route.success.status)]: {
        description: route.success.description,
        content: { 'application/json': { schema: route.envelope === false ? jsonSchema(route.success.result, 'output') : successSchema(jsonSchema(route.success.result, 'output')) } },
      },
      // A keyless route is limited per client address (KEYLESS_REQUESTS_PER_MINUTE): it can answer 429 too.
      ...errorResponses(route.auth === 'none' && !route.errors.includes(429) ? [...route.errors, 429] : route.errors),
    },
  };
  if (route.auth === 'apiKey') operation['security'] = [{ ApiKeyAuth: [] }];
  if (route.auth === 'apiKeyOrPassword') operation['security'] = [{ ApiKeyAuth: [] }, { BasicAuth: [] }];
  if (route.auth === 'none') operation['security'] = [];
  const parameters: unknown[] = [];
  for (const [where, schema] of [['query', route.query], ['path', route.params]] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema, 'input');
    const required = new Set((js['required'] ?? []) as string[]);
    for (const [name, prop] of Object.entries((js['properties'] ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: prop, description: prop['description'] });
    }
  }
  if (parameters.length > 0) operation['parameters'] = parameters;
  if (route.body) operation['requestBody'] = { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } };
  return operation;
}

/** The MCP endpoints: not REST operations, but /docs should say where an agent connects and how. */
const MCP_CLIENT_JSON = '{"mcpServers": {"tool-service": {"url": "<base>/mcp", "headers": {"X-Api-Key": "<API_KEY>"}}}}';
const MCP_COMMON =
  'Auth: `X-Api-Key: <key>` or `Authorization: Bearer <key>`; a missing or bad key is a 401 JSON error before any MCP processing, a foreign browser `Origin` a 403. ' +
  'Tools: discover_tools and get_tool_schema (free), invoke_tool (charged what the same REST call costs, from the same credits and rate limit). ' +
  `Client configuration: \`${MCP_CLIENT_JSON}\`.`;
const MCP_OPERATIONS: readonly { path: string; method: 'get' | 'post'; operationId: string; summary: string; description: string; response: string }[] = [
  { path: '/mcp', method: 'post', operationId: 'mcp_streamable_http', summary: 'MCP over Streamable HTTP', description: 'The Model Context Protocol endpoint (Streamable HTTP, stateless: one JSON-RPC message per POST, answered as JSON or an SSE stream; no Mcp-Session-Id is issued).', response: 'The JSON-RPC response (application/json or text/event-stream)' },
  { path: '/mcp/http', method: 'post', operationId: 'mcp_streamable_http_alias', summary: 'MCP over Streamable HTTP (alias of POST /mcp)', description: 'The same Streamable HTTP endpoint as POST /mcp, for clients configured with an explicit /mcp/http URL.', response: 'The JSON-RPC response (application/json or text/event-stream)' },
  { path: '/mcp', method: 'get', operationId: 'mcp_legacy_sse', summary: 'MCP over the legacy HTTP+SSE transport', description: 'Opens an SSE stream whose first `endpoint` event names POST /mcp/messages?sessionId=… where the client sends its messages; the answers come on the stream. The session lives in the process holding the stream. A GET carrying Mcp-Session-Id answers 405 (the Streamable endpoint keeps no sessions).', response: 'An SSE stream (text/event-stream)' },
];

function mcpOperation(op: (typeof MCP_OPERATIONS)[number]): Record<string, unknown> {
  const media = op.method === 'get' ? 'text/event-stream' : 'application/json';
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description}\n\n${MCP_COMMON}`,
    tags: ['mcp'],
    security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
    ...(op.method === 'post' ? { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message (initialize, tools/list, tools/call, …)' } } } } } : {}),
    responses: { '200': { description: op.response, content: { [media]: { schema: op.method === 'get' ? { type: 'string' } : { type: 'object' } } } }, ...errorResponses([401, 403]) },
  };
}

/** The OpenAPI 3.1 document, generated from the catalog and the route specs: never hand-written. */
export function buildOpenApi(catalog: Catalog, routes: readonly RouteSpec[], options: { publicBaseUrl: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, operation: Record<string, unknown>) => {
    const openApiPath = path.replace(/:([A-Za-z]+)/g, '{$1}');
    const described = typeof operation['description'] === 'string' ? { ...operation, description: escapeDescriptionHtml(operation['description']) } : operation;
    (paths[openApiPath] ??= {})[method.toLowerCase()] = described;
  };
  for (const route of routes) add(route.url, route.method, routeOperation(route));
  const results = new ResultSchemas();
  for (const tool of catalog.tools) add(tool.path, tool.method, toolOperation(tool, options.publicBaseUrl, results));
  for (const op of MCP_OPERATIONS) add(op.path, op.method, mcpOperation(op));
  add('/files/:fileId/:fileName', 'GET', DOWNLOAD_OPERATION);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Utility Tool Service',
      version: options.version,
      description:
        'Single-purpose tools over HTTP. Every tool call carries `X-Api-Key`; all keys of an account share one monthly credit quota. ' +
        'Credits: a successful call is charged the tool cost; a 400 validation failure and any 5xx are not charged (refunded). ' +
        'POST tool calls accept `Idempotency-Key`: a retry within 24 h replays the stored response without a second charge.',
      license: { name: 'MIT', identifier: 'MIT' },
      // Self-hosted: the contact is whoever runs this instance, at its own base URL.
      contact: { name: 'The operators of this instance', url: `${options.publicBaseUrl}/docs` },
    },
    servers: [{ url: options.publicBaseUrl }],
    tags: openApiTags(catalog.families()),
    paths,
    components: {
      headers: METERED_HEADERS,
      responses: errorResponseComponents(paths),
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key secret (starts with uts_live_)' },
        BasicAuth: { type: 'http', scheme: 'basic', description: 'Account e-mail and password; only for key management' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same API key as a Bearer token; accepted on the MCP endpoints for clients that can only send Authorization' },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a POST safe to retry for 24 h: the same key and body replays the stored response uncharged; the same key with another body answers 409.',
          schema: { type: 'string', maxLength: 255 },
        },
      },
      schemas: {
        ...results.schemas,
        ErrorEnvelope: {
          type: 'object',
          required: ['status', 'code', 'message', 'detail', 'error'],
          properties: {
            status: { type: 'boolean', const: false },
            code: { type: 'integer', description: 'The HTTP status' },
            message: { type: 'string' },
            detail: { type: 'string' },
            error: { type: 'string', description: 'Machine-readable error code, e.g. validation_error, quota_exhausted, rate_limited' },
            issues: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' }, allowed: { type: 'array', items: { type: ['string', 'number'] } } } },
            },
            requestId: { type: 'string' },
          },
        },
        StatusMessageError: {
          type: 'object',
          description: "The spec's short error body of convertors/to-jpg",
          required: ['status', 'message'],
          properties: { status: { type: 'integer', description: 'The HTTP status' }, message: { type: 'string' } },
        },
        InsightEnvelope: {
          type: 'object',
          description: "The spec's envelope of ai-models/video-insight, on success and on error",
          required: ['status', 'code', 'message', 'result', 'meta', 'error', 'retryAfterSeconds'],
          properties: {
            status: { type: 'boolean' },
            code: { type: 'integer', description: 'The HTTP status' },
            message: { type: 'string' },
            result: { type: 'string', description: "The model's answer; empty on error" },
            meta: { type: 'object', description: 'What produced the answer (provider, model, video, tokens or frames, time); empty on error' },
            error: { type: 'string', description: 'Machine-readable error code; empty on success' },
            retryAfterSeconds: { type: 'integer', description: 'Seconds to wait before retrying (a busy provider); 0 when there is nothing to wait for' },
            detail: { type: 'string' },
            requestId: { type: 'string' },
          },
        },
      },
    },
  };
}

/**
 * The 200 of a file tool as it really answers: the text itself (to-base64), the envelope with the
 * JSON answer (image-metadata, csv-2-json, archive list), or the envelope with a signed link.
 */
function fileToolSuccess(tool: Catalog['tools'][number], fileExamples: readonly FileToolExample<unknown>[], publicBaseUrl: string, results: ResultSchemas): Record<string, unknown> {
  if (tool.answer === 'text') {
    return { description: 'The text itself (text/plain), not the envelope; errors are the JSON envelope', headers: meteredHeaders, content: { 'text/plain': { schema: { type: 'string' } } } };
  }
  if (tool.answer === 'json') {
    const examples = Object.fromEntries(
      fileExamples.filter((ex) => ex.expect.facts !== undefined).map((ex, i) => [`example${i + 1}`, { summary: ex.title, value: { status: true, code: 200, message: 'OK', result: ex.expect.facts, warnings: [], error: '' } }]),
    );
    return { description: 'Success envelope: result is the JSON answer (nothing is stored, no link)', headers: meteredHeaders, content: { 'application/json': { schema: successSchema(results.of(tool)), ...(Object.keys(examples).length > 0 ? { examples } : {}) } } };
  }
  return {
    description: 'File result: a presigned download link (valid DOWNLOAD_URL_TTL_SECONDS, 1 hour by default); with the deprecated `delivery=binary`, the file itself in its own type',
    headers: meteredHeaders,
    content: {
      '*/*': { schema: { type: 'string', format: 'binary' } },
      'application/json': {
        schema: successSchema(results.of(tool)),
        examples: Object.fromEntries(
          fileExamples.map((ex, i) => [
            `example${i + 1}`,
            {
              summary: ex.title,
              value: {
                status: true,
                code: 200,
                message: 'OK',
                result: {
                  fileId: '3f1c9a52-8a0e-4c67-9a43-2f0b6de0c9a1',
                  // A link as signed-links.ts writes it (the signature is base64url HMAC-SHA256), so the example is a valid URI.
                  downloadUrl: `${publicBaseUrl}/files/3f1c9a52-8a0e-4c67-9a43-2f0b6de0c9a1/document.${ex.expect.extension}?expires=1798761600&signature=${EXAMPLE_SIGNATURE}`,
                  expiresAt: '2027-01-01T00:00:00.000Z',
                  fileName: `document.${ex.expect.extension}`,
                  mimeType: ex.expect.mimeType,
                  sizeBytes: 18342,
                },
                warnings: [],
                error: '',
              },
            },
          ]),
        ),
      },
    },
  };
}

const EXAMPLE_SIGNATURE = 'kJ3v9Qx2Lm8TzR1cW5yN0bH7pD4sF6gA2eU8iO3qX1Y';

/** The signed download every client follows from a file result's downloadUrl (file-routes.ts). */
const DOWNLOAD_OPERATION: Record<string, unknown> = {
  operationId: 'files_download',
  summary: 'Download a result by its signed link',
  description: 'The `downloadUrl` of a file result, followed as it is: no key, the signature is the authorisation. The link lives for DOWNLOAD_URL_TTL_SECONDS (1 hour by default); the file is kept for the retention period.',
  tags: ['catalog'],
  security: [],
  parameters: [
    { name: 'fileId', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'fileName', in: 'path', required: true, schema: { type: 'string' }, description: 'The file name, as in the link' },
    { name: 'expires', in: 'query', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]{0,11}$' }, description: 'Unix time the link expires at' },
    { name: 'signature', in: 'query', required: true, schema: { type: 'string' }, description: "The link's HMAC" },
  ],
  responses: {
    '200': {
      description: "The file, with its own Content-Type (the result's mimeType), Content-Length and Content-Disposition",
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    },
    '403': { description: '`invalid_signature`: the link was altered or is incomplete.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    '410': { description: '`link_expired` (run the conversion again for a new link) or `file_gone` (past the retention period).', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    '503': { description: '`storage_unavailable`: the result store (S3) did not answer; retry after `Retry-After`. The file is not lost.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
  },
};
