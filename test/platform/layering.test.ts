// The design's one-way flow, read from every import in src/: a room may import its own files and
// rooms below it, never a room above. `rest/, mcp/, dashboard/ -> runs/ -> core/ -> catalog/ -> engines/,
// analysis/ -> files/ -> accounts/ -> db/`. Shared by all: config.ts (the settings) and
// core/errors.ts (the one error type). The tools in catalog/ are written with core's tool kit
// (defineTool, defineUrlTool, the number helpers): that contract is core's to give and every tool's to
// use; the invoke path and the catalog index stay out of the tools' reach. The entry points
// (main.ts; services.ts builds the services without any surface, server.ts mounts REST and MCP on them) assemble everything.
// Only rest/ imports Fastify's runtime and only mcp/ the MCP SDK (a type from Fastify, such as its
// logger's, may appear below).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

const LEVEL: Record<string, number> = { dashboard: 7, rest: 7, mcp: 7, runs: 6, core: 5, catalog: 4, engines: 3, analysis: 3, files: 2, accounts: 1, db: 0 };
const SHARED = new Set(['config.ts', 'core/errors.ts']);
const ENTRY = new Set(['main.ts', 'server.ts', 'services.ts']);
const TOOL_KIT = new Set(['core/define-tool.ts', 'core/define-url-tool.ts', 'core/numbers.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[2] ?? '';
    const to = spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec)) : spec;
    out.push({ from: relative(SRC, file), to, typeOnly: match[1] !== undefined });
  }
  return out;
}

const roomOf = (path: string): string => path.split('/')[0] ?? path;
const all = sources(SRC).flatMap(importsOf);

describe('layering: every import in src/ follows the one-way flow', () => {
  it('reads imports from every room', () => {
    const rooms = new Set(all.map((i) => roomOf(i.from)));
    for (const room of Object.keys(LEVEL)) assert.ok(rooms.has(room), `src/${room} has files`);
    assert.ok(all.length > 300, `${all.length} imports read`);
  });

  it('no room imports a room above it', () => {
    const wrong = all
      .filter((i) => !i.to.startsWith('node:') && (i.to.includes('/') || i.to.endsWith('.ts')) && !i.to.startsWith('@') && i.to.endsWith('.ts'))
      .filter((i) => !ENTRY.has(i.from) && !SHARED.has(i.to) && !SHARED.has(i.from))
      .filter((i) => !(roomOf(i.from) === 'catalog' && TOOL_KIT.has(i.to)))
      .filter((i) => {
        const from = LEVEL[roomOf(i.from)];
        const to = LEVEL[roomOf(i.to)];
        return from !== undefined && to !== undefined && roomOf(i.from) !== roomOf(i.to) && to > from;
      })
      .map((i) => `${i.from} -> ${i.to}`);
    assert.deepEqual(wrong, []);
  });

  it('only rest/ uses Fastify at run time, only mcp/ imports the MCP SDK', () => {
    const fastify = all.filter((i) => (i.to === 'fastify' || i.to.startsWith('@fastify/')) && !i.typeOnly && !ENTRY.has(i.from) && roomOf(i.from) !== 'rest');
    assert.deepEqual(fastify.map((i) => `${i.from} -> ${i.to}`), []);
    // createServices builds the whole service without any surface: not even Fastify's types.
    assert.deepEqual(all.filter((i) => i.from === 'services.ts' && (i.to === 'fastify' || i.to.startsWith('@fastify/') || i.to.startsWith('rest/') || i.to.startsWith('mcp/'))).map((i) => i.to), []);
    const sdk = all.filter((i) => i.to.startsWith('@modelcontextprotocol/') && roomOf(i.from) !== 'mcp');
    assert.deepEqual(sdk.map((i) => `${i.from} -> ${i.to}`), []);
  });

  it('the check itself catches an upward import', () => {
    const probe = { from: 'files/x.ts', to: 'core/define-tool.ts' };
    const from = LEVEL[roomOf(probe.from)] ?? -1;
    const to = LEVEL[roomOf(probe.to)] ?? -1;
    assert.ok(to > from);
  });
});
