// Generates the SDK's typed operations from the catalog, the MCP tool list and the other REST routes' answers:
//   node scripts/generate-sdk.ts        (npm run generate:sdk)
// writes packages/sdk/src/generated/operations.ts. Importing this module writes nothing: the
// staleness test (test/platform/sdk-generated.test.ts) calls generateSdkSource() and compares.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../src/core/catalog.ts';
import type { AnyTool } from '../src/core/define-tool.ts';
import { readAppLists, type ListedMcpTool, type ListedRoute } from './sdk/app-lists.ts';
import { renderOperationsSource } from './sdk/operations-source.ts';

export const GENERATED_PATH = fileURLToPath(new URL('../packages/sdk/src/generated/operations.ts', import.meta.url));

/** What the generated module is made of: the catalog's tools, the MCP server's tools/list and the other routes of /openapi.json. */
export interface SdkSources {
  tools: readonly AnyTool[];
  mcpTools: readonly ListedMcpTool[];
  routes: readonly ListedRoute[];
}

/** Loads the catalog as the app does and reads tools/list and /openapi.json from the real app, in process. */
export async function collectSdkSources(): Promise<SdkSources> {
  const catalog = await loadCatalog();
  return { tools: catalog.tools, ...(await readAppLists(catalog)) };
}

/**
 * The text of packages/sdk/src/generated/operations.ts as the catalog and MCP server make it
 * now (from `sources` when given, so a caller holding them does not start the app again).
 */
export async function generateSdkSource(sources?: SdkSources): Promise<string> {
  const { tools, mcpTools, routes } = sources ?? (await collectSdkSources());
  return renderOperationsSource(tools, mcpTools, routes);
}

if (import.meta.main) {
  const source = await generateSdkSource();
  mkdirSync(dirname(GENERATED_PATH), { recursive: true });
  writeFileSync(GENERATED_PATH, source);
  console.log(`wrote ${GENERATED_PATH} (${source.split('\n').length - 1} lines)`);
}
