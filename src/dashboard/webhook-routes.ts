import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import { validateInput } from '../core/validate-input.ts';
import { createWebhookAs, createWebhookBody, webhookIdParams } from '../rest/webhook-routes.ts';
import type { Webhook } from '../runs/webhook-store.ts';
import type { DashboardContext, SignedInVisitor } from './dashboard-context.ts';
import { fieldsOf, list, text, type Fields } from './form-fields.ts';
import { deleteWebhookPage, deliveriesPage, testResultPage, webhookSecretPage, webhooksPage, type FormError, type WebhookFormValues } from './webhook-pages.ts';
import { messagePage, WEBHOOKS_PATH, type SignedInView } from './pages.ts';

/** Refusals a person can act on: shown on the page rather than as an error page. */
const SHOWN = new Set([400, 404, 409]);

const FIELD_LABELS = { url: 'URL', events: 'Events', description: 'Description' } as const;

type FieldName = keyof typeof FIELD_LABELS;
const isField = (name: string | undefined): name is FieldName => name !== undefined && Object.hasOwn(FIELD_LABELS, name);

/** The form field a refusal is about, named in its text: the URL's checks, the schema's issues, or none (the limit). */
function formError(error: ServiceError): FormError {
  if (error.error === 'invalid_url' || error.error === 'url_not_allowed') return { field: 'url', text: `URL: ${error.detail}` };
  const issues = Array.isArray(error.extra['issues']) ? (error.extra['issues'] as { field: string; message: string }[]) : [];
  const named = issues.map((i) => ({ field: i.field.split('.')[0], message: i.message }));
  const first = named[0]?.field;
  if (isField(first)) return { field: first, text: named.map((i) => `${isField(i.field) ? FIELD_LABELS[i.field] : (i.field ?? '')}: ${i.message}`).join('; ') };
  return { field: null, text: `${error.message}. ${error.detail}` };
}

/**
 * The webhooks page: list, add, send a test event, delete. Every change is the REST API's own:
 * the same zod schemas (createWebhookBody, webhookIdParams) through validateInput, createWebhookAs
 * (the URL's egress check, the events' default, the store's 5-per-account limit), the store's
 * delete and the dispatcher's sendTest, for the signed-in account. Another account's webhook id
 * reads as an unknown one (the store answers 404 for both). CSRF ran in the scope's preHandler.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { webhooks } = ctx;
  const viewOf = (visitor: SignedInVisitor): SignedInView => ({ email: visitor.account.email, csrfToken: visitor.session.csrfToken });

  async function listPage(reply: FastifyReply, visitor: SignedInVisitor, status: number, extra: { message?: { kind: 'error' | 'info'; text: string }; form?: WebhookFormValues; error?: FormError } = {}) {
    const all = await webhooks.store.list(visitor.account.id);
    return ctx.sendPage(reply, status, webhooksPage({ webhooks: all, signedIn: viewOf(visitor), ...extra }));
  }

  const notFound = (reply: FastifyReply) =>
    ctx.sendPage(reply, 404, messagePage('Webhook not found', 'This account has no webhook with that id.', { href: WEBHOOKS_PATH, label: 'Back to webhooks' }));

  function refusal(reply: FastifyReply, error: unknown): FastifyReply {
    if (!(error instanceof ServiceError) || !SHOWN.has(error.status)) throw error;
    if (error.status === 404) return notFound(reply);
    return ctx.sendPage(reply, error.status, messagePage('Request not accepted', `${error.message}: ${error.detail}`, { href: WEBHOOKS_PATH, label: 'Back to webhooks' }));
  }

  /** The id from the path, checked by the REST schema, and the account's webhook of that id (404 otherwise). */
  async function ownWebhook(visitor: SignedInVisitor, params: unknown): Promise<Webhook> {
    const { id } = validateInput(webhookIdParams, params);
    return webhooks.store.get(visitor.account.id, id);
  }

  app.get(WEBHOOKS_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const deleted = (request.query as Record<string, unknown>)['deleted'];
    return listPage(reply, visitor, 200, typeof deleted === 'string' && deleted !== '' ? { message: { kind: 'info', text: 'The webhook was deleted; it receives nothing more.' } } : {});
  });

  app.post(WEBHOOKS_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const fields = fieldsOf(request);
    const form: WebhookFormValues = { url: text(fields, 'url').trim(), events: list(fields, 'events'), description: text(fields, 'description').trim() };
    // No box checked is the default event, as the form says (the REST body leaves `events` out).
    const raw = { url: form.url, events: form.events.length > 0 ? form.events : undefined, description: form.description === '' ? undefined : form.description };
    try {
      const body = validateInput(createWebhookBody, raw);
      const { webhook, secret } = await createWebhookAs(ctx, visitor.account.id, body);
      return ctx.sendPage(reply, 201, webhookSecretPage(webhook, secret, viewOf(visitor)));
    } catch (error) {
      if (!(error instanceof ServiceError) || !SHOWN.has(error.status)) throw error;
      return listPage(reply, visitor, error.status, { form, error: formError(error) });
    }
  });

  app.post(`${WEBHOOKS_PATH}/:id/test`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const webhook = await ownWebhook(visitor, request.params);
      const report = await webhooks.sendTest(visitor.account.id, webhook.id);
      return ctx.sendPage(reply, 200, testResultPage(webhook, report, viewOf(visitor)));
    } catch (error) {
      return refusal(reply, error);
    }
  });

  // The webhook's recent deliveries: read by account and id, so another account's id is 404.
  app.get(`${WEBHOOKS_PATH}/:id`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const webhook = await ownWebhook(visitor, request.params);
      return ctx.sendPage(reply, 200, deliveriesPage(webhook, await webhooks.store.deliveries(visitor.account.id, webhook.id), viewOf(visitor)));
    } catch (error) {
      return refusal(reply, error);
    }
  });

  app.get(`${WEBHOOKS_PATH}/:id/delete`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      return ctx.sendPage(reply, 200, deleteWebhookPage(await ownWebhook(visitor, request.params), viewOf(visitor)));
    } catch (error) {
      return refusal(reply, error);
    }
  });

  app.post(`${WEBHOOKS_PATH}/:id/delete`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    try {
      const webhook = await ownWebhook(visitor, request.params);
      if (text(fieldsOf(request), 'confirm') !== 'yes') {
        // The box is `required` in the page; a post without it (no browser check) is asked again.
        return ctx.sendPage(reply, 400, deleteWebhookPage(webhook, viewOf(visitor), 'Tick the box to confirm that this webhook receives nothing more.'));
      }
      await webhooks.store.delete(visitor.account.id, webhook.id);
      // Post/redirect/get: a reload of the list does not post again.
      return reply.redirect(`${WEBHOOKS_PATH}?deleted=${encodeURIComponent(webhook.id)}`, 303);
    } catch (error) {
      return refusal(reply, error);
    }
  });
}
