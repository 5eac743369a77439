// The Playground's pages: the picker (the catalog searched as MCP's discover_tools searches it),
// a tool's form generated from its input schema, and the call's answer (the envelope, the credits,
// a file result's signed link, curl and SDK snippets). Server-rendered; no script needed.
import type { ApiKey } from '../accounts/account-store.ts';
import type { AnyTool } from '../core/define-tool.ts';
import type { SearchPage } from '../mcp/tool-search.ts';
import { html, type Html } from './html.ts';
import { csrfField } from './key-pages.ts';
import { KEYS_PATH, PLAYGROUND_PATH, page, sectionsNav, type SignedInView } from './pages.ts';
import { renderField, type FormField, type FormValues } from './playground-form.ts';

export { PLAYGROUND_PATH };
export const toolPath = (operationId: string): string => `${PLAYGROUND_PATH}/${encodeURIComponent(operationId)}`;
export const uploadPath = (operationId: string): string => `${toolPath(operationId)}/upload`;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function pickerPage(view: { query: string; results: SearchPage; signedIn: SignedInView }): string {
  const { query, results } = view;
  const more = (p: number) => `${PLAYGROUND_PATH}?${new URLSearchParams({ ...(query === '' ? {} : { q: query }), page: String(p) }).toString()}`;
  return page(
    'Playground',
    html`<div class="layout">
${sectionsNav(PLAYGROUND_PATH)}
<main>
<h1>Playground</h1>
<p>Pick a tool, fill in its form and run it with one of your API keys: the call goes through the same path as a REST call with that key, charged and limited the same.</p>
<form class="search-row" role="search" method="get" action="${PLAYGROUND_PATH}">
<label for="q">Search tools by name or description</label>
<div class="row"><input id="q" name="q" type="search" value="${query}" maxlength="200"><button type="submit">Search</button></div>
</form>
<p role="status">${query === '' ? html`${plural(results.total, 'tool')} in the catalog.` : html`${plural(results.total, 'tool')} match “${query}”.`}</p>
<ul class="tools">
${results.tools.map(
  (tool) => html`<li><a href="${toolPath(tool.operationId)}">${tool.title}</a> <span class="muted">${tool.family} · ${plural(tool.credits, 'credit')}${tool.kind === 'file' ? ' · takes a file' : ''}</span><br><span>${tool.summary}</span></li>`,
)}
</ul>
${
  results.page > 1 || results.nextPage !== null
    ? html`<nav aria-label="Result pages"><p>${results.page > 1 ? html`<a href="${more(results.page - 1)}">Previous page</a> ` : ''}Page ${results.page}${results.nextPage !== null ? html` <a href="${more(results.nextPage)}">Next page</a>` : ''}</p></nav>`
    : ''
}
</main>
</div>`,
    view.signedIn,
  );
}

/** The API's refusal, as its envelope says it: code, message, detail and the fields it names. */
export interface RunError {
  status: number;
  code: string;
  message: string;
  detail: string;
  issues: readonly { field: string; message: string }[];
}

export interface RunResult {
  status: number;
  envelope: unknown;
  /** what the call cost in the end (0 when refused or refunded) */
  charged: number;
  creditsRemaining: number | undefined;
  downloadUrl: string | undefined;
  curl: string;
  sdk: string;
}

export interface ToolView {
  tool: AnyTool;
  fields: readonly FormField[];
  /** the account's active keys, the first the default */
  keys: readonly ApiKey[];
  keyId?: string | undefined;
  values?: FormValues | undefined;
  raw?: string | undefined;
  error?: RunError | undefined;
  result?: RunResult | undefined;
  signedIn: SignedInView;
}

function keyPicker(view: ToolView): Html {
  const chosen = view.keyId ?? view.keys[0]?.id;
  return html`<label for="keyId">Run with the API key</label>
<select id="keyId" name="keyId" required aria-describedby="keyId-hint">
${view.keys.map((k) => html`<option value="${k.id}"${k.id === chosen ? html` selected` : ''}>${k.name} (${k.displayPrefix}…)${k.tools === null ? '' : ` · ${plural(k.tools.length, 'tool')}`}</option>`)}
</select>
<p id="keyId-hint" class="muted hint">The call is this key's: its tool scopes, the plan, the quota and the rate limit apply, and it is counted under this key in Usage.</p>`;
}

function fileField(tool: AnyTool): Html {
  const upload = tool.upload;
  if (!upload) return html``;
  return html`<label for="field-file">File <span class="required">(required)</span></label>
<input id="field-file" type="file" name="${upload.field}" required aria-describedby="field-file-hint">
<p id="field-file-hint" class="muted hint">${upload.accept.join(', ')}; the type is checked by its content. Sent to the API as the multipart field <code>${upload.field}</code>.</p>`;
}

/**
 * The form's order matters for a file tool: the token, the key and the options come before the file
 * in the multipart body (a browser sends fields in document order), so they are read and checked
 * before the upload is (playground-upload.ts).
 */
function toolForm(view: ToolView): Html {
  const { tool } = view;
  const exampleRaw = JSON.stringify(tool.examples[0]?.input ?? {}, null, 2);
  const invalidField = new Set(view.error?.issues.map((i) => i.field) ?? []);
  return html`<form class="stack wide" method="post" action="${tool.upload ? uploadPath(tool.operationId) : toolPath(tool.operationId)}"${tool.upload ? html` enctype="multipart/form-data"` : ''}>
${csrfField(view.signedIn)}
${keyPicker(view)}
<fieldset>
<legend>${tool.upload ? 'Options' : 'Fields'}</legend>
${view.fields.length === 0 ? html`<p class="muted">This tool takes no ${tool.upload ? 'options' : 'fields'}.</p>` : view.fields.map((f) => renderField(f, view.values, invalidField.has(f.name)))}
</fieldset>
${fileField(tool)}
<button type="submit" name="mode" value="fields">Run</button>
<details${view.raw !== undefined ? html` open` : ''}>
<summary>Or send raw JSON</summary>
<label for="raw">Raw JSON ${tool.upload ? 'options' : 'body'}</label>
<textarea class="field" id="raw" name="raw" rows="8" spellcheck="false" aria-describedby="raw-hint"${invalidField.has('raw') ? html` aria-invalid="true" aria-errormessage="run-error"` : ''}>${view.raw ?? exampleRaw}</textarea>
<p id="raw-hint" class="muted hint">The tool's fields as one JSON object, as a REST body carries them; the fields above are then ignored.</p>
<button type="submit" name="mode" value="raw" formnovalidate>Run the raw JSON</button>
</details>
</form>`;
}

function errorBlock(error: RunError): Html {
  return html`<div id="run-error" class="notice error" role="alert">
<p><strong>${error.status} <code>${error.code}</code></strong>: ${error.message}</p>
${error.detail !== '' && error.detail !== error.issues.map((i) => `${i.field}: ${i.message}`).join('; ') ? html`<p>${error.detail}</p>` : ''}
${error.issues.length > 0 ? html`<ul>${error.issues.map((i) => html`<li><code>${i.field}</code>: ${i.message}</li>`)}</ul>` : ''}
</div>`;
}

function resultBlock(result: RunResult): Html {
  return html`<section id="result" aria-labelledby="result-title">
<h2 id="result-title">Result</h2>
<dl class="facts">
<div><dt>HTTP status</dt><dd>${result.status}</dd></div>
<div><dt>Credits charged</dt><dd>${result.charged}</dd></div>
${result.creditsRemaining !== undefined ? html`<div><dt>Credits left this month</dt><dd>${result.creditsRemaining}</dd></div>` : ''}
</dl>
${result.downloadUrl ? html`<p><a id="download" href="${result.downloadUrl}">Download the result</a> <span class="muted">(a signed link, no key needed, valid for a limited time)</span></p>` : ''}
<h3 id="envelope-title">The answer's envelope</h3>
<pre class="code" tabindex="0" aria-labelledby="envelope-title"><code id="envelope">${JSON.stringify(result.envelope, null, 2)}</code></pre>
<h3 id="curl-title">The same call with curl</h3>
<pre class="code" tabindex="0" aria-labelledby="curl-title"><code id="curl-snippet">${result.curl}</code></pre>
<h3 id="sdk-title">The same call with the SDK</h3>
<pre class="code" tabindex="0" aria-labelledby="sdk-title"><code id="sdk-snippet">${result.sdk}</code></pre>
<p class="muted">Set <code>UTS_API_KEY</code> to the chosen key's secret first; the dashboard never shows a key's secret again.</p>
</section>`;
}

export function toolPage(view: ToolView): string {
  const { tool } = view;
  return page(
    `${tool.title} · Playground`,
    html`<div class="layout">
${sectionsNav(PLAYGROUND_PATH)}
<main>
<p><a href="${PLAYGROUND_PATH}">All tools</a></p>
<h1>${tool.title}</h1>
<p>${tool.description}</p>
<p class="muted"><code>${tool.method} ${tool.path}</code> · <code>${tool.operationId}</code> · ${plural(tool.credits, 'credit')} per successful call</p>
${view.error ? errorBlock(view.error) : ''}
${
  view.keys.length === 0
    ? html`<p class="notice" role="status">This account has no active API key. A call runs as one of your keys: <a href="${KEYS_PATH}#create">create a key</a> first.</p>`
    : toolForm(view)
}
${view.result ? resultBlock(view.result) : ''}
</main>
</div>`,
    view.signedIn,
  );
}
