// Copy-ready MCP client configuration: Claude Code, Cursor, VS Code and the mcp-remote bridge for
// clients that only start local (stdio) servers. Each names the service's Streamable HTTP endpoint
// (PUBLIC_BASE_URL + /mcp) and the header the MCP route reads, X-Api-Key (mcp-routes.ts also takes
// Authorization: Bearer). The shapes follow each client's documentation: `claude mcp add
// --transport http <name> <url> --header`, Cursor's mcpServers.<name>.{url, headers}, VS Code's
// servers.<name>.{type: "http", url, headers}, and mcp-remote's `--header Name:value` (no space
// after the colon: some clients split arguments on spaces).
import type { ApiKey } from '../accounts/account-store.ts';
import { COPY_SCRIPT } from './assets.ts';
import { html, type Html } from './html.ts';
import { KEYS_PATH, MCP_SETUP_PATH, page, sectionsNav, type SignedInView } from './pages.ts';

export const MCP_KEYS_PATH = `${MCP_SETUP_PATH}/keys`;
/** The name the configurations give the server in the client. */
export const SERVER_NAME = 'utility-tools';
export const KEY_HEADER = 'X-Api-Key';

export interface ClientConfig {
  id: string;
  client: string;
  /** where it goes: a file, or a terminal */
  where: string;
  text: string;
  note?: string | undefined;
}

/** The service's MCP endpoint. */
export function mcpUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/mcp`;
}

/** A stand-in for a key whose secret is not known any more (only its prefix is). */
export function keyPlaceholder(key: Pick<ApiKey, 'displayPrefix'> | undefined): string {
  return key ? `<your key ${key.displayPrefix}…>` : '<your API key>';
}

/** The four configurations for `url`, carrying `key` (a secret, or a placeholder) in the X-Api-Key header. */
export function clientConfigs(url: string, key: string): ClientConfig[] {
  const http = new URL(url);
  // mcp-remote refuses plain http except to localhost unless told otherwise.
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(http.hostname);
  const allowHttp = http.protocol === 'http:' && !loopback ? ['--allow-http'] : [];
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'a terminal',
      text: `claude mcp add --transport http ${SERVER_NAME} ${url} --header "${KEY_HEADER}: ${key}"`,
      note: 'Add --scope project to share it through the project’s .mcp.json (then keep the key out of version control).',
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '.cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)',
      text: json({ mcpServers: { [SERVER_NAME]: { url, headers: { [KEY_HEADER]: key } } } }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json in the workspace',
      text: json({ servers: { [SERVER_NAME]: { type: 'http', url, headers: { [KEY_HEADER]: key } } } }),
    },
    {
      id: 'mcp-remote',
      client: 'mcp-remote (clients that start local servers only)',
      where: 'a terminal, or the client’s command configuration',
      text: ['npx', '-y', 'mcp-remote', url, ...allowHttp, '--header', `"${KEY_HEADER}:${key}"`].join(' '),
      note: `In a client's JSON (Claude Desktop's mcpServers, for one): ${JSON.stringify({ command: 'npx', args: ['-y', 'mcp-remote', url, ...allowHttp, '--header', `${KEY_HEADER}:\${UTS_API_KEY}`], env: { UTS_API_KEY: key } })}`,
    },
  ];
}

function configBlock(config: ClientConfig): Html {
  const lines = Math.min(14, config.text.split('\n').length + (config.text.length > 90 ? 1 : 0));
  return html`<section aria-labelledby="${config.id}-title">
<h3 id="${config.id}-title">${config.client}</h3>
<label for="${config.id}-config">For ${config.where}</label>
<textarea id="${config.id}-config" class="config" readonly rows="${String(lines)}" spellcheck="false" autocomplete="off">${config.text}</textarea>
<button type="button" data-copy="${config.id}-config" data-status="${config.id}-status" hidden>Copy the ${config.client.split(' (')[0] ?? config.client} configuration</button>
<p id="${config.id}-status" class="muted" role="status"></p>
${config.note && html`<p class="muted">${config.note}</p>`}
</section>`;
}

export interface McpSetupView {
  url: string;
  keys: ApiKey[];
  /** the key picked for the placeholder */
  selected: ApiKey | undefined;
  signedIn: SignedInView;
  /** a key just created here, with its secret: shown once, in this answer only */
  created?: { key: ApiKey; secret: string } | undefined;
  error?: string | undefined;
}

function keyForms(view: McpSetupView): Html {
  const active = view.keys.filter((k) => k.revokedAt === null);
  return html`<h2>Your key</h2>
${active.length === 0
  ? html`<p>This account has no active key yet: create one below.</p>`
  : html`<form class="stack wide" method="get" action="${MCP_SETUP_PATH}">
<label for="key">Key for the configuration</label>
<select id="key" name="key">
${active.map((k) => html`<option value="${k.id}"${view.selected?.id === k.id ? html` selected` : ''}>${k.name} (${k.displayPrefix}…)</option>`)}
</select>
<button type="submit" class="quiet">Show the configuration for this key</button>
</form>
<p class="muted">A key’s secret is shown only once, when it is created, so the configuration carries a placeholder with the key’s prefix: put the secret you stored in its place. Lost it? Rotate the key on the <a href="${KEYS_PATH}">API keys</a> page, or create a key for MCP here.</p>`}
<form class="stack wide" method="post" action="${MCP_KEYS_PATH}">
<input type="hidden" name="_csrf" value="${view.signedIn.csrfToken}">
<label for="name">Name of a new key for MCP</label>
<input id="name" name="name" type="text" required maxlength="100" value="MCP client">
<button type="submit">Create a key for MCP</button>
</form>`;
}

export function mcpSetupPage(view: McpSetupView): string {
  const created = view.created;
  const key = created ? created.secret : keyPlaceholder(view.selected);
  return page(
    'MCP setup',
    html`<div class="layout">
${sectionsNav(MCP_SETUP_PATH)}
<main>
<h1>MCP setup</h1>
${view.error && html`<p class="notice error" role="alert">${view.error}</p>`}
${created && html`<p class="notice warning" role="alert"><strong>The key “${created.key.name}” is created, and its secret is in the configurations below. Copy one now; the secret is not shown again.</strong> The service keeps only a hash of it.</p>`}
<p>The MCP endpoint is <code>${view.url}</code> (Streamable HTTP). Every request carries an API key in the <code>${KEY_HEADER}</code> header (or <code>Authorization: Bearer</code> for clients that only send that). Calls are billed from this account’s credits as REST calls are; planning, tool search and feature memory are free.</p>
${!created && keyForms(view)}
<h2>Client configuration</h2>
${clientConfigs(view.url, key).map(configBlock)}
<p class="muted">Keep configuration files holding a key out of version control.</p>
</main>
</div>`,
    view.signedIn,
    [COPY_SCRIPT],
  );
}
