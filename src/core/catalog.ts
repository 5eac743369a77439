import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isTool, type AnyTool } from './define-tool.ts';

const CATALOG_DIR = fileURLToPath(new URL('../catalog/', import.meta.url));

/** The tools, indexed by operationId. Built once at start; read-only after. */
export class Catalog {
  readonly tools: readonly AnyTool[];
  readonly #byOperationId: Map<string, AnyTool>;

  constructor(tools: readonly AnyTool[]) {
    const byId = new Map<string, AnyTool>();
    for (const tool of tools) {
      if (byId.has(tool.operationId)) throw new Error(`duplicate tool operationId ${tool.operationId}`);
      byId.set(tool.operationId, tool);
    }
    this.tools = [...byId.values()].sort((a, b) => a.operationId.localeCompare(b.operationId));
    this.#byOperationId = byId;
  }

  get(operationId: string): AnyTool | undefined {
    return this.#byOperationId.get(operationId);
  }

  families(): string[] {
    return [...new Set(this.tools.map((t) => t.family))].sort();
  }
}

/** The module each discovered tool was exported from: a compute worker imports it to run the tool. */
const MODULE_OF = new WeakMap<AnyTool, string>();

/** The URL of the module `tool` was discovered in (undefined for a tool built in place, e.g. by a test). */
export function toolModule(tool: AnyTool): string | undefined {
  return MODULE_OF.get(tool);
}

/** The tools a module exports (a tool, or an array of tools), each remembered with its module. */
export async function loadToolModule(url: string): Promise<AnyTool[]> {
  const mod = (await import(url)) as Record<string, unknown>;
  const tools: AnyTool[] = [];
  for (const value of Object.values(mod)) {
    if (isTool(value)) tools.push(value);
    else if (Array.isArray(value) && value.length > 0 && value.every(isTool)) tools.push(...value);
  }
  for (const tool of tools) MODULE_OF.set(tool, url);
  return tools;
}

async function listModules(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listModules(path)));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

/**
 * Discovers every tool under src/catalog: any exported tool, or exported array of tools (a
 * conversion table expanded into tools). Discovery instead of a registration list means adding
 * a tool is adding a file, and no list can fall out of date.
 */
export async function loadCatalog(dir: string = CATALOG_DIR): Promise<Catalog> {
  const tools: AnyTool[] = [];
  for (const file of await listModules(dir)) tools.push(...(await loadToolModule(pathToFileURL(file).href)));
  if (tools.length === 0) throw new Error(`no tools found under ${relative(process.cwd(), dir)}`);
  return new Catalog(tools);
}
