// The building blocks the generated OpenAPI document (openapi.ts) shares between its tool
// operations (openapi-tools.ts) and its other routes: JSON Schema from zod, the error answers and
// metered headers defined once in components, the success envelope, and the tools' named result
// schemas. They live here so both builders reach them without either holding the other.
import { z } from 'zod';
import type { AnyTool, ErrorBody } from '../core/define-tool.ts';

export type JsonSchema = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
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

/** The headers every metered answer carries: defined once in components.headers, referenced by each 200. */
export const METERED_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  RateLimit: { description: 'IETF RateLimit header: remaining requests this minute and credits this period', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF RateLimit-Policy: the per-minute limit and the monthly credit quota', schema: { type: 'string' } },
  'X-Credits-Remaining': { description: 'Credits left in the account this period', schema: { type: 'integer' } },
  'X-Request-Id': { description: 'The request id, also in the logs', schema: { type: 'string' } },
};

export const meteredHeaders = Object.fromEntries(Object.keys(METERED_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** components.responses name of an error status: the error answers are defined once and referenced. */
const errorResponseName = (status: number): string => `Error${status}`;

/** The schema of each error body a tool may answer (define-tool.ts ErrorBody). */
const ERROR_BODY_SCHEMA: Record<ErrorBody, string> = { envelope: 'ErrorEnvelope', 'status-message': 'StatusMessageError', insight: 'InsightEnvelope' };

/**
 * The error answers of `statuses`: the shared components for the error envelope; inline for a tool
 * whose errors have another body (to-jpg's `{status, message}`, video-insight's envelope).
 */
export function errorResponses(statuses: readonly number[], body: ErrorBody = 'envelope'): Record<string, unknown> {
  if (body === 'envelope') return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_BODY_SCHEMA[body]}` } } } },
    ]),
  );
}

/** The error responses `paths` refers to (an unused component is a lint warning). */
export function errorResponseComponents(paths: unknown): Record<string, unknown> {
  const used = new Set([...JSON.stringify(paths).matchAll(/#\/components\/responses\/(Error\d+)/g)].map((m) => m[1]));
  return Object.fromEntries(
    Object.entries(ERROR_DESCRIPTIONS).filter(([status]) => used.has(errorResponseName(Number(status)))).map(([status, description]) => [
      errorResponseName(Number(status)),
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    ]),
  );
}

export function successSchema(result: JsonSchema): JsonSchema {
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

/**
 * Each tool's result schema, defined once in components.schemas under a name typed clients use
 * (`SeoApisMetaTagsResult`) and referenced from every answer that carries it (a URL tool's
 * envelope and its format=json body, a file tool's envelope).
 */
export class ResultSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  of(tool: AnyTool): JsonSchema {
    const name = `${tool.operationId.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Result`;
    this.schemas[name] ??= jsonSchema(tool.output, 'output');
    return { $ref: `#/components/schemas/${name}` };
  }
}
