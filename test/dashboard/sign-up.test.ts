// Sign-up by the dashboard's form, over real HTTP: the API's rules, limit and verification mail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PASSWORD, dashboardApp, getPage, newEmail as uniqueEmail, postForm, signIn } from './support/dashboard-client.ts';
import { verificationPath } from './support/outbox.ts';

const newEmail = () => uniqueEmail('signup');

describe('dashboard sign-up', () => {
  const app = dashboardApp({ env: { SIGNUP_PER_HOUR: '2', TRUST_PROXY: 'true' } });
  let address = 0;
  // TRUST_PROXY: each test signs up from its own address, so the per-address limit is the limit test's alone.
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++address}` });

  it('creates a free account, mails the verification link, and signs in once it is opened', async () => {
    const email = newEmail();
    const form = await getPage(app.base, '/dashboard/sign-up');
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<label for="password">Password<\/label>/);
    const res = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD }, from());
    assert.equal(res.status, 201);
    assert.match(await res.text(), /Check your e-mail/);
    const account = await app.t.services.accounts.findAccountByEmail(email);
    assert.equal(account?.plan, 'free');
    assert.equal(account?.emailVerified, false);
    const early = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(early.status, 403, 'not verified yet');
    const verified = await fetch(`${app.base}${verificationPath(app.t.dataDir, email)}`);
    assert.equal(verified.status, 200);
    const { cookie } = await signIn(app.base, email, PASSWORD);
    assert.match(await (await getPage(app.base, '/dashboard', cookie)).text(), /Free/);
  });

  it('keeps the API rules: a short password or a bad e-mail is refused and nothing is made', async () => {
    const email = newEmail();
    const short = await postForm(app.base, '/dashboard/sign-up', { email, password: 'short' }, from());
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 10 characters/);
    const bad = await postForm(app.base, '/dashboard/sign-up', { email: 'not-an-address', password: PASSWORD }, from());
    assert.equal(bad.status, 400);
    assert.equal(await app.t.services.accounts.findAccountByEmail(email), undefined);
  });

  it('says an e-mail is taken, as the API does', async () => {
    const email = newEmail();
    await app.t.account({ email, password: PASSWORD });
    const res = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD }, from());
    assert.equal(res.status, 409);
    assert.match(await res.text(), /already exists/);
  });

  it('refuses a sign-up posted from another site', async () => {
    const email = newEmail();
    const res = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD }, { ...from(), origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(await app.t.services.accounts.findAccountByEmail(email), undefined);
  });

  it('counts sign-ups per address with the API limit (SIGNUP_PER_HOUR)', async () => {
    const headers = from();
    for (let i = 0; i < 2; i++) assert.equal((await postForm(app.base, '/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, headers)).status, 201);
    const email = newEmail();
    const limited = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD }, headers);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(await app.t.services.accounts.findAccountByEmail(email), undefined);
  });
});
