// What the real app lists to a client, read from its own answers: the MCP tools as tools/list
// gives them, and the REST routes beside the tools (accounts, keys, usage, webhooks, …) as
// /openapi.json describes them, whose answers the route specs' zod views make. The app is built in
// process on a temporary data folder and asked over Fastify inject (no socket); everything is
// closed and removed before this returns. Reading the real answers rather than re-deriving them
// keeps the SDK's names, inputs and results what the server lists, including the compaction
// src/mcp/tool-list.ts applies and the document src/rest/openapi.ts builds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { createApp } from '../../src/server.ts';
import type { JsonSchema } from './schema-to-ts.ts';

export interface ListedMcpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A REST route that is not a catalog tool and answers the success envelope: its `result` schema as /openapi.json has it. */
export interface ListedRoute {
  operationId: string;
  method: string;
  /** The OpenAPI path, `{name}` for a path parameter */
  path: string;
  summary: string;
  result: JsonSchema;
}

export interface AppLists {
  mcpTools: ListedMcpTool[];
  routes: ListedRoute[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The routes of an OpenAPI document whose first 2xx answer is the JSON envelope with a `result`,
 * the catalog's tools left out (the SDK types those from the catalog itself). The MCP endpoints
 * and the signed download answer no envelope, so they are not among them.
 */
export function envelopeRoutes(document: unknown, toolIds: ReadonlySet<string>): ListedRoute[] {
  const paths = isObject(document) && isObject(document['paths']) ? document['paths'] : {};
  const routes: ListedRoute[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || typeof operation['operationId'] !== 'string' || toolIds.has(operation['operationId'])) continue;
      const responses = isObject(operation['responses']) ? operation['responses'] : {};
      const success = Object.entries(responses).find(([status]) => /^2\d\d$/.test(status))?.[1];
      const content = isObject(success) && isObject(success['content']) ? success['content']['application/json'] : undefined;
      const schema = isObject(content) ? content['schema'] : undefined;
      const result = isObject(schema) && isObject(schema['properties']) ? schema['properties']['result'] : undefined;
      if (!isObject(result)) continue;
      routes.push({ operationId: operation['operationId'], method: method.toUpperCase(), path, summary: typeof operation['summary'] === 'string' ? operation['summary'] : '', result });
    }
  }
  return routes;
}

export async function readAppLists(catalog: Catalog): Promise<AppLists> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tool-service-sdk-gen-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8080', ENGINES_WARM_ON_START: 'false' });
    const { app, services } = await createApp(config, { catalog });
    try {
      await app.ready();
      const account = await services.accounts.createAccount({ email: 'sdk-generator@example.com', verified: true });
      const { secret } = await services.accounts.createKey({ accountId: account.id, tools: null, canManageKeys: true });
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': secret },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      if (response.statusCode !== 200) throw new Error(`tools/list answered ${response.statusCode}: ${response.body}`);
      const body = JSON.parse(response.body) as { result?: { tools?: ListedMcpTool[]; nextCursor?: string } };
      const tools = body.result?.tools;
      if (!Array.isArray(tools) || tools.length === 0) throw new Error(`tools/list answered no tools: ${response.body.slice(0, 500)}`);
      // One page is the whole list today; a cursor would mean tools the SDK silently lacked.
      if (body.result?.nextCursor !== undefined) throw new Error('tools/list is paginated: the generator reads one page only');

      const openapi = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (openapi.statusCode !== 200) throw new Error(`/openapi.json answered ${openapi.statusCode}: ${openapi.body.slice(0, 500)}`);
      const routes = envelopeRoutes(JSON.parse(openapi.body), new Set(catalog.tools.map((t) => t.operationId)));
      if (routes.length === 0) throw new Error('/openapi.json lists no route besides the tools');
      return { mcpTools: tools, routes };
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
