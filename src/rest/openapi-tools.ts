// The operations of the catalog's tools in the generated OpenAPI document (openapi.ts): each
// tool's parameters or body, its success answer (the envelope, a URL tool's Markdown and
// format=json, a file tool's text, JSON answer or signed link) and the errors it can answer. They
// live apart from the document's assembly because they are the bulk of it and change with the
// tool definitions (define-tool.ts), not with the document's fixed parts.
import type { Catalog } from '../core/catalog.ts';
import type { AnyTool, FileToolExample } from '../core/define-tool.ts';
import { insightSuccess, successEnvelope } from '../core/envelope.ts';
import { errorResponses, jsonSchema, meteredHeaders, successSchema, type JsonSchema, type ResultSchemas } from './openapi-components.ts';

const TOOL_ERRORS = [400, 401, 403, 409, 429, 500, 504] as const;

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

export function toolOperation(tool: AnyTool, publicBaseUrl: string, results: ResultSchemas): Record<string, unknown> {
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
