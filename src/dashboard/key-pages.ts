import type { ApiKey } from '../accounts/account-store.ts';
import { COPY_SCRIPT } from './assets.ts';
import { html, type Html } from './html.ts';
import { KEYS_PATH, page, sectionsNav, type SignedInView } from './pages.ts';

/** The tools a key may be scoped to, by family, as the catalog lists them. */
export interface ToolFamily {
  family: string;
  tools: readonly { operationId: string; title: string }[];
}

/** What the create form held, to show it again after a refusal. */
export interface KeyFormValues {
  name: string;
  tools: readonly string[];
  canManageKeys: boolean;
}

export interface KeysView {
  keys: readonly ApiKey[];
  families: readonly ToolFamily[];
  signedIn: SignedInView;
  message?: { kind: 'error' | 'info'; text: string } | undefined;
  form?: KeyFormValues | undefined;
}

export const keyPath = (keyId: string, action: 'rotate' | 'revoke'): string => `${KEYS_PATH}/${encodeURIComponent(keyId)}/${action}`;

/** "2026-11-27 17:20 UTC": short enough for a table cell, the same in every locale. */
export function when(iso: string): Html {
  return html`<time datetime="${iso}">${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

const toolCount = (n: number): string => `${n} ${n === 1 ? 'tool' : 'tools'}`;

/** Text a screen reader reads with a repeated button ("Rotate" in every row), naming the row's key. */
export function hidden(text: string): Html {
  return html`<span class="visually-hidden">${text}</span>`;
}

function scopeText(tools: readonly string[] | null): Html {
  if (tools === null) return html`all tools`;
  if (tools.length === 0) return html`no tools`;
  if (tools.length <= 3) return html`${tools.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}`;
  return html`<details><summary>${tools.length} tools</summary><ul class="plain">${tools.map((id) => html`<li><code>${id}</code></li>`)}</ul></details>`;
}

export function csrfField(view: SignedInView): Html {
  return html`<input type="hidden" name="_csrf" value="${view.csrfToken}">`;
}

function keyRow(key: ApiKey, view: SignedInView): Html {
  const active = key.revokedAt === null;
  return html`<tr>
<th scope="row">${key.name}</th>
<td><code>${key.displayPrefix}…</code></td>
<td>${scopeText(key.tools)}</td>
<td>${key.canManageKeys ? 'Yes' : 'No'}</td>
<td>${when(key.createdAt)}</td>
<td>${key.lastUsedAt ? when(key.lastUsedAt) : html`<span class="muted">never</span>`}</td>
<td>${active ? html`<span class="status active">Active</span>` : html`<span class="status revoked">Revoked</span> ${when(key.revokedAt ?? key.createdAt)}`}</td>
<td class="actions">${
    active &&
    html`<form method="post" action="${keyPath(key.id, 'rotate')}">${csrfField(view)}<button type="submit" class="quiet">Rotate${hidden(` ${key.name}`)}</button></form>
<a href="${keyPath(key.id, 'revoke')}">Revoke${hidden(` ${key.name}`)}</a>`
  }</td>
</tr>`;
}

function createForm(view: KeysView): Html {
  const form = view.form ?? { name: '', tools: [], canManageKeys: false };
  const chosen = new Set(form.tools);
  return html`<form class="stack wide" method="post" action="${KEYS_PATH}">
${csrfField(view.signedIn)}
<label for="key-name">Name</label>
<input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" value="${form.name}" aria-describedby="key-name-hint">
<p id="key-name-hint" class="muted">A label to recognise the key by, such as the program that uses it.</p>
<fieldset>
<legend>Tools this key may call</legend>
<p class="muted">Leave every box unchecked for a key that may call all tools, including tools added later; or choose the tools it may call.</p>
${view.families.map((family) => {
  const picked = family.tools.filter((t) => chosen.has(t.operationId)).length;
  return html`<details${picked > 0 ? html` open` : ''}><summary>${family.family} <span class="muted">(${toolCount(family.tools.length)}${picked > 0 ? `, ${picked} chosen` : ''})</span></summary>
<ul class="checks">${family.tools.map(
    (t) => html`<li><label class="check"><input type="checkbox" name="tools" value="${t.operationId}"${chosen.has(t.operationId) ? html` checked` : ''}> ${t.title} <code>${t.operationId}</code></label></li>`,
  )}</ul>
</details>`;
})}
</fieldset>
<label class="check"><input type="checkbox" name="canManageKeys" value="true"${form.canManageKeys ? html` checked` : ''}> May manage keys <span class="muted">(create, list, rotate and revoke keys over the API, within its own tools)</span></label>
<button type="submit">Create key</button>
</form>`;
}

export function keysPage(view: KeysView): string {
  const { message } = view;
  return page(
    'API keys',
    html`<div class="layout">
${sectionsNav(KEYS_PATH)}
<main>
<h1>API keys</h1>
${message && html`<p class="notice ${message.kind === 'error' ? 'error' : ''}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`}
<p>Send a key in the <code>X-Api-Key</code> header of REST and MCP calls. A key's secret is shown once, when it is created or rotated; the list shows only its first characters.</p>
${
  view.keys.length === 0
    ? html`<p>No keys yet.</p>`
    : html`<div class="table-scroll"><table>
<caption class="visually-hidden">The account's API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Tools</th><th scope="col">Manages keys</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>
${view.keys.map((key) => keyRow(key, view.signedIn))}
</tbody>
</table></div>
<p class="muted">Last used: the latest call made with the key, written with the usage counts within a second of the call.</p>`
}
<h2 id="create">Create a key</h2>
${createForm(view)}
</main>
</div>`,
    view.signedIn,
  );
}

/**
 * The one page that ever holds a key's secret: the answer to the create or rotate form (a 2xx to
 * the POST itself, never a redirect, so the secret is in no URL and no history entry), stored by
 * no cache (no-store, as every dashboard page). The secret is in a read-only field to select; the
 * copy button appears with the script.
 */
export function secretPage(key: ApiKey, secret: string, action: 'created' | 'rotated', signedIn: SignedInView): string {
  return page(
    action === 'created' ? 'Key created' : 'Key rotated',
    html`<div class="layout">
${sectionsNav(KEYS_PATH)}
<main>
<h1>${action === 'created' ? 'Your new API key' : 'The key’s new secret'}</h1>
<p class="notice warning" role="alert"><strong>Store it now; it is not shown again.</strong> The service keeps only a hash of it. If it is lost, rotate the key for a new secret.${action === 'rotated' ? ' The previous secret no longer works.' : ''}</p>
<label for="secret">Secret of the key “${key.name}”</label>
<div class="secret-row">
<input id="secret" class="secret" type="text" readonly value="${secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="secret" data-status="copy-status" hidden>Copy</button>
</div>
<p id="copy-status" class="muted" role="status"></p>
<dl class="facts">
<div><dt>Name</dt><dd>${key.name}</dd></div>
<div><dt>Prefix</dt><dd><code>${key.displayPrefix}…</code></dd></div>
<div><dt>Tools</dt><dd>${scopeText(key.tools)}</dd></div>
<div><dt>Manages keys</dt><dd>${key.canManageKeys ? 'Yes' : 'No'}</dd></div>
</dl>
<p><a href="${KEYS_PATH}">Back to API keys</a></p>
</main>
</div>`,
    signedIn,
    [COPY_SCRIPT],
  );
}

/** Revoking asks first: a form whose required box says what happens (checked on the server too). */
export function revokePage(key: ApiKey, signedIn: SignedInView, error?: string): string {
  return page(
    'Revoke key',
    html`<div class="layout">
${sectionsNav(KEYS_PATH)}
<main>
<h1>Revoke the key “${key.name}”</h1>
${error && html`<p class="notice error" role="alert">${error}</p>`}
<p>The key <code>${key.displayPrefix}…</code> stops working at once, for every program that uses it. This cannot be undone; a new key can be created at any time.</p>
<form class="stack" method="post" action="${keyPath(key.id, 'revoke')}">
${csrfField(signedIn)}
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I understand this key stops working</label>
<button type="submit" class="danger">Revoke key</button>
</form>
<p><a href="${KEYS_PATH}">Keep the key</a></p>
</main>
</div>`,
    signedIn,
  );
}
