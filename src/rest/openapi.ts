// The generated /openapi.json: its assembly (buildOpenApi) and the operations that are not the
// catalog's tools (route specs, the MCP endpoints, the signed download). The tools' operations are
// in openapi-tools.ts, the pieces both share in openapi-components.ts.
import { escapeDescriptionHtml, openApiTags } from './openapi-tags.ts';
import type { Catalog } from '../core/catalog.ts';
import type { RouteSpec } from './route-spec.ts';
import { METERED_HEADERS, ResultSchemas, errorResponseComponents, errorResponses, jsonSchema, successSchema, type JsonSchema } from './openapi-components.ts';
import { toolOperation } from './openapi-tools.ts';

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
