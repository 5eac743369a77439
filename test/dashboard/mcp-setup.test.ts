// The MCP setup page over real HTTP: the four client configurations name the service's MCP URL
// (PUBLIC_BASE_URL + /mcp) and the X-Api-Key header; a picked key appears as a placeholder with
// its prefix; a key created there is in that POST's own 201 answer only, and the official MCP SDK
// client, given exactly the URL and headers of the page's Cursor configuration, lists the tools.
// A cross-site post (or one without the session's token) creates nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onFreePort } from '../support/child-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { getPage, postForm, signedInWithToken } from './support/dashboard-client.ts';

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const decode = (s: string): string => s.replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e);

/** The read-only configuration field `id` of a page, as the person copies it. */
function config(page: string, id: string): string {
  const m = new RegExp(`<textarea id="${id}-config"[^>]*>([\\s\\S]*?)</textarea>`).exec(page);
  assert.ok(m, `a ${id} configuration`);
  return decode(m[1]!);
}

describe('dashboard MCP setup', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    // PUBLIC_BASE_URL is the address the app listens on, so the page's URL is one a client reaches.
    const started = await onFreePort(
      async (port) => {
        const app = await startTestApp({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
        try {
          await app.app.listen({ port, host: '127.0.0.1' });
        } catch (error) {
          await app.close();
          throw error;
        }
        return app;
      },
      (error) => (error as NodeJS.ErrnoException).code === 'EADDRINUSE',
    );
    t = started.value;
    base = `http://127.0.0.1:${started.port}`;
  });
  after(() => t.close());

  const signedIn = () => signedInWithToken({ t, base }, 'mcp', '/dashboard');

  it('needs a session and is linked from the nav and the front page', async () => {
    const anonymous = await getPage(base, '/dashboard/mcp');
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), '/dashboard/sign-in');
    const s = await signedIn();
    const overview = await (await getPage(base, '/dashboard', s.cookie)).text();
    assert.match(overview, /<a href="\/dashboard\/mcp">MCP setup<\/a>/);
    const front = await (await getPage(base, '/')).text();
    assert.match(front, /<a href="\/dashboard\/mcp">MCP setup page<\/a>/);
  });

  it('fills every configuration with the MCP URL and the X-Api-Key header, the picked key as a placeholder', async () => {
    const s = await signedIn();
    const keys = await t.services.accounts.listKeys(s.accountId);
    const key = keys[0]!;
    const res = await getPage(base, `/dashboard/mcp?key=${key.id}`, s.cookie);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    const url = `${base}/mcp`;
    const placeholder = `<your key ${key.displayPrefix}…>`;
    assert.match(page, new RegExp(`<option value="${key.id}" selected>`));
    assert.equal(config(page, 'claude-code'), `claude mcp add --transport http utility-tools ${url} --header "X-Api-Key: ${placeholder}"`);
    assert.deepEqual(JSON.parse(config(page, 'cursor')), { mcpServers: { 'utility-tools': { url, headers: { 'X-Api-Key': placeholder } } } });
    assert.deepEqual(JSON.parse(config(page, 'vscode')), { servers: { 'utility-tools': { type: 'http', url, headers: { 'X-Api-Key': placeholder } } } });
    // A loopback http URL needs no --allow-http for mcp-remote.
    assert.equal(config(page, 'mcp-remote'), `npx -y mcp-remote ${url} --header "X-Api-Key:${placeholder}"`);
    assert.ok(!page.includes(s.apiKey), 'the secret of an existing key is never on the page');
    // Copy buttons come from the hashed copy module, no inline script.
    assert.match(page, /<script type="module" src="\/dashboard\/assets\/copy-secret\.[0-9a-f]{12}\.js"><\/script>/);
    assert.match(page, /<button type="button" data-copy="cursor-config" data-status="cursor-status" hidden>Copy the Cursor configuration<\/button>/);
  });

  it('creates a key for MCP whose secret is in the 201 answer only, and works with the configuration as written', async () => {
    const s = await signedIn();
    const before = await t.services.accounts.listKeys(s.accountId);
    const res = await postForm(base, '/dashboard/mcp/keys', { _csrf: s.token, name: 'Laptop agent' }, { cookie: s.cookie });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('location'), null);
    const page = await res.text();
    assert.match(page, /is not shown again/);
    const cursor = JSON.parse(config(page, 'cursor')) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    const server = cursor.mcpServers['utility-tools']!;
    const secret = server.headers['X-Api-Key']!;
    assert.match(secret, /^uts_live_[A-Za-z0-9_-]{20,}$/);
    assert.ok(config(page, 'claude-code').endsWith(`--header "X-Api-Key: ${secret}"`));
    assert.ok(config(page, 'mcp-remote').includes(`--header "X-Api-Key:${secret}"`));

    const created = (await t.services.accounts.listKeys(s.accountId)).filter((k) => !before.some((b) => b.id === k.id));
    assert.equal(created.length, 1);
    assert.equal(created[0]!.name, 'Laptop agent');
    assert.ok(secret.startsWith(created[0]!.displayPrefix));

    // The official SDK client with exactly the URL and headers the configuration names.
    const client = new Client({ name: 'mcp-setup-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'plan_task'), 'the MCP tools are listed');
    } finally {
      await client.close();
    }

    // Shown once: no later page carries it.
    for (const path of ['/dashboard/mcp', `/dashboard/mcp?key=${created[0]!.id}`, '/dashboard/keys', '/dashboard']) {
      const later = await (await getPage(base, path, s.cookie)).text();
      assert.ok(!later.includes(secret), `${path} does not show the secret`);
    }
    const again = await (await getPage(base, `/dashboard/mcp?key=${created[0]!.id}`, s.cookie)).text();
    assert.ok(config(again, 'cursor').includes(`<your key ${created[0]!.displayPrefix}…>`));
  });

  it('refuses a cross-site post and one without the token, creating no key', async () => {
    const s = await signedIn();
    const before = (await t.services.accounts.listKeys(s.accountId)).length;
    const cross = await postForm(base, '/dashboard/mcp/keys', { _csrf: s.token, name: 'evil' }, { cookie: s.cookie, origin: 'https://evil.example' });
    assert.equal(cross.status, 403);
    const noToken = await postForm(base, '/dashboard/mcp/keys', { name: 'evil' }, { cookie: s.cookie });
    assert.equal(noToken.status, 403);
    assert.equal((await t.services.accounts.listKeys(s.accountId)).length, before);
  });

  it('shows another account’s key id as no choice of this account', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const bKey = (await t.services.accounts.listKeys(b.accountId))[0]!;
    const page = await (await getPage(base, `/dashboard/mcp?key=${bKey.id}`, a.cookie)).text();
    assert.ok(!page.includes(bKey.id));
    assert.ok(!page.includes(bKey.displayPrefix));
  });
});
