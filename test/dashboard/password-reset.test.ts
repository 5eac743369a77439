// Password reset by mail over real HTTP on the real app (SQLite, and PostgreSQL with
// TEST_DATABASE=postgres): one answer for known and unknown e-mails, the mail only for a known
// one, the link once and for an hour, stored hashed, every session ended, the limits, the
// sign-in failures forgotten, and the Origin check.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { RESET_REQUESTS } from '../../src/accounts/attempt-limiter.ts';
import { PASSWORD, dashboardApp, getPage, newAccount, newEmail as uniqueEmail, postForm, signIn } from './support/dashboard-client.ts';
import { mailsTo, resetPathIn, waitForMails } from './support/mail-wait.ts';

const NEW_PASSWORD = 'a brand new passphrase';
const RESET_MAIL = /reset-password\?token=/;
const newEmail = () => uniqueEmail('reset');
// TRUST_PROXY is on: each test names its own client address, so the per-address limit of one
// test is not spent by another.
let addresses = 0;
const newAddress = () => ({ 'x-forwarded-for': `198.51.100.${++addresses}` });

const tokenOf = (path: string) => decodeURIComponent(new URL(path, 'http://x').searchParams.get('token') ?? '');
const hiddenToken = (page: string) => /<input type="hidden" name="token" value="([^"]*)">/.exec(page)?.[1];

describe('dashboard password reset', () => {
  const app = dashboardApp({ env: { PASSWORD_FAILURES_LIMIT: '3', TRUST_PROXY: 'true' } });

  const account = (options: { verified?: boolean } = {}) => newAccount(app, 'reset', options);

  /** Asks for a link by the form and returns the path of the mailed one. */
  async function requestLink(email: string): Promise<string> {
    const res = await postForm(app.base, '/dashboard/forgot-password', { email }, newAddress());
    assert.equal(res.status, 200, await res.text());
    const [mail] = await waitForMails(app.t.dataDir, email, RESET_MAIL);
    return resetPathIn(mail ?? '');
  }

  it('links the form from the sign-in page', async () => {
    const signInPage = await (await getPage(app.base, '/dashboard/sign-in')).text();
    assert.match(signInPage, /<a href="\/dashboard\/forgot-password">Forgot your password\?<\/a>/);
    const form = await getPage(app.base, '/dashboard/forgot-password');
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<label for="email">E-mail<\/label>/);
  });

  it('answers a known and an unknown e-mail with the same page, and mails only the known one', { timeout: 30_000 }, async () => {
    const { email } = await account();
    const unknown = newEmail();
    const missing = await postForm(app.base, '/dashboard/forgot-password', { email: unknown }, newAddress());
    const known = await postForm(app.base, '/dashboard/forgot-password', { email }, newAddress());
    assert.equal(missing.status, 200);
    assert.equal(known.status, 200);
    const missingText = (await missing.text()).replaceAll(unknown, 'EMAIL');
    const knownText = (await known.text()).replaceAll(email, 'EMAIL');
    assert.equal(knownText, missingText);
    assert.match(knownText, /If an account exists for <strong>EMAIL<\/strong>, a link to choose a new password is on its way/);
    const [mail] = await waitForMails(app.t.dataDir, email, RESET_MAIL);
    assert.match(mail ?? '', /^To: /m);
    assert.match(mail ?? '', /http:\/\/localhost:8080\/dashboard\/reset-password\?token=[A-Za-z0-9_-]{43}\n/, 'the link is PUBLIC_BASE_URL/dashboard/reset-password');
    // The unknown e-mail's request was answered before the known one was sent, and its path
    // hands nothing to the mailer: no file for it.
    assert.deepEqual(mailsTo(app.t.dataDir, unknown, /./), []);
  });

  it('works once: the new password signs in, the old does not, and every session of the account is ended', { timeout: 30_000 }, async () => {
    const { email, accountId } = await account();
    const laptop = await signIn(app.base, email, PASSWORD);
    const phone = await signIn(app.base, email, PASSWORD);
    assert.equal((await getPage(app.base, '/dashboard', laptop.cookie)).status, 200);
    const path = await requestLink(email);

    const form = await getPage(app.base, path);
    assert.equal(form.status, 200);
    assert.equal(form.headers.get('cache-control'), 'no-store');
    // Not no-referrer (the form's own post must carry our Origin): other sites get the origin only, never the path and its token.
    assert.equal(form.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
    const formPage = await form.text();
    assert.equal(hiddenToken(formPage), tokenOf(path), 'the form carries the token in a hidden field');
    assert.doesNotMatch(formPage, /https?:\/\//, 'the page links nowhere else');

    const token = tokenOf(path);
    const differ = await postForm(app.base, '/dashboard/reset-password', { token, password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}!` });
    assert.equal(differ.status, 400);
    assert.match(await differ.text(), /The two passwords differ/);
    const short = await postForm(app.base, '/dashboard/reset-password', { token, password: 'short', confirm: 'short' });
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 10 characters/);

    const done = await postForm(app.base, '/dashboard/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, { cookie: laptop.cookie });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/dashboard/sign-in?password=changed');
    assert.match(done.headers.get('set-cookie') ?? '', /^session=; .*Max-Age=0/, 'signs no one in: the cookie is cleared');
    const notice = await (await getPage(app.base, '/dashboard/sign-in?password=changed')).text();
    assert.match(notice, /Your password is changed and every session of your account is signed out/);

    for (const cookie of [laptop.cookie, phone.cookie]) assert.equal((await getPage(app.base, '/dashboard', cookie)).status, 303, 'the old session is ended');
    assert.deepEqual(await app.t.services.db.selectFrom('dashboard_sessions').select('id_hash').where('account_id', '=', accountId).execute(), []);

    assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, newAddress())).status, 401, 'the old password no longer signs in');
    await signIn(app.base, email, NEW_PASSWORD, newAddress());

    const reopened = await getPage(app.base, path);
    assert.equal(reopened.status, 400);
    assert.match(await reopened.text(), /This link has been used already/);
    const reposted = await postForm(app.base, '/dashboard/reset-password', { token, password: 'yet another passphrase', confirm: 'yet another passphrase' });
    assert.equal(reposted.status, 400);
    assert.match(await reposted.text(), /<a href="\/dashboard\/forgot-password">Ask for a new link<\/a>/);
    await signIn(app.base, email, NEW_PASSWORD, newAddress());
  });

  it('stores the token hashed: the row holds SHA-256 of it, for an hour', { timeout: 30_000 }, async () => {
    const { email, accountId } = await account();
    const token = tokenOf(await requestLink(email));
    const rows = await app.t.services.db.selectFrom('password_resets').selectAll().where('account_id', '=', accountId).execute();
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(token), 'the token is not stored');
    assert.equal(rows[0]?.token_hash, createHash('sha256').update(token).digest('hex'));
    assert.equal(Number(rows[0]?.expires_at) - Number(rows[0]?.created_at), 3600_000);
    assert.equal(rows[0]?.used_at, null);
  });

  it('refuses an expired link, an unknown one, and one a newer request replaced', async () => {
    const { accountId } = await account();
    const expired = await app.t.services.accounts.createPasswordReset(accountId, Date.now() - 3600_000 - 1000);
    const page = await getPage(app.base, `/dashboard/reset-password?token=${expired}`);
    assert.equal(page.status, 400);
    assert.match(await page.text(), /This link has expired/);
    const post = await postForm(app.base, '/dashboard/reset-password', { token: expired, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(post.status, 400);
    assert.match(await post.text(), /This link has expired/);

    const unknown = await getPage(app.base, '/dashboard/reset-password?token=not-a-token-of-ours');
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /This link is not valid/);
    assert.equal((await getPage(app.base, '/dashboard/reset-password')).status, 400);

    const older = await app.t.services.accounts.createPasswordReset(accountId);
    const newer = await app.t.services.accounts.createPasswordReset(accountId);
    assert.equal((await getPage(app.base, `/dashboard/reset-password?token=${older}`)).status, 400, 'the newer request replaced it');
    assert.equal((await getPage(app.base, `/dashboard/reset-password?token=${newer}`)).status, 200);
  });

  it('verifies an unverified address: the link proved the mailbox', async () => {
    const { email, accountId } = await account({ verified: false });
    const token = await app.t.services.accounts.createPasswordReset(accountId);
    assert.equal((await postForm(app.base, '/dashboard/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status, 303);
    assert.equal((await app.t.services.accounts.getAccount(accountId))?.emailVerified, true);
    await signIn(app.base, email, NEW_PASSWORD, newAddress());
  });

  it('lets a person locked out by failed sign-ins back in: the reset clears the failure count', async () => {
    const { email, accountId } = await account();
    for (let i = 0; i < 3; i++) assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: `wrong password ${i}` }, newAddress())).status, 401);
    assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, newAddress())).status, 429, 'locked out');
    const token = await app.t.services.accounts.createPasswordReset(accountId);
    assert.equal((await postForm(app.base, '/dashboard/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status, 303);
    await signIn(app.base, email, NEW_PASSWORD, newAddress());
  });

  it(`limits requests: ${RESET_REQUESTS.perAccount} an hour per e-mail (known or not), ${RESET_REQUESTS.perAddress} per address`, async () => {
    const email = newEmail();
    for (let i = 0; i < RESET_REQUESTS.perAccount; i++) assert.equal((await postForm(app.base, '/dashboard/forgot-password', { email }, newAddress())).status, 200);
    const perEmail = await postForm(app.base, '/dashboard/forgot-password', { email }, newAddress());
    assert.equal(perEmail.status, 429);
    assert.ok(Number(perEmail.headers.get('retry-after')) > 0);
    assert.match(await perEmail.text(), /Too many password reset requests for this e-mail/);

    const address = newAddress();
    for (let i = 0; i < RESET_REQUESTS.perAddress; i++) assert.equal((await postForm(app.base, '/dashboard/forgot-password', { email: newEmail() }, address)).status, 200);
    const perAddress = await postForm(app.base, '/dashboard/forgot-password', { email: newEmail() }, address);
    assert.equal(perAddress.status, 429);
    assert.match(await perAddress.text(), /Too many password reset requests from this address/);
  });

  it('refuses a cross-site post of either form', async () => {
    const { email, accountId } = await account();
    const evil = { origin: 'https://evil.example', ...newAddress() };
    const ask = await postForm(app.base, '/dashboard/forgot-password', { email }, evil);
    assert.equal(ask.status, 403);
    assert.deepEqual(await app.t.services.db.selectFrom('password_resets').select('token_hash').where('account_id', '=', accountId).execute(), [], 'no link made');
    const token = await app.t.services.accounts.createPasswordReset(accountId);
    const set = await postForm(app.base, '/dashboard/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, evil);
    assert.equal(set.status, 403);
    assert.match(await set.text(), /another site/);
    assert.equal((await app.t.services.accounts.checkPasswordReset(token)).state, 'live', 'the link is still unused');
    await signIn(app.base, email, PASSWORD, newAddress());
  });
});
