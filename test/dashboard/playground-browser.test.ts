// The Playground in a real browser (playwright-core driving the Chromium the service's own engine
// uses; support/chromium-dashboard.ts) against the app on a loopback port: sign in, open the
// Playground from the nav, search, run a JSON tool by its labelled fields (the envelope, the
// credits, the snippets), see the API's refusal next to the form, run a file conversion with a
// file chosen in the file input, and download its result by the page's link. axe-core on the
// picker, the forms and the results (no critical or serious violations); screenshots go to a temp
// folder, printed for a person.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { RouteAnswer } from '../../packages/sdk/src/index.ts';
import { openDashboardInChromium, PASSWORD, type DashboardInChromium } from './support/chromium-dashboard.ts';

describe('the Playground in Chromium', () => {
  let dashboard: DashboardInChromium;
  let base: string;
  let page: Page;
  let check: DashboardInChromium['check'];
  let apiKey: string;
  const email = `playground-browser-${Date.now()}@example.com`;

  before(async () => {
    dashboard = await openDashboardInChromium({
      screens: 'playground-screens',
      // The refusal's page comes with the API's status (400), which Chromium logs as a failed load; any other error counts (a CSP refusal first).
      expectedError: (text, url) => /status of 400 .* at .*\/dashboard\/playground\/calculators_emi_calculator$/.test(`${text} at ${url}`),
    });
    ({ base, page, check } = dashboard);
    ({ apiKey } = await dashboard.t.account({ email, password: PASSWORD }));
  });

  after(() => dashboard?.close());

  const text = async (selector: string): Promise<string> => (await page.locator(selector).textContent()) ?? '';

  it('signs in, searches, runs a JSON tool and a file conversion, and shows the envelope and snippets', async () => {
    await dashboard.signIn(email, PASSWORD);

    await page.getByRole('link', { name: 'Playground' }).click();
    await page.waitForURL(`${base}/dashboard/playground`);
    await check('1-playground-picker');

    await page.getByLabel('Search tools by name or description').fill('emi loan');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/playground\?q=emi\+loan/);
    await page.getByRole('status').filter({ hasText: 'match “emi loan”' }).waitFor();
    await check('2-playground-search');
    await page.getByRole('link', { name: 'EMI calculator' }).click();
    await page.getByRole('heading', { name: 'EMI calculator' }).waitFor();
    await check('3-playground-json-form');

    // A refusal first: the API's error beside the form, the fields kept.
    // principal must be above 0 (exclusive, so no min attribute): the browser sends 0, the API refuses it.
    await page.getByLabel('principal').fill('0');
    await page.getByLabel('rate').fill('10');
    await page.getByLabel('tenure').fill('12');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'validation_error' }).waitFor();
    assert.equal(await page.getByLabel('tenure').inputValue(), '12');
    assert.equal(await page.getByLabel('principal').getAttribute('aria-invalid'), 'true');
    await check('4-playground-refusal');

    await page.getByLabel('principal').fill('100000');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    const envelope = JSON.parse(await text('#envelope'));
    assert.equal(envelope.status, true);
    assert.equal(envelope.result.emi, 8791.59);
    assert.match(await text('#curl-snippet'), /-H "X-Api-Key: \$UTS_API_KEY"/);
    assert.match(await text('#sdk-snippet'), /client\.calculators_emi_calculator\(/);
    await page.getByText('Credits charged').waitFor();
    await check('5-playground-json-result');

    // A file conversion: the file chosen in the labelled file input, an option by its select.
    await page.goto(`${base}/dashboard/playground?q=json+csv`);
    await page.getByRole('link', { name: 'JSON to CSV' }).click();
    await page.getByRole('heading', { name: 'JSON to CSV' }).waitFor();
    await check('6-playground-file-form');
    await page.getByLabel('delimiter').selectOption('semicolon');
    await page.getByLabel('File').setInputFiles({ name: 'orders.json', mimeType: 'application/json', buffer: Buffer.from('[{"id":1,"item":"Tea"},{"id":2,"item":"Milk"}]') });
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    const fileEnvelope = JSON.parse(await text('#envelope'));
    assert.equal(fileEnvelope.status, true);
    const href = await page.getByRole('link', { name: 'Download the result' }).getAttribute('href');
    assert.equal(href, fileEnvelope.result.downloadUrl);
    // The link is PUBLIC_BASE_URL's (localhost:8080 in tests): fetched on the test server's port.
    const url = new URL(href!);
    const download = await fetch(`${base}${url.pathname}${url.search}`);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'id;item\r\n1;Tea\r\n2;Milk\r\n');
    assert.match(await text('#curl-snippet'), /-F 'file=@orders\.json'/);
    await check('7-playground-file-result');

    // Both runs were the key's calls, as over REST.
    // Read by the service's own schema (the SDK's generated type): a renamed field fails the type check.
    const usage = (await (await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': apiKey } })).json()) as RouteAnswer<'usage_get'>;
    assert.deepEqual(
      usage.result.byTool.map((row) => [row.operationId, row.calls]).sort(),
      [['calculators_emi_calculator', 2], ['web_json_to_csv', 1]],
    );
    assert.deepEqual(dashboard.consoleErrors, []);
  });
});
