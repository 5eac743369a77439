import { html } from './html.ts';
import { page, SIGN_IN_PATH, SIGN_UP_PATH } from './pages.ts';

/** The quality a media range of an Accept header gives `type`, and how specific the match was. */
function quality(accept: string, type: string): { q: number; specificity: number } {
  const [major] = type.split('/');
  let best = { q: 0, specificity: -1 };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < best.specificity || specificity < 0) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    best = { q: Number.isFinite(q) ? q : 0, specificity };
  }
  return best;
}

/**
 * Whether the client prefers HTML to JSON: a browser (text/html named, JSON at most through a
 * wildcard) does; an API client (no Accept, `*\/*`, or JSON named) does not, and keeps the JSON
 * answer. On a tie of qualities the more specific match wins, and a full tie goes to JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const h = quality(accept, 'text/html');
  const j = quality(accept, 'application/json');
  if (h.q <= 0) return false;
  return h.q > j.q || (h.q === j.q && h.specificity > j.specificity);
}

export function frontPage(publicBaseUrl: string): string {
  const mcp = `${publicBaseUrl}/mcp`;
  return page(
    'Tools for people and agents',
    html`<main class="page">
<h1>Utility tools over one API</h1>
<p>A self-hosted catalog of single-purpose tools (conversions of documents, images, audio and
ebooks, calculators, text utilities, URL analysis and more) that you call over a REST API or
from an AI agent over MCP. Every call costs a few credits from a monthly quota.</p>
<p><a href="${SIGN_IN_PATH}">Sign in</a> (or <a href="${SIGN_UP_PATH}">create an account</a>) to see your plan and credits, or read the <a href="/docs">API docs</a>
(the <a href="/openapi.json">OpenAPI document</a>, and <a href="/api/v1/tools">the tool catalog</a> as JSON).</p>
<h2>MCP setup</h2>
<p>Point an MCP client at <code>${mcp}</code> (Streamable HTTP) with your API key in the
<code>X-Api-Key</code> header; it can then discover the tools, read their schemas and invoke them.
The <a href="/dashboard/mcp">MCP setup page</a> gives copy-ready configuration for Claude Code, Cursor, VS Code and mcp-remote.</p>
</main>`,
  );
}
