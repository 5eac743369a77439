// A new verification link by the dashboard, over real HTTP on the real app (SQLite, and
// PostgreSQL with TEST_DATABASE=postgres): offered where an unverified person lands (sign-in with
// the right password, the page after sign-up, a dead link's page); the mail read from the outbox
// as the other verification tests read it, its link verifying the account while the earlier link
// stays valid; one answer for unverified, verified and unknown e-mails, a mail only for the
// first; the limits (a burst refused with a clear message, counted alike for every e-mail);
// another account untouched; and the Origin check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttemptLimiter, VERIFICATION_RESENDS } from '../../src/accounts/attempt-limiter.ts';
import { PASSWORD, dashboardApp, getPage, newEmail as uniqueEmail, postForm } from './support/dashboard-client.ts';
import { mailsTo, waitForMails } from './support/mail-wait.ts';

const VERIFY_MAIL = /\/dashboard\/verify\?token=/;
const RESEND = '/dashboard/verify/resend';
const newEmail = () => uniqueEmail('resend');
// TRUST_PROXY is on: each request names its own client address unless a test shares one, so the
// per-address limit of one test is not spent by another.
let addresses = 0;
const newAddress = () => ({ 'x-forwarded-for': `203.0.113.${++addresses}` });

/** The dashboard's verification path in a mail's text. */
function linkIn(mail: string): string {
  const path = /http:\/\/localhost:8080(\/dashboard\/verify\?token=[A-Za-z0-9_%-]+)/.exec(mail)?.[1];
  assert.ok(path, `a verification link in:\n${mail}`);
  return path;
}

const resendButton = (email: string) =>
  `<form method="post" action="${RESEND}">\n<input type="hidden" name="email" value="${email}">\n<button type="submit">Send a new verification link</button>\n</form>`;

describe('a new verification link from the dashboard', () => {
  const app = dashboardApp({ env: { TRUST_PROXY: 'true' } });

  /** Signs up by the form (which mails the first link) and returns the e-mail and that link. */
  async function signUp(): Promise<{ email: string; accountId: string; firstLink: string }> {
    const email = newEmail();
    const res = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD }, newAddress());
    assert.equal(res.status, 201);
    assert.ok((await res.text()).includes(resendButton(email)), 'the page after sign-up offers a new link');
    const account = await app.t.services.accounts.findAccountByEmail(email);
    assert.ok(account);
    return { email, accountId: account.id, firstLink: linkIn(mailsTo(app.t.dataDir, email, VERIFY_MAIL)[0] ?? '') };
  }

  const verified = async (accountId: string) => (await app.t.services.accounts.getAccount(accountId))?.emailVerified;
  const tokensOf = async (accountId: string) => (await app.t.services.db.selectFrom('email_verifications').select('token_hash').where('account_id', '=', accountId).execute()).length;

  it('is offered where an unverified person lands: sign-in with the right password, after sign-up, a dead link', async () => {
    const { email } = await signUp();
    const rightPassword = await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD }, newAddress());
    assert.equal(rightPassword.status, 403);
    const page = await rightPassword.text();
    assert.match(page, /Verify your e-mail first/);
    assert.ok(page.includes(resendButton(email)), 'the sign-in page offers a new link to the account that proved its password');
    // A wrong password proves nothing: the page neither says the address waits for verification nor offers a link.
    const wrong = await postForm(app.base, '/dashboard/sign-in', { email, password: 'not the password at all' }, newAddress());
    assert.equal(wrong.status, 401);
    const wrongPage = await wrong.text();
    assert.doesNotMatch(wrongPage, /Verify your e-mail|verification link/);

    const dead = await getPage(app.base, '/dashboard/verify?token=not-a-token-of-ours');
    assert.equal(dead.status, 400);
    assert.match(await dead.text(), /<a href="\/dashboard\/verify\/resend">Ask for a new verification link<\/a>/);
    const form = await getPage(app.base, RESEND);
    assert.equal(form.status, 200);
    const formPage = await form.text();
    assert.match(formPage, /<form class="stack" method="post" action="\/dashboard\/verify\/resend">/);
    assert.match(formPage, /<label for="email">E-mail<\/label>/);
  });

  it('mails a new link that verifies the account; the earlier link stays valid; a burst is refused with a clear message', { timeout: 30_000 }, async () => {
    const a = await signUp();
    const b = await signUp();
    const address = newAddress();
    const sent = await postForm(app.base, RESEND, { email: a.email }, address);
    assert.equal(sent.status, 200);
    assert.match(await sent.text(), new RegExp(`If an account with <strong>${a.email}</strong> is waiting for verification, a new link is on its way`));
    const mails = await waitForMails(app.t.dataDir, a.email, VERIFY_MAIL, 2);
    assert.equal(mails.length, 2, 'the sign-up mail and the new one');
    const newLink = linkIn(mails[1] ?? '');
    assert.notEqual(newLink, a.firstLink, 'a new token');
    assert.match(mails[1] ?? '', /^Subject: Verify your e-mail for the tool service$/m);
    assert.match(mails[1] ?? '', /The link is valid for 48 hours/);

    // A second ask within the minute: refused, saying why and when to retry; no mail, no token.
    const burst = await postForm(app.base, RESEND, { email: a.email }, address);
    assert.equal(burst.status, 429);
    const retryAfter = Number(burst.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const burstPage = await burst.text();
    assert.match(burstPage, /A new verification link for this e-mail can be asked for once a minute\. Retry after \d+ seconds\./);
    assert.match(burstPage, /role="alert"/);
    assert.ok(burstPage.includes(`value="${a.email}"`), 'the form keeps the e-mail');
    assert.equal(mailsTo(app.t.dataDir, a.email, VERIFY_MAIL).length, 2);
    assert.equal(await tokensOf(a.accountId), 2, 'the sign-up link and the new one');

    // B is untouched by A's asks: still unverified, one link, and its own ask passes at once.
    assert.equal(await verified(b.accountId), false);
    assert.equal(await tokensOf(b.accountId), 1);
    assert.equal((await postForm(app.base, RESEND, { email: b.email }, address)).status, 200, "A's limit is not B's");

    // The new link verifies A (and only A); A then signs in.
    const landing = await getPage(app.base, newLink);
    assert.equal(landing.status, 200);
    assert.ok((await landing.text()).includes(`<strong>${a.email}</strong> is verified`));
    assert.equal(await verified(a.accountId), true);
    assert.equal(await verified(b.accountId), false, 'B waits for its own link');
    assert.equal((await postForm(app.base, '/dashboard/sign-in', { email: a.email, password: PASSWORD }, newAddress())).status, 303);

    // B's earlier link (from sign-up) still works after B asked for a new one.
    await waitForMails(app.t.dataDir, b.email, VERIFY_MAIL, 2);
    const old = await getPage(app.base, b.firstLink);
    assert.equal(old.status, 200, 'an earlier unused link stays valid');
    assert.equal(await verified(b.accountId), true);
  });

  it('answers a verified, an unknown and an unverified e-mail with one page, mails only the unverified, and limits them alike', { timeout: 30_000 }, async () => {
    const waiting = await signUp();
    const done = newEmail();
    const { accountId: doneId } = await app.t.account({ email: done, password: PASSWORD });
    const unknown = newEmail();
    const texts: string[] = [];
    for (const email of [waiting.email, done, unknown]) {
      const res = await postForm(app.base, RESEND, { email }, newAddress());
      assert.equal(res.status, 200, email);
      texts.push((await res.text()).replaceAll(email, 'EMAIL'));
    }
    assert.equal(new Set(texts).size, 1, 'the same page for all three');
    await waitForMails(app.t.dataDir, waiting.email, VERIFY_MAIL, 2);
    // Whether to mail is decided before the answer: the other two were handed to the mailer never.
    assert.deepEqual(mailsTo(app.t.dataDir, done, /./), []);
    assert.deepEqual(mailsTo(app.t.dataDir, unknown, /./), []);
    assert.equal(await tokensOf(doneId), 0, 'no link made for a verified account');

    // The per-minute limit refuses all three alike: the refusal says nothing about the account.
    const refusals: string[] = [];
    for (const email of [waiting.email, done, unknown]) {
      const res = await postForm(app.base, RESEND, { email }, newAddress());
      assert.equal(res.status, 429, email);
      refusals.push((await res.text()).replaceAll(email, 'EMAIL').replace(/Retry after \d+ seconds/, 'Retry after N seconds'));
    }
    assert.equal(new Set(refusals).size, 1, 'the same refusal for all three');
  });

  it(`limits a mailbox to ${VERIFICATION_RESENDS.perAccountHour} links an hour (one a minute) and an address to ${VERIFICATION_RESENDS.perAddressHour} an hour`, async () => {
    // The limiter on the app's own database with a clock of its own, to walk through the hour.
    let now = Date.UTC(2026, 0, 1, 12);
    const limiter = new AttemptLimiter(app.t.services.db, app.t.config.attemptLimits, () => now);
    const email = newEmail();
    const refusal = async (ip: string, mail: string) => {
      try {
        await limiter.verificationResend(ip, mail);
        return undefined;
      } catch (error) {
        return error as { status: number; message: string; headers: Record<string, string> };
      }
    };
    for (let i = 0; i < VERIFICATION_RESENDS.perAccountHour; i++) {
      assert.equal(await refusal(`192.0.2.${i + 1}`, email), undefined, `ask ${i + 1}`);
      const early = await refusal(`192.0.2.${i + 1}`, email);
      assert.equal(early?.status, 429, 'a second ask within the minute');
      now += 61_000;
    }
    const sixth = await refusal('192.0.2.99', email.toUpperCase());
    assert.equal(sixth?.status, 429, 'the hour is spent, whatever the case of the address');
    assert.match(sixth?.message ?? '', /at most 5 an hour/);
    now += 3600_000;
    assert.equal(await refusal('192.0.2.99', email), undefined, 'a new hour opens again');

    // One address: refused asks (the same mailbox within its minute) send nothing and cost the
    // address nothing; its asks that pass are counted up to the limit.
    const shared = '198.18.0.7';
    const first = newEmail();
    assert.equal(await refusal(shared, first), undefined);
    for (let i = 0; i < 3; i++) assert.equal((await refusal(shared, first))?.status, 429);
    for (let i = 1; i < VERIFICATION_RESENDS.perAddressHour; i++) assert.equal(await refusal(shared, newEmail()), undefined, `mailbox ${i + 1} from the address`);
    const flood = await refusal(shared, newEmail());
    assert.equal(flood?.status, 429);
    assert.match(flood?.message ?? '', /from this address: at most 10 an hour/);
  });

  it('refuses a cross-site post and an address that is no e-mail, sending nothing', async () => {
    const { email, accountId } = await signUp();
    const evil = await postForm(app.base, RESEND, { email }, { origin: 'https://evil.example', ...newAddress() });
    assert.equal(evil.status, 403);
    assert.match(await evil.text(), /another site/);
    const bad = await postForm(app.base, RESEND, { email: 'not an e-mail' }, newAddress());
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Enter a valid e-mail address\./);
    assert.equal(await tokensOf(accountId), 1, 'only the sign-up link');
    assert.equal(mailsTo(app.t.dataDir, email, VERIFY_MAIL).length, 1);
    // Neither spent the e-mail's limit: its ask passes now.
    assert.equal((await postForm(app.base, RESEND, { email }, newAddress())).status, 200);
    await waitForMails(app.t.dataDir, email, VERIFY_MAIL, 2);
  });
});
