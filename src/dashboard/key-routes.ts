import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../accounts/account-store.ts';
import { ServiceError } from '../core/errors.ts';
import { validateInput } from '../core/validate-input.ts';
import { createKeyAs, createKeyBody, keyIdParams } from '../rest/account-routes.ts';
import type { DashboardContext, SignedInVisitor } from './dashboard-context.ts';
import { fieldsOf, list, text, type Fields } from './form-fields.ts';
import { keysPage, revokePage, secretPage, type KeyFormValues, type ToolFamily } from './key-pages.ts';
import { KEYS_PATH, messagePage, type SignedInView } from './pages.ts';

/** Refusals a person can act on: shown on the page rather than as an error page. */
const SHOWN = new Set([400, 403, 404, 409, 429]);

/**
 * The API keys page: list, create, rotate, revoke. Every change is the REST API's own: the body
 * is checked by the same zod schemas (createKeyBody, keyIdParams) and goes to the same functions
 * (createKeyAs, which POST /api/v1/api-keys runs, and AccountStore.rotateKey/revokeKey) with the
 * signed-in owner as the actor, as for the account's password over REST. The form only maps its
 * fields onto that body; it neither validates nor charges on its own. The CSRF check (Origin and
 * token) ran in the scope's preHandler before any of these handlers.
 */
export function registerKeyRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { accounts, catalog } = ctx;
  // The catalog is built once at start and read-only after: grouped once.
  const families: ToolFamily[] = catalog.families().map((family) => ({
    family,
    tools: catalog.tools.filter((t) => t.family === family).map((t) => ({ operationId: t.operationId, title: t.title })),
  }));
  const viewOf = (visitor: SignedInVisitor): SignedInView => ({ email: visitor.account.email, csrfToken: visitor.session.csrfToken });

  async function listPage(reply: FastifyReply, visitor: SignedInVisitor, status: number, extra: { message?: { kind: 'error' | 'info'; text: string }; form?: KeyFormValues } = {}) {
    // Each key's last use is written by the usage flush: this process's pending calls go first, as GET /api/v1/api-keys does.
    await ctx.usage.flush();
    const keys = await accounts.listKeys(visitor.account.id);
    // Active keys first, each group newest first: the ones a person acts on are at the top.
    const ordered = [...keys].sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt));
    return ctx.sendPage(reply, status, keysPage({ keys: ordered, families, signedIn: viewOf(visitor), ...extra }));
  }

  /** The visitor's own key `keyId`, or undefined: another account's id reads exactly like an unknown one. */
  async function ownKey(visitor: SignedInVisitor, keyId: string): Promise<ApiKey | undefined> {
    return (await accounts.listKeys(visitor.account.id)).find((k) => k.id === keyId);
  }

  const notFound = (reply: FastifyReply) =>
    ctx.sendPage(reply, 404, messagePage('Key not found', 'This account has no API key with that id.', { href: KEYS_PATH, label: 'Back to API keys' }));

  /** A refusal of the store or the schemas (not found, not valid), as a page; anything else goes on to the error handler. */
  function refusal(reply: FastifyReply, error: unknown): FastifyReply {
    if (!(error instanceof ServiceError) || !SHOWN.has(error.status)) throw error;
    if (error.status === 404) return notFound(reply);
    reply.headers(error.headers);
    return ctx.sendPage(reply, error.status, messagePage('Request not accepted', `${error.message}: ${error.detail}`, { href: KEYS_PATH, label: 'Back to API keys' }));
  }

  app.get(KEYS_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const revoked = typeof (request.query as Record<string, unknown>)['revoked'] === 'string' ? ((request.query as Record<string, string>)['revoked'] ?? '') : '';
    const key = revoked === '' ? undefined : await ownKey(visitor, revoked);
    return listPage(reply, visitor, 200, key?.revokedAt ? { message: { kind: 'info', text: `The key “${key.name}” was revoked; it no longer works.` } } : {});
  });

  app.post(KEYS_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const fields = fieldsOf(request);
    const form: KeyFormValues = { name: text(fields, 'name').trim(), tools: list(fields, 'tools'), canManageKeys: text(fields, 'canManageKeys') === 'true' };
    // No box checked is a key for every tool (null), as the form says.
    const raw = { name: form.name === '' ? undefined : form.name, tools: form.tools.length > 0 ? form.tools : null, canManageKeys: form.canManageKeys };
    try {
      const body = validateInput(createKeyBody, raw);
      const { key, secret } = await createKeyAs({ accounts, catalog }, { account: visitor.account, via: null }, body);
      return ctx.sendPage(reply, 201, secretPage(key, secret, 'created', viewOf(visitor)));
    } catch (error) {
      if (!(error instanceof ServiceError) || !SHOWN.has(error.status)) throw error;
      reply.headers(error.headers);
      return listPage(reply, visitor, error.status, { message: { kind: 'error', text: `${error.message}: ${error.detail}` }, form });
    }
  });

  app.post(`${KEYS_PATH}/:keyId/rotate`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const { keyId } = validateInput(keyIdParams, request.params);
      const { key, secret } = await accounts.rotateKey(keyId, visitor.account.id);
      return ctx.sendPage(reply, 200, secretPage(key, secret, 'rotated', viewOf(visitor)));
    } catch (error) {
      return refusal(reply, error);
    }
  });

  app.get(`${KEYS_PATH}/:keyId/revoke`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const { keyId } = validateInput(keyIdParams, request.params);
      const key = await ownKey(visitor, keyId);
      if (!key || key.revokedAt !== null) return notFound(reply);
      return ctx.sendPage(reply, 200, revokePage(key, viewOf(visitor)));
    } catch (error) {
      return refusal(reply, error);
    }
  });

  app.post(`${KEYS_PATH}/:keyId/revoke`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const { keyId } = validateInput(keyIdParams, request.params);
      if (text(fieldsOf(request), 'confirm') !== 'yes') {
        // The box is `required` in the page; a post without it (no browser check) is asked again.
        const key = await ownKey(visitor, keyId);
        if (!key) return notFound(reply);
        return ctx.sendPage(reply, 400, revokePage(key, viewOf(visitor), 'Tick the box to confirm that this key stops working.'));
      }
      const key = await accounts.revokeKey(keyId, visitor.account.id);
      // Post/redirect/get: a reload of the list does not post again. The URL holds the key's id, never a secret.
      return reply.redirect(`${KEYS_PATH}?revoked=${encodeURIComponent(key.id)}`, 303);
    } catch (error) {
      return refusal(reply, error);
    }
  });
}
