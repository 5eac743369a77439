import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import { validateInput } from '../core/validate-input.ts';
import { createKeyAs, createKeyBody } from '../rest/account-routes.ts';
import type { DashboardContext, SignedInVisitor } from './dashboard-context.ts';
import { fieldsOf, text } from './form-fields.ts';
import { MCP_KEYS_PATH, mcpSetupPage, mcpUrl, type McpSetupView } from './mcp-setup-pages.ts';
import { MCP_SETUP_PATH } from './pages.ts';

/**
 * MCP setup: the configurations for the account's key of choice (a placeholder with its prefix,
 * as its secret is not kept), or for a key created here. Creating goes through createKeyAs with
 * createKeyBody, as the keys page and POST /api/v1/api-keys do (a key for every tool, not managing
 * keys), and the secret is only in that POST's own 201 answer: no redirect, no URL, no-store.
 */
export function registerMcpSetupRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const url = mcpUrl(ctx.publicBaseUrl);

  async function view(visitor: SignedInVisitor, keyId: string | undefined): Promise<McpSetupView> {
    const keys = (await ctx.accounts.listKeys(visitor.account.id)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const active = keys.filter((k) => k.revokedAt === null);
    // Another account's key id (or a revoked one) is not among them: the newest active key stands in.
    const selected = active.find((k) => k.id === keyId) ?? active[0];
    return { url, keys, selected, signedIn: { email: visitor.account.email, csrfToken: visitor.session.csrfToken } };
  }

  app.get(MCP_SETUP_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const key = (request.query as Record<string, unknown>)['key'];
    return ctx.sendPage(reply, 200, mcpSetupPage(await view(visitor, typeof key === 'string' ? key : undefined)));
  });

  app.post(MCP_KEYS_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const name = text(fieldsOf(request), 'name').trim();
    try {
      const body = validateInput(createKeyBody, { name: name === '' ? undefined : name, tools: null, canManageKeys: false });
      const created = await createKeyAs({ accounts: ctx.accounts, catalog: ctx.catalog }, { account: visitor.account, via: null }, body);
      return ctx.sendPage(reply, 201, mcpSetupPage({ ...(await view(visitor, created.key.id)), created }));
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status >= 500) throw error;
      reply.headers(error.headers);
      return ctx.sendPage(reply, error.status, mcpSetupPage({ ...(await view(visitor, undefined)), error: `${error.message}: ${error.detail}` }));
    }
  });
}
