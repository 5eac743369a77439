// The dashboard in a real browser (playwright-core driving the Chromium the service's own engine
// uses) against the app on a loopback port: the front page, sign-up, the verification link from
// the outbox, sign-in by the labelled fields, the overview with the e-mail and credits, API keys
// (create, the secret used over REST, rotate, revoke), sign-out. axe-core checks every page (no critical or
// serious violations); screenshots go to a temp folder, printed for a person to look at.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findProgram } from '../../src/engines/process.ts';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { verificationPath } from './support/outbox.ts';

const PASSWORD = 'correct horse battery staple';
// Evaluated in the page rather than added as a <script> tag: the pages' CSP (script-src 'self')
// rightly refuses an inline script, and turning the CSP off would hide a violation of our own.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe('the dashboard in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  const shots = mkdtempSync(join(tmpdir(), 'dashboard-screens-'));
  const email = `browser-${Date.now()}@example.com`;
  const cspViolations: string[] = [];

  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    // The program the chromium engine is configured with (CHROMIUM_PROGRAM), found as it finds it.
    const executablePath = await findProgram(t.config.engines.chromium.CHROMIUM_PROGRAM);
    assert.ok(executablePath, `Chromium at ${t.config.engines.chromium.CHROMIUM_PROGRAM}`);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 60_000 });
    page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    page.on('console', (message) => {
      // The verification link answers JSON, which links no icon: the browser then asks for
      // /favicon.ico, which the service does not serve. Every other error counts.
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) cspViolations.push(`${message.text()} at ${message.location().url}`);
    });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function axeViolations(): Promise<AxeViolation[]> {
    await page.evaluate(AXE_SOURCE);
    // Page-side code as text: the project's TypeScript has no DOM types.
    return (await page.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
    )) as AxeViolation[];
  }

  async function check(name: string): Promise<void> {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`screenshot: ${path}`);
    const violations = await axeViolations();
    const serious = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    assert.deepEqual(serious, [], `${name}: ${JSON.stringify(serious, null, 1)}`);
    if (violations.length > 0) console.log(`${name}: minor axe findings: ${violations.map((v) => `${v.id} (${v.impact})`).join(', ')}`);
  }

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
    await check('6-api-keys');

    await page.getByLabel('Name', { exact: true }).fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = await secretShown('Your new API key');
    await check('7-key-secret');
    assert.equal(await restStatus(created), 200, 'the new key works over REST');

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
    assert.ok(!(await page.content()).includes(created), 'the list does not show the secret');
    assert.ok(((await page.textContent('table')) ?? '').includes(`${created.slice(0, 13)}…`), 'the list shows the prefix');
    await page.getByRole('button', { name: 'Rotate browser key' }).click();
    const rotated = await secretShown('The key’s new secret');
    await check('8-key-rotated');
    assert.notEqual(rotated, created);
    assert.equal(await restStatus(created), 401, 'the old secret stopped working');
    assert.equal(await restStatus(rotated), 200);

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await page.getByRole('link', { name: 'Revoke browser key' }).click();
    await page.getByRole('heading', { name: 'Revoke the key “browser key”' }).waitFor();
    await check('9-revoke-confirm');
    await page.getByLabel('I understand this key stops working').check();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    await page.getByText('The key “browser key” was revoked').waitFor();
    await check('10-key-revoked');
    assert.equal(await restStatus(rotated), 401, 'the revoked key answers 401');

    const leaked = urls.filter((url) => url.includes(created) || url.includes(rotated));
    assert.deepEqual(leaked, [], 'no request URL held a secret');
    assert.ok(urls.some((url) => /\/dashboard\/assets\/copy-secret\.[0-9a-f]{12}\.js$/.test(url)), 'the copy module was loaded by its hashed name');
  }

  it('opens the product page, signs up, verifies, signs in by the labelled fields, shows the overview, creates, rotates and revokes a key, signs out', async () => {
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
    // The link from the mail, opened in the browser (it answers the API's JSON for now).
    const verified = await page.goto(`${base}${verificationPath(t.dataDir, email)}`);
    assert.equal(verified?.status(), 200);
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

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
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

    await keysFlow();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in`);
    await check('11-signed-out');
    const again = await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in', 'the session ended: the overview sends to sign-in');
    assert.equal(again?.status(), 200);

    assert.deepEqual(cspViolations, [], 'no console errors (a CSP refusal logs one)');
  });

  it('has an axe check that can fail: an unlabelled field is a critical violation', async () => {
    await page.setContent('<!doctype html><html lang="en"><title>probe</title><main><input type="text"></main></html>');
    const violations = await axeViolations();
    assert.ok(violations.some((v) => v.id === 'label' && v.impact === 'critical'), JSON.stringify(violations));
  });
});
