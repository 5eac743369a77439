// The password reset and the verification landing page in a real browser (playwright-core driving
// the Chromium the service's own engine uses; support/chromium-dashboard.ts) against the app on a
// loopback port: "Forgot your password?" from the sign-in page, the link from the outbox, the new
// password, sign-in with it; a used link refused; the landing page of a verification link, then
// reopened; a new verification link asked for from the sign-in page and from a dead link's page
// (the second ask refused within its minute), the mailed one verifying. axe-core checks every page
// (no critical or serious violations); screenshots go to a temp folder, printed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../support/test-app.ts';
import { openDashboardInChromium, PASSWORD, type DashboardInChromium } from './support/chromium-dashboard.ts';
import { mailsTo, resetPathIn, waitForMails } from './support/mail-wait.ts';

const NEW_PASSWORD = 'a brand new passphrase';

describe('password reset and verification landing in Chromium', () => {
  let dashboard: DashboardInChromium;
  let t: TestApp;
  let base: string;
  let page: Page;
  let check: DashboardInChromium['check'];
  let consoleErrors: string[];
  let requests: string[];

  before(async () => {
    dashboard = await openDashboardInChromium({
      screens: 'reset-screens',
      viewport: { width: 1000, height: 720 },
      // A refused link is a 400 page on purpose, as are an unverified sign-in (403) and an ask for a
      // new link within its minute (429); Chromium reports each as a failed load. Every other error
      // counts (a CSP refusal among them).
      expectedError: (text, url) =>
        (/status of 400/.test(text) && /\/dashboard\/(reset-password|verify)\b/.test(url)) ||
        (/status of 403/.test(text) && /\/dashboard\/sign-in\b/.test(url)) ||
        (/status of 429/.test(text) && /\/dashboard\/verify\/resend\b/.test(url)),
    });
    ({ t, base, page, check, consoleErrors, requests } = dashboard);
  });

  after(() => dashboard?.close());

  it('resets a forgotten password by the mailed link, then signs in with the new one', { timeout: 120_000 }, async () => {
    const email = `reset-browser-${Date.now()}@example.com`;
    await t.account({ email, password: PASSWORD });

    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${base}/dashboard/forgot-password`);
    await check('1-forgot-password');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /If an account exists for .+, a link to choose a new password is on its way/);
    await check('2-link-sent');

    const [mail] = await waitForMails(t.dataDir, email, /reset-password\?token=/);
    const path = resetPathIn(mail ?? '');
    const token = new URL(path, base).searchParams.get('token') ?? '';
    const opened = await page.goto(`${base}${path}`);
    assert.equal(opened?.status(), 200);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await check('3-choose-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(`${NEW_PASSWORD} typo`);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('The two passwords differ').waitFor();
    await check('4-passwords-differ');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in?password=changed`);
    await page.getByText('Your password is changed').waitFor();
    await check('5-password-changed');

    await dashboard.submitSignIn(email, NEW_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    assert.ok(((await page.textContent('main')) ?? '').includes(email));

    const reused = await page.goto(`${base}${path}`);
    assert.equal(reused?.status(), 400);
    await page.getByText('This link has been used already').waitFor();
    await check('6-link-used');
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.waitForURL(`${base}/dashboard/forgot-password`);

    // Every request the browser made went to the service itself: the token met no other origin.
    assert.deepEqual(requests.filter((url) => new URL(url).origin !== base), []);
    assert.ok(requests.some((url) => url.includes(token)), 'the link itself was opened');
    assert.deepEqual(consoleErrors, [], 'no CSP violation or script error');
  });

  it('lands on the verification page from the link, and says so when it is reopened', { timeout: 60_000 }, async () => {
    // Signed out: the first test left this browser signed in, and sign-in would send it to the overview.
    await page.context().clearCookies();
    const email = `verify-browser-${Date.now()}@example.com`;
    const { accountId } = await t.account({ email, password: PASSWORD, verified: false });
    const token = await t.services.accounts.createVerificationToken(accountId);
    const landing = await page.goto(`${base}/dashboard/verify?token=${encodeURIComponent(token)}`);
    assert.equal(landing?.status(), 200);
    await page.getByRole('heading', { name: 'Your e-mail is verified' }).waitFor();
    await check('7-email-verified');
    assert.equal((await t.services.accounts.getAccount(accountId))?.emailVerified, true);

    const reopened = await page.goto(`${base}/dashboard/verify?token=${encodeURIComponent(token)}`);
    assert.equal(reopened?.status(), 400);
    await page.getByRole('heading', { name: 'This link is not valid or has expired' }).waitFor();
    await check('8-verify-link-used');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A GET form with no field: the URL may end in a bare '?'.
    await page.waitForURL(/\/dashboard\/sign-in\??$/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(consoleErrors, [], 'no CSP violation or script error');
  });

  it('asks for a new verification link from the sign-in page and from a dead link; the mailed link verifies', { timeout: 90_000 }, async () => {
    await page.context().clearCookies();
    const email = `resend-browser-${Date.now()}@example.com`;
    const { accountId } = await t.account({ email, password: PASSWORD, verified: false });
    await page.goto(`${base}/dashboard/sign-in`);
    await dashboard.submitSignIn(email, PASSWORD);
    await page.getByText('Verify your e-mail first').waitFor();
    await check('9-sign-in-unverified');
    await page.getByRole('button', { name: 'Send a new verification link' }).click();
    await page.waitForURL(`${base}/dashboard/verify/resend`);
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /If an account with .+ is waiting for verification, a new link is on its way/);
    await check('10-new-link-sent');
    const [mail] = await waitForMails(t.dataDir, email, /\/dashboard\/verify\?token=/);
    const path = /http:\/\/localhost:8080(\/dashboard\/verify\?token=[A-Za-z0-9_%-]+)/.exec(mail ?? '')?.[1];
    assert.ok(path, mail);

    // From a dead link's page to the form; asked again within the minute, it says when to retry.
    await page.goto(`${base}/dashboard/verify?token=not-a-token-of-ours`);
    await page.getByRole('link', { name: 'Ask for a new verification link' }).click();
    await page.waitForURL(`${base}/dashboard/verify/resend`);
    await page.getByRole('heading', { name: 'Get a new verification link' }).waitFor();
    await check('11-new-link-form');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send a new verification link' }).click();
    await page.getByRole('alert').getByText(/can be asked for once a minute\. Retry after \d+ seconds/).waitFor();
    await check('12-new-link-limited');
    assert.equal(mailsTo(t.dataDir, email, /\/dashboard\/verify\?token=/).length, 1, 'no second mail');

    const landing = await page.goto(`${base}${path}`);
    assert.equal(landing?.status(), 200);
    await page.getByRole('heading', { name: 'Your e-mail is verified' }).waitFor();
    assert.equal((await t.services.accounts.getAccount(accountId))?.emailVerified, true);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await dashboard.submitSignIn(email, PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    assert.deepEqual(requests.filter((url) => new URL(url).origin !== base), [], 'every request went to the service itself');
    assert.deepEqual(consoleErrors, [], 'no CSP violation or script error');
  });
});
