// Dashboard sessions over real HTTP on a real database: the cookie, sign-in rotation, sign-out,
// expiry (at the store, with its `now`), suspended accounts, hashed storage, limited attempts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SessionStore, LAST_SEEN_WRITE_MS } from '../../src/dashboard/session-store.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { PASSWORD, csrfTokenOf, dashboardApp, getPage, newAccount, newEmail as uniqueEmail, postForm, signIn } from './support/dashboard-client.ts';

const newEmail = () => uniqueEmail('dash');

describe('dashboard sessions (http PUBLIC_BASE_URL)', () => {
  const app = dashboardApp();

  const account = (options: { verified?: boolean } = {}) => newAccount(app, 'dash', options);

  it('signs in with a HttpOnly, SameSite=Lax cookie named session, not Secure over http', async () => {
    const { email } = await account();
    const { setCookie, cookie } = await signIn(app.base, email, PASSWORD);
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    assert.ok(cookie.startsWith('session='));
    assert.ok(attributes.includes('path=/'));
    assert.ok(attributes.includes('httponly'));
    assert.ok(attributes.includes('samesite=lax'));
    assert.ok(!attributes.includes('secure'), setCookie);
    assert.ok(attributes.includes(`max-age=${7 * 24 * 3600}`), 'the cookie lasts no longer than the absolute limit');
    const overview = await getPage(app.base, '/dashboard', cookie);
    assert.equal(overview.status, 200);
    assert.match(await overview.text(), new RegExp(email.replace(/[.]/g, '\\.')));
  });

  it('answers a wrong password and an unknown e-mail the same', async () => {
    const { email } = await account();
    const unknown = newEmail();
    const wrong = await postForm(app.base, '/dashboard/sign-in', { email, password: 'not the password at all' });
    const missing = await postForm(app.base, '/dashboard/sign-in', { email: unknown, password: 'not the password at all' });
    assert.equal(wrong.status, 401);
    assert.equal(missing.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.equal(missing.headers.get('set-cookie'), null);
    const wrongText = (await wrong.text()).replaceAll(email, 'EMAIL');
    const missingText = (await missing.text()).replaceAll(unknown, 'EMAIL');
    assert.equal(wrongText, missingText);
    assert.match(wrongText, /The e-mail or password is wrong/);
  });

  it('tells an unverified account to verify its e-mail, without a session', async () => {
    const { email } = await account({ verified: false });
    const res = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.match(await res.text(), /Verify your e-mail first/);
  });

  it('gives a new id at every sign-in and ends the one the browser had', async () => {
    const { email } = await account();
    const first = await signIn(app.base, email, PASSWORD);
    const second = await signIn(app.base, email, PASSWORD, { cookie: first.cookie });
    assert.notEqual(second.cookie, first.cookie);
    const old = await getPage(app.base, '/dashboard', first.cookie);
    assert.equal(old.status, 303);
    assert.equal(old.headers.get('location'), '/dashboard/sign-in');
    assert.equal((await getPage(app.base, '/dashboard', second.cookie)).status, 200);
  });

  it('ends the session on the server at sign-out: the kept cookie is refused afterwards', async () => {
    const { email, accountId } = await account();
    const { cookie } = await signIn(app.base, email, PASSWORD);
    const token = await csrfTokenOf(app.base, cookie);
    const out = await postForm(app.base, '/dashboard/sign-out', { _csrf: token }, { cookie });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), '/dashboard/sign-in');
    assert.match(out.headers.get('set-cookie') ?? '', /^session=; .*Max-Age=0/);
    const rows = await app.t.services.db.selectFrom('dashboard_sessions').select('id_hash').where('account_id', '=', accountId).execute();
    assert.deepEqual(rows, []);
    const replay = await getPage(app.base, '/dashboard', cookie);
    assert.equal(replay.status, 303);
  });

  it("refuses a suspended account's session at once, and ends it", async () => {
    const { email, accountId } = await account();
    const { cookie } = await signIn(app.base, email, PASSWORD);
    await app.t.services.db.updateTable('accounts').set({ status: 'suspended' }).where('id', '=', accountId).execute();
    const refused = await getPage(app.base, '/dashboard', cookie);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /suspended/);
    await app.t.services.db.updateTable('accounts').set({ status: 'active' }).where('id', '=', accountId).execute();
    assert.equal((await getPage(app.base, '/dashboard', cookie)).status, 303, 'the ended session stays ended');
    const again = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(again.status, 303);
  });

  it('stores only the SHA-256 of the id: the cookie value is nowhere in the row', async () => {
    const { email, accountId } = await account();
    const { cookie } = await signIn(app.base, email, PASSWORD);
    const id = cookie.slice('session='.length);
    const rows = await app.t.services.db.selectFrom('dashboard_sessions').selectAll().where('account_id', '=', accountId).execute();
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(id), 'the id is not stored');
    assert.equal(rows[0]?.id_hash, createHash('sha256').update(id).digest('hex'));
  });
});

describe('dashboard sign-in attempts', () => {
  // TRUST_PROXY: the tests name the client address in X-Forwarded-For, to tell the two limits apart.
  const app = dashboardApp({ env: { PASSWORD_FAILURES_LIMIT: '3', TRUST_PROXY: 'true' } });

  it("limits sign-in attempts with the API's limiter: 429 after the allowed failures, even for the right password", async () => {
    const email = newEmail();
    await app.t.account({ email, password: PASSWORD });
    for (let i = 0; i < 3; i++) assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: `wrong password ${i}` })).status, 401);
    const limited = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(limited.headers.get('set-cookie'), null);
    assert.match(await limited.text(), /Too many failed password attempts/);
  });

  it('counts failures per account across addresses', async () => {
    const email = newEmail();
    await app.t.account({ email, password: PASSWORD });
    for (let i = 1; i <= 3; i++) {
      assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: 'wrong password' }, { 'x-forwarded-for': `198.51.100.${i}` })).status, 401);
    }
    const limited = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, { 'x-forwarded-for': '198.51.100.9' });
    assert.equal(limited.status, 429);
    assert.match(await limited.text(), /for this account/);
  });

  it('counts failures per address across e-mails', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await postForm(app.base, '/dashboard/sign-in', { email: newEmail(), password: 'wrong password' }, { 'x-forwarded-for': '203.0.113.7' })).status, 401);
    }
    const limited = await postForm(app.base, '/dashboard/sign-in', { email: newEmail(), password: 'wrong password' }, { 'x-forwarded-for': '203.0.113.7' });
    assert.equal(limited.status, 429);
    assert.match(await limited.text(), /from this address/);
  });
});

describe('dashboard sessions (https PUBLIC_BASE_URL)', () => {
  const app = dashboardApp({ env: { PUBLIC_BASE_URL: 'https://tools.example', DASHBOARD_SESSION_MAX_HOURS: '12' } });

  it('names the cookie __Host-session, Secure, Path=/, no Domain, and sends HSTS', async () => {
    const email = newEmail();
    await app.t.account({ email, password: PASSWORD });
    const { setCookie } = await signIn(app.base, email, PASSWORD, { origin: 'https://tools.example' });
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    assert.ok(setCookie.startsWith('__Host-session='));
    for (const a of ['secure', 'httponly', 'samesite=lax', 'path=/', `max-age=${12 * 3600}`]) assert.ok(attributes.includes(a), `${a} in ${setCookie}`);
    assert.ok(!attributes.some((a) => a.startsWith('domain=')));
    const page = await getPage(app.base, '/dashboard/sign-in');
    assert.equal(page.headers.get('strict-transport-security'), 'max-age=31536000');
  });
});

describe('the session store: expiry by its own clock', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const MINUTE = 60_000;
  const limits = { idleMs: 60 * MINUTE, maxMs: 24 * 60 * MINUTE };

  it('ends a session idle for the idle limit, and counts idleness from the last request', async () => {
    const { accountId } = await t.account({});
    const store = new SessionStore(t.services.db, limits);
    const t0 = Date.UTC(2026, 0, 1);
    const { id } = await store.create(accountId, {}, t0);
    assert.ok(await store.find(id, t0 + 59 * MINUTE), 'alive one minute before the idle limit');
    assert.ok(await store.find(id, t0 + 118 * MINUTE), 'the request at +59 min moved the idle limit');
    assert.equal(await store.find(id, t0 + 178 * MINUTE), undefined, 'idle for 60 minutes: ended');
    assert.equal(await store.find(id, t0 + 179 * MINUTE), undefined, 'and the row is gone');
  });

  it('ends a busy session at the absolute limit', async () => {
    const { accountId } = await t.account({});
    const store = new SessionStore(t.services.db, limits);
    const t0 = Date.UTC(2026, 0, 2);
    const { id } = await store.create(accountId, {}, t0);
    let at = t0;
    for (; at < t0 + limits.maxMs - 30 * MINUTE; at += 30 * MINUTE) assert.ok(await store.find(id, at), `alive at +${(at - t0) / MINUTE} min`);
    assert.equal(await store.find(id, t0 + limits.maxMs), undefined);
  });

  it('writes last_seen_at at most once a minute', async () => {
    const { accountId } = await t.account({});
    const store = new SessionStore(t.services.db, limits);
    const t0 = Date.UTC(2026, 0, 3);
    const { id } = await store.create(accountId, {}, t0);
    const lastSeen = async () => (await t.services.db.selectFrom('dashboard_sessions').select('last_seen_at').where('account_id', '=', accountId).executeTakeFirstOrThrow()).last_seen_at;
    await store.find(id, t0 + LAST_SEEN_WRITE_MS - 1);
    assert.equal(Number(await lastSeen()), t0);
    await store.find(id, t0 + LAST_SEEN_WRITE_MS);
    assert.equal(Number(await lastSeen()), t0 + LAST_SEEN_WRITE_MS);
  });

  it('sweeps expired rows and keeps live ones', async () => {
    const { accountId } = await t.account({});
    const store = new SessionStore(t.services.db, limits);
    const t0 = Date.UTC(2026, 0, 4);
    await store.create(accountId, {}, t0);
    const live = await store.create(accountId, {}, t0 + 30 * MINUTE);
    const swept = await store.sweep(t0 + 70 * MINUTE);
    assert.ok(swept >= 1);
    const left = await t.services.db.selectFrom('dashboard_sessions').select('created_at').where('account_id', '=', accountId).execute();
    assert.deepEqual(left.map((r) => Number(r.created_at)), [t0 + 30 * MINUTE]);
    assert.ok(await store.find(live.id, t0 + 70 * MINUTE));
  });
});
