// The pages as a browser and as an API client get them: `/` by Accept, the headers on every
// dashboard answer, the stylesheet's caching, escaping, the security grade and the page weight.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import { analyze } from '../../src/analysis/analyzers/security-headers.ts';
import { prefersHtml } from '../../src/dashboard/front-page.ts';
import { html } from '../../src/dashboard/html.ts';
import { VERSION } from '../../src/server.ts';
import { factsFor } from '../analysis/analyzers/report-helpers.ts';
import { PASSWORD, dashboardApp, getPage, signIn, signedInAccount } from './support/dashboard-client.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** GET over real HTTP without decoding: the bytes as they cross the wire. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard pages', () => {
  const app = dashboardApp();
  let cookie: string;
  before(async () => {
    ({ cookie } = await signedInAccount(app, 'pages'));
  });

  it('answers API clients at / with the same JSON as before, whatever they accept short of preferring HTML', async () => {
    const expected = {
      name: 'Utility Tool Service',
      version: VERSION,
      docs: 'http://localhost:8080/docs',
      openapi: 'http://localhost:8080/openapi.json',
      tools: 'http://localhost:8080/api/v1/tools',
      mcp: 'http://localhost:8080/mcp',
    };
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5', 'text/html;q=0.8, application/json']) {
      const res = await fetch(`${app.base}/`, { headers: accept === undefined ? {} : { accept } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `Accept ${accept}`);
      assert.deepEqual(await res.json(), expected);
      assert.equal(res.headers.get('vary'), 'Accept');
    }
  });

  it('answers a browser at / with the product page: sign-in, docs and the MCP URL, under the CSP', async () => {
    const res = await fetch(`${app.base}/`, { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('content-security-policy'), CSP);
    const body = await res.text();
    for (const part of ['href="/dashboard/sign-in"', 'href="/docs"', 'http://localhost:8080/mcp']) assert.ok(body.includes(part), part);
    assert.ok(!/<script|style=/.test(body), 'no inline script or style');
  });

  it('reads Accept by quality and specificity', () => {
    assert.equal(prefersHtml(BROWSER_ACCEPT), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml('text/*, application/json;q=0.9'), true);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('application/json, */*;q=0.1'), false);
    assert.equal(prefersHtml('text/html;q=0, */*'), false);
    assert.equal(prefersHtml('text/html, application/json'), false, 'a full tie keeps JSON');
  });

  it('sends the security headers on every dashboard answer, and no-store on pages', async () => {
    for (const [path, withCookie] of [['/dashboard/sign-in', false], ['/dashboard', true], ['/dashboard', false], ['/dashboard/keys', true]] as const) {
      const res = await getPage(app.base, path, withCookie ? cookie : undefined);
      assert.equal(res.headers.get('content-security-policy'), CSP, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
      assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('strict-transport-security'), null, 'no HSTS over http');
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
    }
  });

  it('serves the stylesheet under a content-hashed name, cached for good, and a stale name not at all', async () => {
    const page = await (await getPage(app.base, '/dashboard', cookie)).text();
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page)?.[1];
    assert.match(href ?? '', /^\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.css$/);
    const css = await fetch(`${app.base}${href}`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.match(await css.text(), /font: 16px\/1\.5 system-ui/);
    assert.equal((await fetch(`${app.base}/dashboard/assets/dashboard.000000000000.css`)).status, 404);
  });

  it('escapes every interpolated value', () => {
    const hostile = '<script>alert("x")</script>&\'';
    assert.equal(html`<p title="${hostile}">${hostile}</p>`.text, '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>');
    assert.equal(html`<ul>${['<a>', html`<li>ok</li>`]}</ul>`.text, '<ul>&lt;a&gt;<li>ok</li></ul>');
    assert.equal(html`${null}${undefined}${false}${0}`.text, '0');
  });

  it('keeps a typed e-mail escaped when the sign-in form is shown again', async () => {
    const res = await fetch(`${app.base}/dashboard/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.base, accept: 'text/html' },
      body: new URLSearchParams({ email: '"><script>alert(1)</script>', password: 'whatever it is' }).toString(),
    });
    assert.equal(res.status, 401);
    const body = await res.text();
    assert.ok(!body.includes('<script>alert(1)</script>'));
    assert.ok(body.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
  });

  it('weighs far under 200 KB compressed at first load (overview HTML, stylesheet and icon; no script)', async () => {
    const page = await rawGet(app.base, '/dashboard', { cookie, accept: BROWSER_ACCEPT, 'accept-encoding': 'br, gzip' });
    assert.equal(page.status, 200);
    const text = await (await getPage(app.base, '/dashboard', cookie)).text();
    assert.ok(!text.includes('<script'), 'the overview loads no script');
    // Everything the page links: the stylesheet and the icon.
    const links = [...text.matchAll(/<link rel="[^"]+"(?: type="[^"]+")? href="([^"]+)">/g)].map((m) => m[1] ?? '');
    assert.equal(links.length, 2, links.join(' '));
    let total = page.bytes;
    const parts = [`HTML ${page.bytes} B (${String(page.headers['content-encoding'] ?? 'identity')})`];
    for (const href of links) {
      const asset = await rawGet(app.base, href, { 'accept-encoding': 'br, gzip' });
      assert.equal(asset.status, 200, href);
      total += asset.bytes;
      parts.push(`${href} ${asset.bytes} B (${String(asset.headers['content-encoding'] ?? 'identity')})`);
    }
    console.log(`overview first load: ${parts.join(' + ')} = ${total} B`);
    assert.ok(total < 20 * 1024, `${total} bytes`);
  });
});

describe('the security grade of the dashboard (our analyzer, the Observatory rules)', () => {
  const app = dashboardApp({ env: { PUBLIC_BASE_URL: 'https://tools.example' } });

  it('grades the signed-in overview A or better over https', async () => {
    const email = `grade-${Date.now()}@example.com`;
    await app.t.account({ email, password: PASSWORD });
    const { cookie, setCookie } = await signIn(app.base, email, PASSWORD, { origin: 'https://tools.example' });
    const res = await getPage(app.base, '/dashboard', cookie);
    assert.equal(res.status, 200);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    const url = 'https://tools.example/dashboard';
    const report = analyze(await res.text(), factsFor(url, { headers, setCookies: [setCookie] }), url);
    const { grade, score } = report.details.observatory as { grade: string; score: number };
    console.log(`dashboard overview: Observatory grade ${grade} (${score})`);
    assert.match(grade, /^A/, `grade ${grade} (${score})`);
  });
});
