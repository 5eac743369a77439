// /api/v1/webhooks: an account registers, lists, deletes and tests the URLs that receive its
// events (`mcp.job.finished`). Any key of the account may manage them, like GET /usage; another
// account's webhook id is not found. The signing secret is answered once, at creation.
import { z } from 'zod';
import type { EgressPolicy } from '../analysis/egress-policy.ts';
import { successEnvelope } from '../core/envelope.ts';
import type { Invoker } from '../core/invoke.ts';
import type { WebhookDispatcher } from '../runs/webhook-delivery.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES, type Webhook } from '../runs/webhook-store.ts';
import { checkWebhookUrl, MAX_WEBHOOK_URL_CHARS } from '../runs/webhook-url.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export interface WebhookRouteDeps {
  invoker: Invoker;
  webhooks: WebhookDispatcher;
  /** the egress policy of the configuration: a URL the fetcher would refuse is refused at registration */
  egress: EgressPolicy;
}

export const createWebhookBody = z.object({
  url: z.string().max(MAX_WEBHOOK_URL_CHARS).describe('Where events are POSTed: an https URL on a public address (http only for hosts the operator allows in EGRESS_ALLOW)'),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .optional()
    .describe('Event types to receive; default ["mcp.job.finished"]'),
  description: z.string().max(200).optional().describe('A label for the webhook'),
});

export const webhookIdParams = z.object({ id: z.uuid().describe('The webhook id') });

const lastDeliveryView = z
  .object({
    eventId: z.string(),
    type: z.string(),
    outcome: z.enum(['delivered', 'retrying', 'failed']),
    attempts: z.number().int().describe('attempts made for this event so far'),
    statusCode: z.number().int().nullable().describe("the receiver's HTTP status on the latest attempt, null when none was received"),
    error: z.string().nullable(),
    at: z.string(),
  })
  .nullable()
  .describe('The latest delivery attempt, null before the first');

const webhookView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  createdAt: z.string(),
  lastDelivery: lastDeliveryView,
});

const webhookWithSecret = webhookView.extend({
  secret: z.string().describe('The signing secret (whsec_...): shown only in this response; verify each delivery with it'),
});

const testResult = z.object({
  delivered: z.boolean().describe('true when the receiver answered 2xx'),
  eventId: z.string(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable().describe('why the delivery failed: the HTTP status, a refused address, a timeout'),
});

/**
 * Registers a webhook for the account: the URL checked by the fetcher's egress rules, the events
 * defaulted, the per-account limit held by the store. POST /api/v1/webhooks and the dashboard's
 * form both run this, so they refuse and accept the same.
 */
export async function createWebhookAs(
  deps: Pick<WebhookRouteDeps, 'webhooks' | 'egress'>,
  accountId: string,
  body: z.output<typeof createWebhookBody>,
): Promise<{ webhook: Webhook; secret: string }> {
  const url = await checkWebhookUrl(body.url, deps.egress);
  return deps.webhooks.store.create(accountId, { url, events: body.events ?? ['mcp.job.finished'], description: body.description });
}

function view(webhook: Webhook) {
  return { ...webhook, events: [...webhook.events] };
}

export function webhookRoutes(deps: WebhookRouteDeps): RouteSpec[] {
  const { webhooks } = deps;
  // The route helper authenticated the key (auth 'apiKey'): the webhooks are its account's.
  const accountOf = (ctx: RouteContext): string => {
    if (ctx.caller === null) throw new Error('webhook routes are mounted with auth apiKey');
    return ctx.caller.account.id;
  };

  return [
    {
      method: 'POST',
      url: '/api/v1/webhooks',
      operationId: 'webhooks_create',
      summary: 'Register a webhook',
      description: `Registers a URL that receives the account's events as signed JSON POSTs (Standard Webhooks headers webhook-id, webhook-timestamp, webhook-signature). At most ${MAX_WEBHOOKS_PER_ACCOUNT} per account. The URL must be https and reach a public address (checked now, and again at every delivery). The signing secret is returned once.`,
      tag: 'webhooks',
      auth: 'apiKey',
      body: createWebhookBody,
      success: { status: 201, description: 'The webhook with its signing secret', result: webhookWithSecret },
      errors: [400, 401, 409],
      async handler(_request, reply, ctx) {
        const accountId = accountOf(ctx);
        const { webhook, secret } = await createWebhookAs(deps, accountId, ctx.body as z.output<typeof createWebhookBody>);
        return reply.code(201).send(successEnvelope({ ...view(webhook), secret }, { code: 201, message: 'Webhook registered; store the secret now, it is not shown again' }));
      },
    },
    {
      method: 'GET',
      url: '/api/v1/webhooks',
      operationId: 'webhooks_list',
      summary: 'List webhooks',
      description: "The account's webhooks with the outcome of each one's latest delivery. Secrets are never listed.",
      tag: 'webhooks',
      auth: 'apiKey',
      success: { status: 200, description: 'The webhooks', result: z.object({ webhooks: z.array(webhookView) }) },
      errors: [401],
      async handler(_request, _reply, ctx) {
        const accountId = accountOf(ctx);
        return successEnvelope({ webhooks: (await webhooks.store.list(accountId)).map(view) });
      },
    },
    {
      method: 'DELETE',
      url: '/api/v1/webhooks/:id',
      operationId: 'webhooks_delete',
      summary: 'Delete a webhook',
      description: 'The webhook receives nothing more; retries of earlier events stop.',
      tag: 'webhooks',
      auth: 'apiKey',
      params: webhookIdParams,
      success: { status: 200, description: 'The deleted webhook', result: webhookView },
      errors: [400, 401, 404],
      async handler(_request, _reply, ctx) {
        const accountId = accountOf(ctx);
        const { id } = ctx.params as z.output<typeof webhookIdParams>;
        return successEnvelope(view(await webhooks.store.delete(accountId, id)), { message: 'Webhook deleted' });
      },
    },
    {
      method: 'POST',
      url: '/api/v1/webhooks/:id/test',
      operationId: 'webhooks_test',
      summary: 'Send a test event',
      description: 'Sends a signed `webhook.test` event to the webhook now, once (no retry), and answers how the delivery went: the HTTP status and time, or the error.',
      tag: 'webhooks',
      auth: 'apiKey',
      params: webhookIdParams,
      success: { status: 200, description: 'The outcome of the test delivery', result: testResult },
      errors: [400, 401, 404],
      async handler(_request, _reply, ctx) {
        const accountId = accountOf(ctx);
        const { id } = ctx.params as z.output<typeof webhookIdParams>;
        const report = await webhooks.sendTest(accountId, id);
        return successEnvelope(
          { delivered: report.outcome === 'delivered', eventId: report.eventId, statusCode: report.statusCode, durationMs: report.durationMs, error: report.error },
          { message: report.outcome === 'delivered' ? 'Test event delivered' : 'Test event not delivered' },
        );
      },
    },
  ];
}
