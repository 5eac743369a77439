// The verification mail's link opens the dashboard's landing page (real HTTP on the real app,
// SQLite, and PostgreSQL with TEST_DATABASE=postgres): it verifies, says so, and a reopened or
// bad link is a 400 page saying what to do, never a 500. The API's GET /api/v1/accounts/verify
// still answers JSON for the same token, and the mail names it for scripts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PASSWORD, dashboardApp, getPage, newEmail as uniqueEmail, postForm } from './support/dashboard-client.ts';
import { verificationPath } from './support/outbox.ts';

const newEmail = () => uniqueEmail('verify');

describe('the e-mail verification landing page', () => {
  const app = dashboardApp();

  function mailTo(email: string): string {
    const outbox = join(app.t.dataDir, 'outbox');
    const file = readdirSync(outbox).filter((f) => f.endsWith(`-${email}.eml`)).sort().at(-1);
    assert.ok(file, `a mail to ${email}`);
    return readFileSync(join(outbox, file), 'utf8');
  }

  it("opens from the dashboard sign-up's mail, verifies, and says so; reopened, it says the link was used", async () => {
    const email = newEmail();
    const signUp = await postForm(app.base, '/dashboard/sign-up', { email, password: PASSWORD });
    assert.equal(signUp.status, 201);
    const path = verificationPath(app.t.dataDir, email);
    assert.match(mailTo(email), new RegExp(`^http://localhost:8080${path.replace(/[?]/g, '\\?')}$`, 'm'), 'the link is PUBLIC_BASE_URL/dashboard/verify');

    const landing = await getPage(app.base, path);
    assert.equal(landing.status, 200);
    assert.equal(landing.headers.get('cache-control'), 'no-store');
    assert.match(landing.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const text = await landing.text();
    assert.match(text, /<h1>Your e-mail is verified<\/h1>/);
    assert.ok(text.includes(`<strong>${email}</strong> is verified`));
    assert.match(text, /<form method="get" action="\/dashboard\/sign-in"><button type="submit">Sign in<\/button><\/form>/);
    assert.equal((await app.t.services.accounts.findAccountByEmail(email))?.emailVerified, true);
    assert.equal((await postForm(app.base, '/dashboard/sign-in', { email, password: PASSWORD })).status, 303, 'the account signs in now');

    const reopened = await getPage(app.base, path);
    assert.equal(reopened.status, 400);
    const again = await reopened.text();
    assert.match(again, /This link is not valid or has expired/);
    assert.match(again, /If you opened it before, your e-mail is already verified: sign in/);
  });

  it('answers a bad or missing token with the page saying how to get verified', async () => {
    for (const path of ['/dashboard/verify?token=not-a-token-of-ours', '/dashboard/verify', `/dashboard/verify?token=${'x'.repeat(300)}`]) {
      const res = await getPage(app.base, path);
      assert.equal(res.status, 400, path);
      const text = await res.text();
      assert.match(text, /<h1>This link is not valid or has expired<\/h1>/);
      assert.match(text, /Not verified yet\? <a href="\/dashboard\/verify\/resend">Ask for a new verification link<\/a>/);
    }
  });

  it("keeps the API's endpoint answering JSON for the same token, named in the mail for scripts", async () => {
    const email = newEmail();
    const signUp = await fetch(`${app.base}/api/v1/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    assert.equal(signUp.status, 201);
    const mail = mailTo(email);
    const dashboardPath = verificationPath(app.t.dataDir, email);
    const apiPath = /http:\/\/localhost:8080(\/api\/v1\/accounts\/verify\?token=[A-Za-z0-9_%-]+)/.exec(mail)?.[1];
    assert.ok(apiPath, mail);
    assert.equal(new URL(apiPath, app.base).searchParams.get('token'), new URL(dashboardPath, app.base).searchParams.get('token'), 'one token, two doors');
    assert.ok(mail.indexOf(dashboardPath) < mail.indexOf(apiPath), 'the landing page is the link a person opens first');

    const verified = await fetch(`${app.base}${apiPath}`);
    assert.equal(verified.status, 200);
    assert.match(verified.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(((await verified.json()) as { result: unknown }).result, { accountId: (await app.t.services.accounts.findAccountByEmail(email))?.id, email, emailVerified: true });
    const reused = await fetch(`${app.base}${apiPath}`);
    assert.equal(reused.status, 400);
    assert.equal(((await reused.json()) as { error: string }).error, 'invalid_token');
    assert.equal((await getPage(app.base, dashboardPath)).status, 400, 'used through the API, the landing page says so too');
  });
});
