// tools/list as an agent's context window receives it. The SDK turns each tool's zod schemas into
// JSON Schema on every tools/list, and zod writes every integer with the bounds of a safe integer
// (`"minimum": -9007199254740991, "maximum": 9007199254740991`) and every output field with its
// description, which the tool's own description already says: a third of the list was that. Here
// the list is built once per tool set, those bounds dropped (they say nothing a JSON integer does
// not), with each schema's `$schema`, string `propertyNames` and the default taskSupport, and
// output schemas kept to their shape (types, required, enums): what a client validates.
// Input schemas keep their descriptions: they are how an agent learns what to send.
//
// Output schemas are listed, not checked again on every call: the SDK re-parses each answer's
// structured content against its tool's output schema (an async zod parse, a sixth of invoke_tool's
// server CPU, and more for the planner's large results). The answers are ours, built to that
// schema, and the SDK's client checks every answer against the listed schema anyway, as the tests
// do through it; so the schemas are moved out of the SDK's tool records, where only that per-call
// check reads them, and this list converts them as the SDK would.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { normalizeObjectSchema, type AnyObjectSchema, type ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: unknown, extra: unknown) => Promise<ListToolsResult>;

const SAFE = Number.MAX_SAFE_INTEGER;
const cache = new Map<string, ListToolsResult>();
const MAX_CACHED = 8;

/** A JSON Schema without safe-integer bounds, and (for output schemas) without descriptions. */
export function compactSchema(schema: unknown, dropDescriptions: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s, dropDescriptions));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) continue;
    // The draft a schema follows is the protocol's; a JSON object's keys are strings anyway.
    if (key === '$schema' || (key === 'propertyNames' && isStringType(value))) continue;
    if (dropDescriptions && key === 'description' && typeof value === 'string') continue;
    // `properties` maps field names to schemas: a field named "description" is a field, not a note.
    out[key] = key === 'properties' && value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compactSchema(v, dropDescriptions)])) : compactSchema(value, dropDescriptions);
  }
  return out;
}

function isStringType(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Object.keys(value).length === 1 && (value as { type?: unknown }).type === 'string';
}

/**
 * An output schema as the list carries it: its top-level fields with their types, required and
 * enums; a nested object or array keeps only its type (what it holds is described by the tool and
 * shows in every answer). A client's check of an answer against it still catches a wrong shape.
 */
export function outlineSchema(schema: unknown, depth = 0): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as Record<string, unknown>;
  if (depth >= 2) {
    const kept: Record<string, unknown> = {};
    for (const key of ['type', 'enum', 'const', 'anyOf']) if (s[key] !== undefined) kept[key] = key === 'anyOf' ? (s[key] as unknown[]).map((v) => outlineSchema(v, depth)) : s[key];
    return kept;
  }
  const out: Record<string, unknown> = { ...s };
  if (s['properties'] !== null && typeof s['properties'] === 'object') out['properties'] = Object.fromEntries(Object.entries(s['properties'] as object).map(([k, v]) => [k, outlineSchema(v, depth + 1)]));
  if (s['items'] !== undefined) out['items'] = outlineSchema(s['items'], depth + 1);
  return out;
}

type ListedTool = ListToolsResult['tools'][number];

/** The tool with its output schema as the SDK's own list would give it. */
function withOutputSchema(tool: Omit<ListedTool, 'execution'>, schema: AnyObjectSchema | ZodRawShapeCompat | undefined): Omit<ListedTool, 'execution'> {
  const object = schema === undefined ? undefined : normalizeObjectSchema(schema);
  return object === undefined ? tool : { ...tool, outputSchema: toJsonSchemaCompat(object, { strictUnions: true, pipeStrategy: 'output' }) as ListedTool['outputSchema'] };
}

/** Replaces the server's tools/list handler by one that answers the compact list, built once per tool set. */
export function compactToolList(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const original = handlers.get('tools/list');
  if (original === undefined) return;
  const registered = (server as unknown as { _registeredTools: Record<string, { outputSchema?: AnyObjectSchema | ZodRawShapeCompat | undefined }> })._registeredTools;
  const outputSchemas = new Map<string, AnyObjectSchema | ZodRawShapeCompat>();
  for (const [name, tool] of Object.entries(registered)) {
    if (tool.outputSchema === undefined) continue;
    outputSchemas.set(name, tool.outputSchema);
    tool.outputSchema = undefined;
  }
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const key = Object.keys(registered).join('\u0000');
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const full = await original({ method: 'tools/list', params: request.params }, extra);
    const list: ListToolsResult = {
      ...full,
      tools: full.tools.map(({ execution, ...listed }) => {
        const tool = withOutputSchema(listed, outputSchemas.get(listed.name));
        return {
          ...tool,
          // taskSupport "forbidden" is what an absent execution means.
          ...(execution === undefined || execution.taskSupport === 'forbidden' ? {} : { execution }),
          inputSchema: compactSchema(tool.inputSchema, false) as typeof tool.inputSchema,
          ...(tool.outputSchema === undefined ? {} : { outputSchema: outlineSchema(compactSchema(tool.outputSchema, true)) as typeof tool.outputSchema }),
        };
      }),
    };
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, list);
    return list;
  });
}
