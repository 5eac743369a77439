// The API keys page over real HTTP with cookies, as a browser sends it: create (the secret once,
// on the POST's own answer, working over REST), the list (prefix, never the secret), scopes
// through the REST API's rules, last use ("never", then the latest call's time), rotate (old
// secret 401), revoke after confirmation (401), CSRF, another account's key id (not found), and a
// real server process at debug level whose output never holds a secret the page showed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type Server } from '../support/server-process.ts';
import { PASSWORD, csrfTokenOf, dashboardApp, getPage, postFields, postForm, secretIn, signIn, signedInWithToken, submit } from './support/dashboard-client.ts';
import { verificationPath } from './support/outbox.ts';

const SECRET = /uts_live_[A-Za-z0-9_-]{32}/g;

async function usageStatus(base: string, secret: string): Promise<number> {
  const res = await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': secret } });
  await res.arrayBuffer();
  return res.status;
}

describe('dashboard API keys', () => {
  const app = dashboardApp();
  const session = () => signedInWithToken(app, 'keys', '/dashboard/keys');

  const create = (s: { cookie: string; token: string }, entries: [string, string][]) => submit(app.base, '/dashboard/keys', s, entries);

  it('needs a session: the page and its forms send to sign-in', async () => {
    const page = await getPage(app.base, '/dashboard/keys');
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/dashboard/sign-in');
    const post = await postForm(app.base, '/dashboard/keys', { name: 'x' });
    assert.equal(post.status, 303);
    assert.equal(post.headers.get('location'), '/dashboard/sign-in');
  });

  it('links API keys from the overview, and marks it current on its own page', async () => {
    const s = await session();
    const overview = await (await getPage(app.base, '/dashboard', s.cookie)).text();
    assert.match(overview, /<a href="\/dashboard\/keys">API keys<\/a>/);
    assert.ok(!overview.includes('API keys <span class="muted">(coming)'));
    const keys = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.match(keys, /<a href="\/dashboard\/keys" aria-current="page">API keys<\/a>/);
    // The catalog's tools are offered as scopes, grouped by family.
    assert.match(keys, /<summary>unit-conversions <span class="muted">\(\d+ tools\)<\/span><\/summary>/);
    assert.ok(keys.includes('value="unit_conversions_mass_converter"'), 'a tool of the catalog is a checkbox');
    assert.ok(!/<script/.test(keys), 'the list page loads no script');
  });

  it('creates a key: the secret once on the POST answer (no redirect, no-store), working over REST; the list shows its prefix only', async () => {
    const s = await session();
    const { res, page } = await create(s, [['name', 'ci <server>'], ['canManageKeys', 'true']]);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('location'), null, 'the secret is answered, not redirected to');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(page, /Store it now; it is not shown again\./);
    assert.ok(page.includes('ci &lt;server&gt;'), 'the name is escaped');
    const secret = secretIn(page, SECRET);
    // The copy button: hidden until the module (our own, hashed, not inline) shows it.
    assert.match(page, /<button type="button" data-copy="secret" data-status="copy-status" hidden>Copy<\/button>/);
    const src = /<script type="module" src="(\/dashboard\/assets\/copy-secret\.[0-9a-f]{12}\.js)"><\/script>/.exec(page)?.[1];
    assert.ok(src, 'the page loads the copy module by its hashed name');
    assert.equal([...page.matchAll(/<script/g)].length, 1, 'no other script, inline or not');
    const script = await fetch(`${app.base}${src}`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await script.text(), /navigator\.clipboard\.writeText/);

    assert.equal(await usageStatus(app.base, secret), 200);
    const [key] = (await app.t.services.accounts.listKeys(s.accountId)).filter((k) => k.name === 'ci <server>');
    assert.ok(key);
    assert.deepEqual({ tools: key.tools, canManageKeys: key.canManageKeys, revokedAt: key.revokedAt }, { tools: null, canManageKeys: true, revokedAt: null });

    const list = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.ok(!list.includes(secret), 'the list never shows the secret');
    assert.ok(list.includes(`<code>${secret.slice(0, 13)}…</code>`), 'the list shows the prefix');
    const row = list.slice(list.indexOf('<th scope="row">ci &lt;server&gt;</th>'));
    // Scopes, may-manage-keys, the creation time, last use (reading usage is no tool call: never), the status.
    assert.match(row.slice(0, row.indexOf('</tr>')), /all tools<\/td>\s*<td>Yes<\/td>\s*<td><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/td>\s*<td><span class="muted">never<\/span><\/td>[\s\S]*Active/);
  });

  it('shows a key never used as "never", and after a call the time of its latest call', async () => {
    const s = await session();
    const { key: unused } = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'unused' });
    const { key: used, secret } = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'used' });
    /** The last-used cell (the fifth after the name) of the row of key `name`. */
    const lastUsedCell = (page: string, name: string): string => {
      const row = page.slice(page.indexOf(`<th scope="row">${name}</th>`));
      const cells = [...row.slice(0, row.indexOf('</tr>')).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
      return cells[4] ?? '';
    };
    const before = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.equal(lastUsedCell(before, 'unused'), '<span class="muted">never</span>');
    assert.equal(lastUsedCell(before, 'used'), '<span class="muted">never</span>');

    // The call is counted at a known time (the recorder's clock), then written by the usage flush, as the beat would.
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000 + 7_000);
    app.t.services.usage.clock = () => at;
    try {
      const res = await fetch(`${app.base}/api/v1/unit-conversions/mass-converter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify({ value: 1, from: 'kg', to: 'lb' }),
      });
      assert.equal(res.status, 200, await res.text());
    } finally {
      app.t.services.usage.clock = () => new Date();
    }
    await app.t.services.usage.flush();
    const after = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.equal(lastUsedCell(after, 'used'), `<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`);
    assert.equal(lastUsedCell(after, 'unused'), '<span class="muted">never</span>', 'only the key that called');
    assert.equal((await app.t.services.accounts.getKey(used.id))?.lastUsedAt, at.toISOString());
    assert.equal((await app.t.services.accounts.getKey(unused.id))?.lastUsedAt, null);
  });

  it('scopes a key to the chosen tools, by the REST rules: an unknown tool is refused and nothing is made', async () => {
    const s = await session();
    const { res, page } = await create(s, [
      ['name', 'mass only'],
      ['tools', 'unit_conversions_mass_converter'],
      ['tools', 'calculators_emi_calculator'],
    ]);
    assert.equal(res.status, 201, page);
    const secret = secretIn(page, SECRET);
    const key = (await app.t.services.accounts.listKeys(s.accountId)).find((k) => k.name === 'mass only');
    assert.deepEqual(key?.tools, ['calculators_emi_calculator', 'unit_conversions_mass_converter']);
    assert.equal((await app.t.call('/api/v1/unit-conversions/mass-converter', { value: 1, from: 'kg', to: 'lb' }, secret)).statusCode, 200);
    assert.equal((await app.t.call('/api/v1/calculators/bmi-calculator', { weight: 70, height: 175 }, secret)).statusCode, 403, 'a tool outside its list');

    const before = (await app.t.services.accounts.listKeys(s.accountId)).length;
    const list = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.ok(list.includes('<td><code>calculators_emi_calculator</code>, <code>unit_conversions_mass_converter</code></td>'), 'the list names its tools');

    const refused = await create(s, [['name', 'bad scope'], ['tools', 'unit_conversions_mass_converter'], ['tools', 'no_such_tool']]);
    assert.equal(refused.res.status, 400);
    assert.match(refused.page, /Unknown operationIds in tools: tools: unknown: no_such_tool/);
    assert.ok(refused.page.includes('value="bad scope"'), 'the form keeps what was typed');
    assert.ok(refused.page.includes('value="unit_conversions_mass_converter" checked'), 'and what was chosen');
    assert.match(refused.page, /<details open><summary>unit-conversions <span class="muted">\(\d+ tools, 1 chosen\)/);
    assert.equal((await app.t.services.accounts.listKeys(s.accountId)).length, before, 'no key was made');
    // The schema's limits are the API's: a name over 100 characters.
    const long = await create(s, [['name', 'n'.repeat(101)]]);
    assert.equal(long.res.status, 400);
    assert.match(long.page, /name/);
    assert.equal((await app.t.services.accounts.listKeys(s.accountId)).length, before);
  });

  it('rotates: the new secret once on the answer, the old one 401 over REST, the new one 200', async () => {
    const s = await session();
    const old = secretIn((await create(s, [['name', 'to rotate']])).page, SECRET);
    const key = (await app.t.services.accounts.listKeys(s.accountId)).find((k) => k.name === 'to rotate');
    assert.ok(key);
    const res = await postFields(app.base, `/dashboard/keys/${key.id}/rotate`, [['_csrf', s.token]], s.cookie);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('location'), null);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    const fresh = secretIn(page, SECRET);
    assert.notEqual(fresh, old);
    assert.match(page, /The previous secret no longer works/);
    assert.equal(await usageStatus(app.base, old), 401);
    assert.equal(await usageStatus(app.base, fresh), 200);
    const list = await (await getPage(app.base, '/dashboard/keys', s.cookie)).text();
    assert.ok(!list.includes(fresh) && !list.includes(old));
    assert.ok(list.includes(`<code>${fresh.slice(0, 13)}…</code>`), 'the list shows the new prefix');
  });

  it('revokes after a confirmation: without the box nothing happens; with it the key answers 401', async () => {
    const s = await session();
    const secret = secretIn((await create(s, [['name', 'to revoke']])).page, SECRET);
    const key = (await app.t.services.accounts.listKeys(s.accountId)).find((k) => k.name === 'to revoke');
    assert.ok(key);
    const confirm = await getPage(app.base, `/dashboard/keys/${key.id}/revoke`, s.cookie);
    assert.equal(confirm.status, 200);
    const confirmPage = await confirm.text();
    assert.match(confirmPage, /<input type="checkbox" name="confirm" value="yes" required> I understand this key stops working/);
    assert.ok(!confirmPage.includes(secret));

    const unconfirmed = await postFields(app.base, `/dashboard/keys/${key.id}/revoke`, [['_csrf', s.token]], s.cookie);
    assert.equal(unconfirmed.status, 400);
    assert.match(await unconfirmed.text(), /Tick the box/);
    assert.equal(await usageStatus(app.base, secret), 200, 'not revoked without the confirmation');

    const done = await postFields(app.base, `/dashboard/keys/${key.id}/revoke`, [['_csrf', s.token], ['confirm', 'yes']], s.cookie);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `/dashboard/keys?revoked=${key.id}`);
    assert.equal(await usageStatus(app.base, secret), 401);
    const list = await (await getPage(app.base, `/dashboard/keys?revoked=${key.id}`, s.cookie)).text();
    assert.match(list, /The key “to revoke” was revoked/);
    const row = list.slice(list.indexOf('<th scope="row">to revoke</th>'));
    assert.match(row.slice(0, row.indexOf('</tr>')), /Revoked/);
    assert.ok(!row.slice(0, row.indexOf('</tr>')).includes('/rotate'), 'a revoked key offers no actions');
  });

  it('refuses a create without the CSRF token (403) or from another site (403): no key is made', async () => {
    const s = await session();
    const before = (await app.t.services.accounts.listKeys(s.accountId)).length;
    const noToken = await postFields(app.base, '/dashboard/keys', [['name', 'forged']], s.cookie);
    assert.equal(noToken.status, 403);
    assert.match(await noToken.text(), /no security token/);
    const foreign = await postFields(app.base, '/dashboard/keys', [['_csrf', s.token], ['name', 'forged']], s.cookie, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal((await app.t.services.accounts.listKeys(s.accountId)).length, before);
  });

  it('answers another account’s key id as not found, like an unknown id: it is neither rotated nor revoked', async () => {
    const victim = await app.t.account();
    const s = await session();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const answers: string[] = [];
    for (const id of [victim.keyId, unknown]) {
      const confirm = await getPage(app.base, `/dashboard/keys/${id}/revoke`, s.cookie);
      assert.equal(confirm.status, 404);
      const revoke = await postFields(app.base, `/dashboard/keys/${id}/revoke`, [['_csrf', s.token], ['confirm', 'yes']], s.cookie);
      assert.equal(revoke.status, 404);
      const rotate = await postFields(app.base, `/dashboard/keys/${id}/rotate`, [['_csrf', s.token]], s.cookie);
      assert.equal(rotate.status, 404);
      const texts = [await confirm.text(), await revoke.text(), await rotate.text()];
      for (const text of texts) assert.ok(!text.includes(id) && !text.includes(victim.apiKey.slice(0, 13)), 'nothing of the key is shown');
      answers.push(texts.join('\n'));
    }
    assert.equal(answers[0], answers[1], 'the same pages as for an id that does not exist');
    assert.equal(await usageStatus(app.base, victim.apiKey), 200, 'the other account’s key still works');
    assert.equal((await app.t.services.accounts.getKey(victim.keyId))?.revokedAt, null);
  });
});

describe('dashboard key secrets stay out of the logs and URLs (a server process at debug level)', () => {
  let dataDir: string;
  let server: Server;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dashboard-keys-log-'));
    server = await startServer(dataDir, { LOG_LEVEL: 'debug' });
  });
  after(async () => {
    await server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up, verifies, signs in, creates and rotates a key: no secret in any log line or Location', { timeout: 120_000 }, async () => {
    const base = server.base;
    const email = `keys-log-${Date.now()}@example.com`;
    const signUp = await postForm(base, '/dashboard/sign-up', { email, password: PASSWORD });
    assert.equal(signUp.status, 201);
    assert.equal((await fetch(`${base}${verificationPath(dataDir, email)}`)).status, 200);
    const { cookie } = await signIn(base, email, PASSWORD);
    const token = await csrfTokenOf(base, cookie, '/dashboard/keys');

    const created = await postFields(base, '/dashboard/keys', [['_csrf', token], ['name', 'logged?']], cookie);
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), null);
    const first = secretIn(await created.text(), SECRET);
    assert.equal(await usageStatus(base, first), 200);
    const keyId = /action="\/dashboard\/keys\/([0-9a-f-]{36})\/rotate"/.exec(await (await getPage(base, '/dashboard/keys', cookie)).text())?.[1];
    assert.ok(keyId);
    const rotated = await postFields(base, `/dashboard/keys/${keyId}/rotate`, [['_csrf', token]], cookie);
    assert.equal(rotated.status, 200);
    assert.equal(rotated.headers.get('location'), null);
    const second = secretIn(await rotated.text(), SECRET);
    assert.equal(await usageStatus(base, second), 200);
    const revoked = await postFields(base, `/dashboard/keys/${keyId}/revoke`, [['_csrf', token], ['confirm', 'yes']], cookie);
    assert.equal(revoked.status, 303);
    assert.ok(![first, second].some((s) => (revoked.headers.get('location') ?? '').includes(s)));

    const output = server.output();
    // The log holds the dashboard's requests (so the search below reads the right lines) ...
    assert.match(output, /\/dashboard\/keys/, 'the dashboard requests are logged');
    // ... and neither secret, nor any key-shaped string at all.
    for (const secret of [first, second]) assert.ok(!output.includes(secret), `a secret is in the output:\n${output}`);
    assert.deepEqual(output.match(SECRET) ?? [], []);
  });
});
