// Checks a real answer against what /openapi.json says that operation answers: the response
// schema of its status and media type, compiled from the served document itself (its
// components included), so the document cannot say one thing while the server does another.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import assert from 'node:assert/strict';

// ajv-formats is CommonJS: its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type OpenApiDocument = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

export interface DocumentedAnswer {
  /** The path as the document writes it (`/api/v1/convertors/to-png`, `/files/{fileId}/{fileName}`). */
  path: string;
  method: string;
  status: number;
  /** The response's Content-Type header; parameters (`; charset=utf-8`) are ignored. */
  contentType: string | undefined;
  /** The parsed JSON body, the text for a text media type, or the bytes (a Buffer) of a file. */
  body: unknown;
}

export interface DocumentedResponses {
  /** Problems with `answer` as the document describes it; empty when the answer matches. */
  problems(answer: DocumentedAnswer): string[];
}

/**
 * The content key that describes `media`: the exact type, else a media range (`image/*`, then
 * `*\/*`), as OpenAPI says the most specific key applies.
 */
function mediaKey(media: string, keys: string[]): string | undefined {
  if (!media.includes('/')) return undefined;
  const lower = new Map(keys.map((key) => [key.toLowerCase(), key]));
  return lower.get(media) ?? lower.get(`${media.split('/')[0]}/*`) ?? lower.get('*/*');
}

const pointer = (...parts: string[]): string => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Reads the served document once; the validators are compiled per operation as they are asked for. */
export function documentedResponses(document: unknown): DocumentedResponses {
  const doc = document as OpenApiDocument;
  // strict: false: OpenAPI adds keywords (example, x-unit, format: binary) that are not JSON Schema's.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();

  return {
    problems({ path, method, status, contentType, body }) {
      const operation = doc.paths[path]?.[method.toLowerCase()];
      if (!operation) return [`${method} ${path} is not in the document`];
      const responses = operation.responses ?? {};
      const statusKey = String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : 'default';
      const response = responses[statusKey];
      if (!response) return [`${method} ${path}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
      const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
      const content = response.content ?? {};
      const key = mediaKey(media, Object.keys(content));
      if (key === undefined) return [`${method} ${path} ${status}: answered ${media || 'no Content-Type'}, documented ${Object.keys(content).join(', ') || 'no body'}`];
      const schema = content[key]?.schema as { type?: unknown; format?: unknown } | undefined;
      if (schema === undefined) return [];
      // Bytes are not JSON: a binary body matches a binary string schema, and nothing else.
      if (body instanceof Uint8Array) {
        return schema.type === 'string' && schema.format === 'binary' ? [] : [`${method} ${path} ${status}: answered bytes (${media}), documented ${JSON.stringify(schema)}`];
      }
      const ref = `openapi.json#/${pointer('paths', path, method.toLowerCase(), 'responses', statusKey, 'content', key, 'schema')}`;
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      if (validate(body)) return [];
      return (validate.errors ?? []).map((error) => `${method} ${path} ${status}: ${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
    },
  };
}

/** The document the app at `base` serves (GET /openapi.json), ready to check answers against. */
export async function documentedResponsesAt(base: string): Promise<DocumentedResponses> {
  const res = await fetch(`${base}/openapi.json`);
  assert.equal(res.status, 200, 'GET /openapi.json');
  return documentedResponses(await res.json());
}

/**
 * Follows a file result's downloadUrl with a plain GET and no key, as a client would (against
 * `base`, the test server's port), and checks the answer against the document's signed download
 * GET /files/{fileId}/{fileName}: status 200 and a documented Content-Type, which is the
 * mimeType the conversion's answer named. Returns the bytes.
 */
export async function downloadDocumented(
  documented: DocumentedResponses,
  base: string,
  body: { result: { downloadUrl: string; mimeType: string } },
  label: string,
): Promise<Buffer> {
  const url = new URL(body.result.downloadUrl);
  const res = await fetch(`${base}${url.pathname}${url.search}`);
  const content = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, `${label}: the downloadUrl answered ${res.status}: ${content.toString('utf8', 0, 300)}`);
  const contentType = res.headers.get('content-type') ?? undefined;
  assert.equal(contentType, body.result.mimeType, `${label}: the download's Content-Type is the answer's mimeType`);
  assert.deepEqual(documented.problems({ path: '/files/{fileId}/{fileName}', method: 'GET', status: res.status, contentType, body: content }), [], `${label}: the download`);
  return content;
}
