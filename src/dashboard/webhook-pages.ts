import type { DeliveryAttempt } from '../runs/webhook-deliveries.ts';
import { KEPT_DELIVERIES } from '../runs/webhook-deliveries.ts';
import type { DeliveryReport } from '../runs/webhook-delivery.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES, type Webhook } from '../runs/webhook-store.ts';
import { MAX_WEBHOOK_URL_CHARS } from '../runs/webhook-url.ts';
import { COPY_SCRIPT } from './assets.ts';
import { html, type Html } from './html.ts';
import { csrfField, hidden, when } from './key-pages.ts';
import { page, sectionsNav, WEBHOOKS_PATH, type SignedInView } from './pages.ts';

/** What the add form held, to show it again after a refusal. */
export interface WebhookFormValues {
  url: string;
  events: readonly string[];
  description: string;
}

/** A refusal of the add form: the text, and the form field it is about (focus and aria-invalid go there). */
export interface FormError {
  text: string;
  field: 'url' | 'events' | 'description' | null;
}

export interface WebhooksView {
  webhooks: readonly Webhook[];
  signedIn: SignedInView;
  message?: { kind: 'error' | 'info'; text: string } | undefined;
  form?: WebhookFormValues | undefined;
  error?: FormError | undefined;
}

export const webhookPath = (id: string, action: 'test' | 'delete'): string => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}/${action}`;

/** The webhook's own page: its recent deliveries. */
export const deliveriesPath = (id: string): string => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}`;

function lastDelivery(webhook: Webhook): Html {
  const last = webhook.lastDelivery;
  if (last === null) return html`<span class="muted">None yet</span>`;
  const code = last.statusCode === null ? html`no response` : html`HTTP ${String(last.statusCode)}`;
  return html`<span class="status ${last.outcome === 'delivered' ? 'active' : 'revoked'}">${last.outcome}</span> ${code} <code>${last.type}</code> ${when(last.at)}${
    last.error !== null && last.outcome !== 'delivered' ? html`<br><span class="muted">${last.error}</span>` : ''
  }`;
}

function webhookRow(webhook: Webhook, view: SignedInView): Html {
  const label = webhook.description ?? webhook.url;
  return html`<tr>
<th scope="row"><code>${webhook.url}</code></th>
<td>${webhook.events.map((e, i) => html`${i > 0 ? ', ' : ''}<code>${e}</code>`)}</td>
<td>${webhook.description ?? html`<span class="muted">—</span>`}</td>
<td>${when(webhook.createdAt)}</td>
<td>${lastDelivery(webhook)}${webhook.lastDelivery && html`<br><a href="${deliveriesPath(webhook.id)}">Recent deliveries${hidden(` of ${label}`)}</a>`}</td>
<td class="actions"><form method="post" action="${webhookPath(webhook.id, 'test')}">${csrfField(view)}<button type="submit" class="quiet">Send test event${hidden(` to ${label}`)}</button></form>
<a href="${webhookPath(webhook.id, 'delete')}">Delete${hidden(` ${label}`)}</a></td>
</tr>`;
}

/** aria-invalid and the error's id on the field a refusal names. */
function invalid(error: FormError | undefined, field: FormError['field']): Html {
  return error?.field === field ? html` aria-invalid="true" aria-errormessage="webhook-error"` : html``;
}

function addForm(view: WebhooksView): Html {
  const form = view.form ?? { url: '', events: ['mcp.job.finished'], description: '' };
  const chosen = new Set(form.events);
  const { error } = view;
  return html`<form class="stack wide" method="post" action="${WEBHOOKS_PATH}">
${csrfField(view.signedIn)}
${error && html`<p id="webhook-error" class="notice error" role="alert">${error.text}</p>`}
<label for="webhook-url">URL</label>
<input id="webhook-url" name="url" type="url" required maxlength="${String(MAX_WEBHOOK_URL_CHARS)}" autocomplete="off" value="${form.url}" aria-describedby="webhook-url-hint"${invalid(error, 'url')}>
<p id="webhook-url-hint" class="muted">An https URL on a public address; each event is POSTed to it as signed JSON.</p>
<fieldset${invalid(error, 'events')}>
<legend>Events</legend>
<ul class="checks">${WEBHOOK_EVENT_TYPES.map(
    (type) => html`<li><label class="check"><input type="checkbox" name="events" value="${type}"${chosen.has(type) ? html` checked` : ''}> <code>${type}</code></label></li>`,
  )}</ul>
<p class="muted">No box checked means <code>mcp.job.finished</code>, a run started with async finishing.</p>
</fieldset>
<label for="webhook-description">Description <span class="muted">(optional)</span></label>
<input id="webhook-description" name="description" type="text" maxlength="200" autocomplete="off" value="${form.description}"${invalid(error, 'description')}>
<button type="submit">Add webhook</button>
</form>`;
}

export function webhooksPage(view: WebhooksView): string {
  const { message } = view;
  return page(
    'Webhooks',
    html`<div class="layout">
${sectionsNav(WEBHOOKS_PATH)}
<main>
<h1>Webhooks</h1>
${message && html`<p class="notice ${message.kind === 'error' ? 'error' : ''}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`}
<p>The service POSTs the account's events to these URLs, signed with each webhook's secret (Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). At most ${String(MAX_WEBHOOKS_PER_ACCOUNT)} per account.</p>
${
  view.webhooks.length === 0
    ? html`<p>No webhooks yet.</p>`
    : html`<div class="table-scroll"><table>
<caption class="visually-hidden">The account's webhooks</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Created</th><th scope="col">Last delivery</th><th scope="col">Actions</th></tr></thead>
<tbody>
${view.webhooks.map((w) => webhookRow(w, view.signedIn))}
</tbody>
</table></div>`
}
<h2 id="add">Add a webhook</h2>
${addForm(view)}
</main>
</div>`,
    view.signedIn,
  );
}

/**
 * The one page that ever holds a webhook's signing secret: the answer to the add form's POST
 * (never a redirect, so no URL or history entry holds it), no-store as every dashboard page.
 */
export function webhookSecretPage(webhook: Webhook, secret: string, signedIn: SignedInView): string {
  return page(
    'Webhook added',
    html`<div class="layout">
${sectionsNav(WEBHOOKS_PATH)}
<main>
<h1>Your webhook’s signing secret</h1>
<p class="notice warning" role="alert"><strong>Store it now; it is not shown again.</strong> Verify every delivery’s <code>webhook-signature</code> with it. If it is lost, delete the webhook and add it again.</p>
<label for="secret">Signing secret of <code>${webhook.url}</code></label>
<div class="secret-row">
<input id="secret" class="secret" type="text" readonly value="${secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="secret" data-status="copy-status" hidden>Copy</button>
</div>
<p id="copy-status" class="muted" role="status"></p>
<dl class="facts">
<div><dt>URL</dt><dd><code>${webhook.url}</code></dd></div>
<div><dt>Events</dt><dd>${webhook.events.join(', ')}</dd></div>
<div><dt>Description</dt><dd>${webhook.description ?? '—'}</dd></div>
</dl>
<p><a href="${WEBHOOKS_PATH}">Back to webhooks</a></p>
</main>
</div>`,
    signedIn,
    [COPY_SCRIPT],
  );
}

/** The answer to "Send test event": how the one attempt went. */
export function testResultPage(webhook: Webhook, report: DeliveryReport, signedIn: SignedInView): string {
  const delivered = report.outcome === 'delivered';
  return page(
    'Test event',
    html`<div class="layout">
${sectionsNav(WEBHOOKS_PATH)}
<main>
<h1>Test event ${delivered ? 'delivered' : 'not delivered'}</h1>
<p class="notice ${delivered ? '' : 'error'}" role="${delivered ? 'status' : 'alert'}">${
      delivered ? html`<code>${webhook.url}</code> answered HTTP ${String(report.statusCode)}.` : html`<code>${webhook.url}</code>: ${report.error ?? 'no answer'}.`
    }</p>
<dl class="facts">
<div><dt>Response code</dt><dd>${report.statusCode === null ? 'none' : String(report.statusCode)}</dd></div>
<div><dt>Time</dt><dd>${String(report.durationMs)} ms</dd></div>
<div><dt>Event id</dt><dd><code>${report.eventId}</code></dd></div>
</dl>
<p>A test event is sent once, without retries, as a signed <code>webhook.test</code> event.</p>
<p><a href="${deliveriesPath(webhook.id)}">Recent deliveries</a> · <a href="${WEBHOOKS_PATH}">Back to webhooks</a></p>
</main>
</div>`,
    signedIn,
  );
}

/** Deleting asks first: a form whose required box says what happens (checked on the server too). */
export function deleteWebhookPage(webhook: Webhook, signedIn: SignedInView, error?: string): string {
  return page(
    'Delete webhook',
    html`<div class="layout">
${sectionsNav(WEBHOOKS_PATH)}
<main>
<h1>Delete the webhook</h1>
${error && html`<p class="notice error" role="alert">${error}</p>`}
<p><code>${webhook.url}</code> receives no more events, and retries of earlier ones stop. This cannot be undone.</p>
<form class="stack" method="post" action="${webhookPath(webhook.id, 'delete')}">
${csrfField(signedIn)}
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I understand this webhook receives nothing more</label>
<button type="submit" class="danger">Delete webhook</button>
</form>
<p><a href="${WEBHOOKS_PATH}">Keep the webhook</a></p>
</main>
</div>`,
    signedIn,
  );
}

function deliveryRow(d: DeliveryAttempt): Html {
  const delivered = d.outcome === 'delivered';
  return html`<tr>
<th scope="row">${when(d.at)}</th>
<td><code>${d.type}</code><br><span class="muted"><code>${d.eventId}</code></span></td>
<td class="num">${String(d.attempt)}</td>
<td><span class="status ${delivered ? 'active' : 'revoked'}">${d.outcome}</span>${!delivered && d.error !== null ? html`<br><span class="muted">${d.error}</span>` : ''}</td>
<td class="num">${d.statusCode === null ? html`<span class="muted">none</span>` : String(d.statusCode)}</td>
<td class="num">${String(d.durationMs)} ms</td>
</tr>`;
}

/** One webhook's recent deliveries (every attempt, retries included), newest first. */
export function deliveriesPage(webhook: Webhook, deliveries: readonly DeliveryAttempt[], signedIn: SignedInView): string {
  return page(
    'Webhook deliveries',
    html`<div class="layout">
${sectionsNav(WEBHOOKS_PATH)}
<main>
<h1>Recent deliveries</h1>
<p>To <code>${webhook.url}</code>${webhook.description === null ? '' : html` (${webhook.description})`}: every attempt, retries included, newest first; the last ${String(KEPT_DELIVERIES)} are kept.</p>
${
  deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<div class="table-scroll"><table>
<caption class="visually-hidden">Recent delivery attempts to this webhook, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col" class="num">Attempt</th><th scope="col">Outcome</th><th scope="col" class="num">Response code</th><th scope="col" class="num">Duration</th></tr></thead>
<tbody>
${deliveries.map(deliveryRow)}
</tbody>
</table></div>`
}
<form method="post" action="${webhookPath(webhook.id, 'test')}">${csrfField(signedIn)}<button type="submit" class="quiet">Send test event</button></form>
<p><a href="${WEBHOOKS_PATH}">Back to webhooks</a></p>
</main>
</div>`,
    signedIn,
  );
}
