// Sign-up by the dashboard's form, over real HTTP: the API's rules, limit and verification mail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { getPage, postForm, signIn } from './support/dashboard-client.ts';
import { verificationPath } from './support/outbox.ts';

const PASSWORD = 'correct horse battery staple';
let seq = 0;
const newEmail = () => `signup${++seq}-${Date.now()}@example.com`;

describe('dashboard sign-up', () => {
  let t: TestApp;
  let base: string;
  let address = 0;
  // TRUST_PROXY: each test signs up from its own address, so the per-address limit is the limit test's alone.
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++address}` });
  before(async () => {
    t = await startTestApp({ env: { SIGNUP_PER_HOUR: '2', TRUST_PROXY: 'true' } });
    base = await listen(t);
  });
  after(() => t.close());

  it('creates a free account, mails the verification link, and signs in once it is opened', async () => {
    const email = newEmail();
    const form = await getPage(base, '/dashboard/sign-up');
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<label for="password">Password<\/label>/);
    const res = await postForm(base, '/dashboard/sign-up', { email, password: PASSWORD }, from());
    assert.equal(res.status, 201);
    assert.match(await res.text(), /Check your e-mail/);
    const account = await t.services.accounts.findAccountByEmail(email);
    assert.equal(account?.plan, 'free');
    assert.equal(account?.emailVerified, false);
    const early = await postForm(base, '/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(early.status, 403, 'not verified yet');
    const verified = await fetch(`${base}${verificationPath(t.dataDir, email)}`);
    assert.equal(verified.status, 200);
    const { cookie } = await signIn(base, email, PASSWORD);
    assert.match(await (await getPage(base, '/dashboard', cookie)).text(), /Free/);
  });

  it('keeps the API rules: a short password or a bad e-mail is refused and nothing is made', async () => {
    const email = newEmail();
    const short = await postForm(base, '/dashboard/sign-up', { email, password: 'short' }, from());
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 10 characters/);
    const bad = await postForm(base, '/dashboard/sign-up', { email: 'not-an-address', password: PASSWORD }, from());
    assert.equal(bad.status, 400);
    assert.equal(await t.services.accounts.findAccountByEmail(email), undefined);
  });

  it('says an e-mail is taken, as the API does', async () => {
    const email = newEmail();
    await t.account({ email, password: PASSWORD });
    const res = await postForm(base, '/dashboard/sign-up', { email, password: PASSWORD }, from());
    assert.equal(res.status, 409);
    assert.match(await res.text(), /already exists/);
  });

  it('refuses a sign-up posted from another site', async () => {
    const email = newEmail();
    const res = await postForm(base, '/dashboard/sign-up', { email, password: PASSWORD }, { ...from(), origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(await t.services.accounts.findAccountByEmail(email), undefined);
  });

  it('counts sign-ups per address with the API limit (SIGNUP_PER_HOUR)', async () => {
    const headers = from();
    for (let i = 0; i < 2; i++) assert.equal((await postForm(base, '/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, headers)).status, 201);
    const email = newEmail();
    const limited = await postForm(base, '/dashboard/sign-up', { email, password: PASSWORD }, headers);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(await t.services.accounts.findAccountByEmail(email), undefined);
  });
});
