// The Feature memory and MCP setup pages in a real browser (playwright-core driving the Chromium
// the service's engine uses; support/chromium-dashboard.ts) against the app on a loopback port:
// sign-in by the labelled fields, the feature memory page, the nav's "1 improved" badge after an
// improving pass (recorded through FeatureStore, the MCP tools' store) and gone after the visit, a
// feature's own page, MCP setup with a picked key and a key created there, its configuration
// copied by the button. axe-core on every page (no critical or serious violations); screenshots go
// to a temp folder, printed for a person to look at.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { FeatureSeenStore } from '../../src/dashboard/feature-seen.ts';
import type { TestApp } from '../support/test-app.ts';
import { openDashboardInChromium, PASSWORD, type DashboardInChromium } from './support/chromium-dashboard.ts';

const SCOPE = 'https://shop.example.com';

describe('feature memory and MCP setup in Chromium', () => {
  let dashboard: DashboardInChromium;
  let t: TestApp;
  let base: string;
  let page: Page;
  let check: DashboardInChromium['check'];
  const email = `feature-browser-${Date.now()}@example.com`;
  let accountId: string;

  before(async () => {
    dashboard = await openDashboardInChromium({ screens: 'dashboard-feature-mcp-screens' });
    ({ t, base, page, check } = dashboard);
    accountId = (await t.account({ email, password: PASSWORD })).accountId;
  });

  after(() => dashboard?.close());

  it('shows the feature memory, the improved badge until the visit, and a feature’s history', async () => {
    const features = t.services.featureMemory.features;
    const captured = await features.capture({
      accountId,
      title: 'Shop SEO',
      requirements: ['Every page has a title'],
      projectScope: SCOPE,
      baseline: { playbookId: 'seo-audit', loop: { gate: 'fail' }, jobReport: { scores: { seo: 50 }, statuses: { seo: 'poor' }, findings: [{ findingId: 'seo.title-missing' }] } },
      now: new Date(Date.now() - 86_400_000),
    });
    assert.equal(captured.kind, 'captured');

    await dashboard.signIn(email, PASSWORD);
    await page.getByRole('link', { name: 'Feature memory', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/features`);
    await page.getByRole('heading', { name: 'Matrix over time' }).waitFor();
    await check('1-feature-memory-failing');

    // verify_task's record of a pass, after the visit: the badge counts it on every page.
    const seenAt = await new FeatureSeenStore(t.services.db).seenAt(accountId);
    assert.ok(seenAt);
    const recorded = await features.recordPass({
      accountId,
      projectScope: SCOPE,
      playbookId: 'seo-audit',
      goal: 'seo-audit',
      acceptance: ['No high-severity finding remains'],
      report: { scores: { seo: 95 }, statuses: { seo: 'good' }, findings: [] },
      now: new Date(Math.max(Date.now(), Date.parse(seenAt) + 1)),
    });
    assert.ok(recorded.recorded);
    await page.goto(`${base}/dashboard`);
    const badged = page.getByRole('link', { name: /^Feature memory\s*,\s*1 improved$/ });
    await badged.waitFor();
    await check('2-overview-with-badge');

    await badged.click();
    await page.waitForURL(`${base}/dashboard/features`);
    await page.getByText('1 feature improved').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Feature memory', exact: true }).count(), 1, 'no badge on the page that clears it');
    const matrixRow = page.getByRole('row', { name: /^seo-audit/ }).last();
    assert.match(await matrixRow.innerText(), /pass\s+fail/);
    await check('3-feature-memory-improved');

    await page.getByRole('link', { name: 'seo-audit' }).first().click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByText('better: gate fail -> pass').waitFor();
    await check('4-feature-history');

    await page.goto(`${base}/dashboard`);
    await page.getByRole('link', { name: 'Feature memory', exact: true }).waitFor();
    assert.equal(await page.getByRole('link', { name: /improved/ }).count(), 0, 'the visit cleared the badge');
  });

  it('gives MCP configuration for a picked key and for a key created there, copied by the button', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.goto(`${base}/dashboard`);
    await page.getByRole('link', { name: 'MCP setup' }).click();
    await page.waitForURL(`${base}/dashboard/mcp`);
    const key = (await t.services.accounts.listKeys(accountId))[0]!;
    await page.getByLabel('Key for the configuration').selectOption(key.id);
    await page.getByRole('button', { name: 'Show the configuration for this key' }).click();
    await page.waitForURL(`${base}/dashboard/mcp?key=${key.id}`);
    assert.match(await page.getByLabel(/^For \.cursor\/mcp\.json/).inputValue(), new RegExp(`"X-Api-Key": "<your key ${key.displayPrefix}…>"`));
    await check('5-mcp-setup');

    await page.getByLabel('Name of a new key for MCP').fill('browser MCP');
    await page.getByRole('button', { name: 'Create a key for MCP' }).click();
    await page.getByText('is created, and its secret is in the configurations below').waitFor();
    const field = page.getByLabel(/^For \.cursor\/mcp\.json/);
    const cursor = JSON.parse(await field.inputValue()) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    const server = cursor.mcpServers['utility-tools']!;
    assert.equal(server.url, 'http://localhost:8080/mcp');
    assert.match(server.headers['X-Api-Key']!, /^uts_live_[A-Za-z0-9_-]{32}$/);
    await page.getByRole('button', { name: 'Copy the Cursor configuration' }).click();
    await page.locator('#cursor-status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), await field.inputValue());
    assert.equal(new URL(page.url()).pathname, '/dashboard/mcp/keys', 'the secret came on the POST’s own answer');
    await check('6-mcp-key-created');
    assert.deepEqual(dashboard.consoleErrors, []);
  });
});
