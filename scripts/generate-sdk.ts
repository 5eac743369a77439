// Generates the SDK's typed operations from the catalog and the MCP tool list:
//   node scripts/generate-sdk.ts        (npm run generate:sdk)
// writes packages/sdk/src/generated/operations.ts. Importing this module writes nothing: the
// staleness test (test/platform/sdk-generated.test.ts) calls generateSdkSource() and compares.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../src/core/catalog.ts';
import type { AnyTool } from '../src/core/define-tool.ts';
import { listMcpTools, type ListedMcpTool } from './sdk/mcp-tool-list.ts';
import { renderOperationsSource } from './sdk/operations-source.ts';

export const GENERATED_PATH = fileURLToPath(new URL('../packages/sdk/src/generated/operations.ts', import.meta.url));

/** What the generated module is made of: the catalog's tools and the MCP server's tools/list. */
export interface SdkSources {
  tools: readonly AnyTool[];
  mcpTools: readonly ListedMcpTool[];
}

/** Loads the catalog as the app does and reads tools/list from the real MCP server, in process. */
export async function collectSdkSources(): Promise<SdkSources> {
  const catalog = await loadCatalog();
  return { tools: catalog.tools, mcpTools: await listMcpTools(catalog) };
}

/**
 * The text of packages/sdk/src/generated/operations.ts as the catalog and MCP server make it
 * now (from `sources` when given, so a caller holding them does not start the app again).
 */
export async function generateSdkSource(sources?: SdkSources): Promise<string> {
  const { tools, mcpTools } = sources ?? (await collectSdkSources());
  return renderOperationsSource(tools, mcpTools);
}

if (import.meta.main) {
  const source = await generateSdkSource();
  mkdirSync(dirname(GENERATED_PATH), { recursive: true });
  writeFileSync(GENERATED_PATH, source);
  console.log(`wrote ${GENERATED_PATH} (${source.split('\n').length - 1} lines)`);
}
