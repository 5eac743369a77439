// The MCP tools exactly as a client's tools/list receives them: the real app, built in process
// on a temporary data folder, answers one tools/list over its /mcp route (Fastify inject, no
// socket), and everything is closed and removed before this returns. Reading the real answer
// rather than re-deriving it keeps the SDK's MCP names and inputs what the server lists,
// including the compaction src/mcp/tool-list.ts applies.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { createApp } from '../../src/server.ts';

export interface ListedMcpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export async function listMcpTools(catalog: Catalog): Promise<ListedMcpTool[]> {
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
      return tools;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
