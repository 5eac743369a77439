// The dashboard in a real browser (playwright-core driving the Chromium the service's own engine
// uses; support/chromium-dashboard.ts) against the app on a loopback port: the front page, sign-up,
// the verification link from the outbox, sign-in by the labelled fields, the overview with the
// e-mail and credits, usage (the call per tool), API keys (create, the secret used over REST,
// rotate, revoke), webhooks (add one to a loopback receiver, its secret once, a test event it
// receives and verifies, delete), sign-out. axe-core checks every page (no critical or serious
// violations); screenshots go to a temp folder, printed for a person to look at.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IncomingHttpHeaders } from 'node:http';
import type { Page } from 'playwright-core';
import { verifyWebhookSignature } from '../../src/runs/webhook-signature.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import type { TestApp } from '../support/test-app.ts';
import { closeAll, openDashboardInChromium, PASSWORD, type DashboardInChromium } from './support/chromium-dashboard.ts';
import { verificationPath } from './support/outbox.ts';

// The webhook receiver: a test name pinned to loopback and opened for http, as test/mcp/runs.test.ts does.
const EGRESS = { EGRESS_ALLOW: 'hooks.test', EGRESS_RESOLVE: 'hooks.test:127.0.0.1' };

describe('the dashboard in Chromium', () => {
  let dashboard: DashboardInChromium;
  let t: TestApp;
  let base: string;
  let page: Page;
  let check: DashboardInChromium['check'];
  const email = `browser-${Date.now()}@example.com`;
  let hook: TestSite;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    // Recorded before it is answered: once the test event's page is in, the receiver has it.
    hook = await startHttpSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    dashboard = await openDashboardInChromium({
      screens: 'dashboard-screens',
      app: { env: EGRESS },
      // The verification link answers JSON, which links no icon: the browser then asks for
      // /favicon.ico, which the service does not serve. Every other error counts.
      expectedError: (_text, url) => url.endsWith('/favicon.ico'),
    });
    ({ t, base, page, check } = dashboard);
  });

  after(() => closeAll([() => dashboard?.close(), () => hook?.close()]));

  async function restStatus(secret: string): Promise<number> {
    const res = await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': secret } });
    await res.arrayBuffer();
    return res.status;
  }

  /** The secret page's read-only field, once the page is there; its copy button shown by the module. */
  async function secretShown(heading: string): Promise<string> {
    await page.getByRole('heading', { name: heading }).waitFor();
    const secret = await page.getByLabel('Secret of the key “browser key”').inputValue();
    assert.match(secret, /^uts_live_[A-Za-z0-9_-]{32}$/);
    // The copy button is hidden in the HTML and shown by the module: it ran under the CSP.
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'the button copied the secret');
    assert.equal(new URL(page.url()).pathname.startsWith('/dashboard/keys'), true);
    return secret;
  }

  /** API keys, signed in: create by the labelled field, use the secret over REST, rotate (old 401), revoke after the confirmation (401). */
  async function keysFlow(): Promise<void> {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
    await check('7-api-keys');

    await page.getByLabel('Name', { exact: true }).fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = await secretShown('Your new API key');
    await check('8-key-secret');
    assert.equal(await restStatus(created), 200, 'the new key works over REST');

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
    assert.ok(!(await page.content()).includes(created), 'the list does not show the secret');
    assert.ok(((await page.textContent('table')) ?? '').includes(`${created.slice(0, 13)}…`), 'the list shows the prefix');
    await page.getByRole('button', { name: 'Rotate browser key' }).click();
    const rotated = await secretShown('The key’s new secret');
    await check('9-key-rotated');
    assert.notEqual(rotated, created);
    assert.equal(await restStatus(created), 401, 'the old secret stopped working');
    assert.equal(await restStatus(rotated), 200);

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await page.getByRole('link', { name: 'Revoke browser key' }).click();
    await page.getByRole('heading', { name: 'Revoke the key “browser key”' }).waitFor();
    await check('10-revoke-confirm');
    await page.getByLabel('I understand this key stops working').check();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    await page.getByText('The key “browser key” was revoked').waitFor();
    await check('11-key-revoked');
    assert.equal(await restStatus(rotated), 401, 'the revoked key answers 401');

    const leaked = urls.filter((url) => url.includes(created) || url.includes(rotated));
    assert.deepEqual(leaked, [], 'no request URL held a secret');
    assert.ok(urls.some((url) => /\/dashboard\/assets\/copy-secret\.[0-9a-f]{12}\.js$/.test(url)), 'the copy module was loaded by its hashed name');
  }

  /** Webhooks, signed in: add one to the loopback receiver (its secret once), send a test event it verifies, delete it after the confirmation. */
  async function webhooksFlow(): Promise<void> {
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`${base}/dashboard/webhooks`);
    await check('12-webhooks');

    const url = `http://hooks.test:${hook.port}/browser`;
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Description (optional)').fill('browser hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Your webhook’s signing secret' }).waitFor();
    const secret = await page.getByLabel(/^Signing secret of/).inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await check('13-webhook-secret');

    await page.getByRole('link', { name: 'Back to webhooks' }).click();
    await page.waitForURL(`${base}/dashboard/webhooks`);
    assert.ok(!(await page.content()).includes(secret), 'the list does not show the secret');
    const before = received.length;
    await page.getByRole('button', { name: 'Send test event to browser hook' }).click();
    await page.getByRole('heading', { name: 'Test event delivered' }).waitFor();
    assert.equal(await page.locator('dl.facts dd').first().textContent(), '204');
    await check('14-webhook-test-event');
    assert.equal(received.length, before + 1, 'the receiver got the test event');
    const delivery = received.at(-1)!;
    assert.equal(verifyWebhookSignature({ secret, headers: delivery.headers as never, body: delivery.body }), true, 'signed with the secret the page showed');

    await page.getByRole('link', { name: 'Back to webhooks' }).click();
    assert.match((await page.textContent('table')) ?? '', /delivered HTTP 204/);
    await check('15-webhooks-delivered');
    await page.getByRole('link', { name: 'Delete browser hook' }).click();
    await page.getByRole('heading', { name: 'Delete the webhook' }).waitFor();
    await check('16-webhook-delete-confirm');
    await page.getByLabel('I understand this webhook receives nothing more').check();
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.waitForURL(/\/dashboard\/webhooks\?deleted=/);
    await page.getByText('The webhook was deleted').waitFor();
    await check('17-webhook-deleted');
    assert.deepEqual(urls.filter((u) => u.includes(secret) || u.includes(encodeURIComponent(secret))), [], 'no request URL held the secret');
  }

  it('opens the product page, signs up, verifies, signs in by the labelled fields, shows the overview, creates, rotates and revokes a key, adds, tests and deletes a webhook, signs out', async () => {
    const front = await page.goto(`${base}/`);
    assert.equal(front?.status(), 200);
    assert.match((await front?.headerValue('content-type')) ?? '', /^text\/html/);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.ok((await page.textContent('body'))?.includes('http://localhost:8080/mcp'));
    await check('1-front-page');

    await page.getByRole('link', { name: 'create an account' }).click();
    await page.waitForURL(`${base}/dashboard/sign-up`);
    await check('2-sign-up');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await check('3-check-your-mail');
    // The link from the mail, opened in the browser: the dashboard's landing page.
    const verified = await page.goto(`${base}${verificationPath(t.dataDir, email)}`);
    assert.equal(verified?.status(), 200);
    await page.getByRole('heading', { name: 'Your e-mail is verified' }).waitFor();
    // A real metered call with a key of the new account, so the overview has credits to show.
    const account = await t.services.accounts.findAccountByEmail(email);
    assert.ok(account?.emailVerified);
    const { secret } = await t.services.accounts.createKey({ accountId: account.id });
    const call = await t.call('/api/v1/unit-conversions/mass-converter', { value: 1, from: 'kg', to: 'lb' }, secret);
    assert.equal(call.statusCode, 200, call.body);

    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in`);
    await check('4-sign-in');

    await dashboard.submitSignIn(email, PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    const overview = (await page.textContent('main')) ?? '';
    assert.ok(overview.includes(email), overview);
    assert.match(overview, /Free/);
    const figures = await page.locator('dl.figures dd').allTextContents();
    const used = await t.services.ledger.used(account.id);
    assert.ok(used > 0, 'the call was charged');
    assert.deepEqual(figures, [String(used), String(500 - used), '500']);
    // The stylesheet applied (a CSP refusal of it would leave the default font).
    assert.match(String(await page.evaluate('getComputedStyle(document.body).fontFamily')), /system-ui/);
    await check('5-overview');

    // Usage: the call made above, per tool and per key, with the same credits as the overview.
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/usage`);
    assert.deepEqual(await page.locator('dl.figures dd').allTextContents(), [String(used), String(500 - used), '500']);
    const toolRow = page.getByRole('row', { name: /unit_conversions_mass_converter/ });
    assert.deepEqual((await toolRow.locator('td').allTextContents()).slice(0, 1), ['1'], 'one call of the tool');
    assert.equal(await page.getByLabel('Share of the monthly quota used').getAttribute('value'), String(used));
    await check('6-usage');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(`${base}/dashboard`);

    await keysFlow();
    await webhooksFlow();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in`);
    await check('18-signed-out');
    const again = await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in', 'the session ended: the overview sends to sign-in');
    assert.equal(again?.status(), 200);

    assert.deepEqual(dashboard.consoleErrors, [], 'no console errors (a CSP refusal logs one)');
  });

  it('shows the usage notices at 80% and at 100% of the quota, each passing axe', async () => {
    const noticeEmail = `browser-quota-${Date.now()}@example.com`;
    const { apiKey } = await t.account({ email: noticeEmail, password: PASSWORD, quota: 5 });
    const spend = async () => assert.equal((await t.call('/api/v1/unit-conversions/mass-converter', { value: 1, from: 'kg', to: 'lb' }, apiKey)).statusCode, 200);
    for (let i = 0; i < 4; i++) await spend();
    // Independent of the first test's end: no session carried over.
    await page.context().clearCookies();
    await dashboard.signIn(noticeEmail, PASSWORD);
    await page.goto(`${base}/dashboard/usage`);
    await page.getByRole('status').filter({ hasText: '80% of the monthly quota is used.' }).waitFor();
    await check('19-usage-80-percent');
    await spend();
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'The monthly quota is used up.' }).waitFor();
    await check('20-usage-100-percent');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in`);
  });

  it('has an axe check that can fail: an unlabelled field is a critical violation', async () => {
    await page.setContent('<!doctype html><html lang="en"><title>probe</title><main><input type="text"></main></html>');
    const violations = await dashboard.axeViolations();
    assert.ok(violations.some((v) => v.id === 'label' && v.impact === 'critical'), JSON.stringify(violations));
  });
});
