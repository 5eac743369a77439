// CSRF over real HTTP: a state-changing dashboard request needs our own Origin (or Referer) and
// the session's token; sign-in, which has no session yet, needs the Origin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PASSWORD, dashboardApp, getPage, newEmail, postForm, signedInWithToken } from './support/dashboard-client.ts';

describe('dashboard CSRF', () => {
  const app = dashboardApp();

  const session = () => signedInWithToken(app, 'csrf', '/dashboard');

  async function stillSignedIn(cookie: string): Promise<boolean> {
    return (await getPage(app.base, '/dashboard', cookie)).status === 200;
  }

  it('refuses a cross-site form post (Origin https://evil.example) even with the right token', async () => {
    const { cookie, token } = await session();
    const res = await postForm(app.base, '/dashboard/sign-out', { _csrf: token }, { cookie, origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /another site/);
    assert.ok(await stillSignedIn(cookie), 'the session was not ended');
  });

  it('refuses a cross-site post named only by its Referer, and one naming no origin at all', async () => {
    const { cookie, token } = await session();
    const byReferer = await fetch(`${app.base}/dashboard/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie, referer: 'https://evil.example/page' },
      body: new URLSearchParams({ _csrf: token }).toString(),
    });
    assert.equal(byReferer.status, 403);
    const anonymous = await fetch(`${app.base}/dashboard/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie },
      body: new URLSearchParams({ _csrf: token }).toString(),
    });
    assert.equal(anonymous.status, 403);
    assert.match(await anonymous.text(), /no Origin or Referer/);
    assert.ok(await stillSignedIn(cookie));
  });

  it('refuses a same-origin post without the token', async () => {
    const { cookie } = await session();
    const res = await postForm(app.base, '/dashboard/sign-out', {}, { cookie });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /no security token/);
    assert.ok(await stillSignedIn(cookie));
  });

  it('refuses a same-origin post with a wrong token', async () => {
    const { cookie, token } = await session();
    const other = await session();
    const res = await postForm(app.base, '/dashboard/sign-out', { _csrf: other.token }, { cookie });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /does not match/);
    const flipped = await postForm(app.base, '/dashboard/sign-out', { _csrf: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` }, { cookie });
    assert.equal(flipped.status, 403);
    assert.ok(await stillSignedIn(cookie));
  });

  it('accepts the right token from our own origin, as a form field or the x-csrf-token header', async () => {
    const first = await session();
    const res = await postForm(app.base, '/dashboard/sign-out', { _csrf: first.token }, { cookie: first.cookie });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/dashboard/sign-in');
    assert.ok(!(await stillSignedIn(first.cookie)));
    const second = await session();
    const byHeader = await fetch(`${app.base}/dashboard/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: second.cookie, 'x-csrf-token': second.token, referer: `${app.base}/dashboard` },
      body: '',
    });
    assert.equal(byHeader.status, 303, 'a same-origin Referer stands in for a missing Origin');
    assert.ok(!(await stillSignedIn(second.cookie)));
  });

  it('answers a script (JSON) refusal with the JSON error envelope', async () => {
    const { cookie } = await session();
    const res = await fetch(`${app.base}/dashboard/sign-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: 'https://evil.example' },
      body: '{}',
    });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { error?: { code?: string } };
    assert.equal(res.headers.get('content-type')?.startsWith('application/json'), true);
    assert.ok(JSON.stringify(body).includes('csrf_refused'), JSON.stringify(body));
  });

  it('refuses a sign-in from a foreign Origin: no session is made', async () => {
    const email = newEmail('csrf');
    await app.t.account({ email, password: PASSWORD });
    const res = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, { origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('set-cookie'), null);
    const nullOrigin = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, { origin: 'null' });
    assert.equal(nullOrigin.status, 403);
    // The PUBLIC_BASE_URL's origin (not the request's loopback Host) is ours too.
    const viaPublic = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, { origin: 'http://localhost:8080' });
    assert.equal(viaPublic.status, 303);
  });
});
