// Findings per rule, not per instance, through the whole app: the shop page of issue 17 (120
// images without alt, 30 render-blocking scripts, no description) served on loopback and read by
// the real URL tools. Each rule is one finding with its count and its first instances, the report
// is complete, and the answer an agent reads stays under 24 KB of JSON text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_LISTED_INSTANCES, type Finding, type Report } from '../../src/analysis/findings.ts';
import { ruleFindingId } from '../../src/analysis/findings.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertValid } from './analyzers/report-helpers.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

/** The answer budget an agent's context can afford for one tool result (issue 17 §2). */
const ANSWER_BUDGET = 24 * 1024;

const SHOP = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail shoes | Acme shop</title>
${Array.from({ length: 30 }, (_, i) => `<script src="/js/widget-${i + 1}.js"></script>`).join('\n')}
</head><body><h1>Trail shoes</h1>
${Array.from({ length: 120 }, (_, i) => `<a href="/p/${i + 1}"><img src="/img/shoe-${i + 1}.jpg" width="300" height="200" loading="lazy"> Shoe ${i + 1}</a>`).join('\n')}
</body></html>`;

function only(report: Report, rule: string): Finding {
  const found = report.findings.filter((f) => f.rule === rule);
  assert.equal(found.length, 1, `one ${rule} finding, got ${found.length}`);
  return found[0] as Finding;
}

describe('findings per rule on a 120-image shop page, through the REST tools', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    ({ apiKey } = await t.account({ quota: 1000 }));
    web.serve({ 'https://shop.example.com/trail': { body: SHOP } });
  });
  after(async () => {
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  const get = (slug: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/seo-apis/${slug}`, query: { url: web.rewrite('https://shop.example.com/trail') }, headers: { 'x-api-key': apiKey } });

  it('image-alt-audit: one image-alt-missing finding, count 120, 20 instances, one fix, complete, under 24 KB', async () => {
    const response = await get('image-alt-audit');
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    assert.ok(response.body.length < ANSWER_BUDGET, `the answer is ${response.body.length} characters`);
    const report = response.json().result.report as Report;
    assertValid(report);
    assert.equal(report.incomplete, false);
    assert.deepEqual(report.notes, []);
    assert.deepEqual(report.findings.map((f) => f.rule), ['image-alt-missing']);
    const missing = only(report, 'image-alt-missing');
    assert.equal(missing.findingId, ruleFindingId('image-alt-missing', 'accessibility'));
    assert.equal(missing.count, 120);
    assert.equal(missing.title, '120 images have no alt attribute');
    assert.equal(missing.instances?.length, MAX_LISTED_INSTANCES);
    assert.deepEqual(
      missing.instances?.map((e) => e.selector),
      Array.from({ length: MAX_LISTED_INSTANCES }, (_, i) => `img[src="/img/shoe-${i + 1}.jpg"]`),
    );
    assert.equal(missing.instances?.[0]?.snippet, '<img src="/img/shoe-1.jpg" width="300" height="200" loading="lazy">');
    assert.equal(missing.fix.acceptance, 'No image without an alt attribute (or an aria-label) remains on the page.');
    assert.match(missing.fix.change, /^Add an alt attribute to each of the 120 images without one/);
    assert.equal(report.summary.findings, 1);
  });

  it('page-speed-analyzer: 30 blocking scripts are one finding of count 30; the report is complete and under 24 KB', async () => {
    const response = await get('page-speed-analyzer');
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    assert.ok(response.body.length < ANSWER_BUDGET, `the answer is ${response.body.length} characters`);
    const report = response.json().result.report as Report;
    assertValid(report);
    const blocking = only(report, 'page-speed-render-blocking');
    assert.equal(blocking.count, 30);
    assert.equal(blocking.instances?.length, MAX_LISTED_INSTANCES);
    assert.match(blocking.instances?.[0]?.url ?? '', /\/js\/widget-1\.js$/);
    assert.equal(blocking.fix.acceptance, 'No script or stylesheet blocks the first render (each has async, defer, type=module, a non-screen media, or is gone).');
    // every rule was judged on a fetched page: the proxy label is information, not a gap
    assert.equal(report.incomplete, false, report.notes.join('; '));
    assert.equal(new Set(report.findings.map((f) => f.rule)).size, report.findings.length);
  });

  it('meta-tags-analyzer and serp-snippet-preview report a missing description under one rule, one finding each', async () => {
    const meta = (await get('meta-tags-analyzer')).json().result.report as Report;
    const serp = (await get('serp-snippet-preview')).json().result.report as Report;
    const fromMeta = only(meta, 'meta-description-missing');
    const fromSerp = only(serp, 'meta-description-missing');
    // the same finding whichever tool found it: a job running both keeps one (one findingId)
    assert.deepEqual(fromSerp, fromMeta);
    assert.equal(serp.findings.some((f) => f.rule.startsWith('serp-description')), false);
  });
});
