// The meta-tags analyzer's robots rules on pages that show each class: noindex for every crawler,
// for Googlebot, for another crawler only, unavailable_after past and future, an unreadable date.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../../src/analysis/analyzers/meta-tags.ts';
import { assertValid, checkResult, factsFor, firedRules, instancesOf, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/products/shoes';
const TITLE = 'Running shoes for trail and road | Shop';
const DESCRIPTION = 'Lightweight running shoes for trail and road, with free returns within thirty days of delivery.';

/** A head with every other tag right, plus the robots markup given. */
function page(robots = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${TITLE}</title>
<meta name="description" content="${DESCRIPTION}"><link rel="canonical" href="${URL}">${robots}
<meta property="og:title" content="${TITLE}"><meta property="og:description" content="${DESCRIPTION}">
<meta property="og:image" content="https://shop.test/img/shoes.jpg"><meta property="og:url" content="${URL}">
<meta name="twitter:card" content="summary_large_image"></head><body><h1>Shoes</h1></body></html>`;
}
const served = (header: string) => factsFor(URL, { headers: { 'x-robots-tag': header } });

describe('meta-tags robots directives, per crawler', () => {
  it('a noindex page (meta robots) fails meta-robots-noindex, high, naming every search engine', () => {
    const report = analyze(page('<meta name="robots" content="noindex, follow">'), null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['meta-robots-noindex']);
    const finding = onlyFinding(report, 'meta-robots-noindex');
    assert.equal(finding.severity, 'high');
    assert.match(finding.detail, /every search engine leaves the page out/);
    assert.equal(report.details.robots && (report.details.robots as { indexable: boolean }).indexable, false);
    // Lighthouse's is-crawlable fails: being unindexable dominates the SEO score (below 70, as Lighthouse's is)
    assert.equal(report.checks.find((c) => c.rule === 'meta-robots-noindex')?.audit, 'is-crawlable');
    assert.ok((report.scores.seo ?? 100) < 70, `seo ${report.scores.seo}`);
  });

  it('X-Robots-Tag: noindex on the response fails it as an http-header fix', () => {
    const report = analyze(page(), served('noindex'), URL);
    const finding = onlyFinding(report, 'meta-robots-noindex');
    assert.equal(finding.fix.patchType, 'http-header');
    assert.deepEqual(finding.evidence, { header: 'x-robots-tag', value: 'noindex' });
    assert.ok((report.scores.seo ?? 100) < 70, `seo ${report.scores.seo}`);
  });

  it('<meta name="googlebot" content="noindex"> keeps the page out of Google: a high fail', () => {
    const report = analyze(page('<meta name="googlebot" content="noindex">'), null, URL);
    assert.deepEqual(firedRules(report), ['meta-robots-noindex']);
    assert.match(onlyFinding(report, 'meta-robots-noindex').detail, /Google leaves the page out/);
  });

  it('bingbot: noindex blocks Bing only: a low meta-robots-crawler-blocked, and meta-robots-noindex passes', () => {
    for (const report of [analyze(page(), served('bingbot: noindex'), URL), analyze(page('<meta name="bingbot" content="noindex">'), null, URL)]) {
      assert.deepEqual(firedRules(report), ['meta-robots-crawler-blocked']);
      assert.equal(checkResult(report, 'meta-robots-noindex'), 'pass');
      const finding = onlyFinding(report, 'meta-robots-crawler-blocked');
      assert.equal(finding.severity, 'low');
      assert.match(finding.detail, /bingbot leaves the page out of its index; other search engines, Google included, may still list it/);
      assert.doesNotMatch(finding.detail, /every search engine/);
      assert.equal(report.details.robots && (report.details.robots as { indexable: boolean }).indexable, true);
      assert.ok((report.scores.seo ?? 0) >= 90, `a page only Bing may not index stays good: ${report.scores.seo}`);
    }
  });

  it('two headers joined: bingbot: noindex then googlebot: none is one fail for Google and one for Bing', () => {
    const report = analyze(page(), served('bingbot: noindex, googlebot: none'), URL);
    assert.deepEqual(firedRules(report).sort(), ['meta-robots-crawler-blocked', 'meta-robots-noindex']);
    assert.deepEqual((report.details.robots as { blockedFor: string[] }).blockedFor, ['googlebot', 'bingbot']);
  });

  it('unavailable_after in the past (RFC 850, weekday and comma included) is noindex', () => {
    const report = analyze(page(), served('unavailable_after: Friday, 25-Jun-10 15:00:00 PST'), URL);
    assert.deepEqual(firedRules(report), ['meta-robots-noindex']);
    assert.ok((report.scores.seo ?? 100) < 70, `seo ${report.scores.seo}`);
    assert.match(onlyFinding(report, 'meta-robots-noindex').detail, /unavailable_after: Friday, 25-Jun-10 15:00:00 PST.*the date passed: 2010-06-25T23:00:00\.000Z/);
    const meta = analyze(page('<meta name="robots" content="unavailable_after: 2020-01-31">'), null, URL);
    assert.deepEqual(firedRules(meta), ['meta-robots-noindex']);
    assert.equal(instancesOf(meta, 'meta-robots-noindex').length, 1);
  });

  it('unavailable_after in the future is not a block yet: the date is in details', () => {
    const report = analyze(page('<meta name="robots" content="unavailable_after: 2099-12-31T00:00:00Z">'), served('unavailable_after: Thu, 31 Dec 2099 00:00:00 GMT'), URL);
    assert.deepEqual(report.findings, []);
    assert.deepEqual((report.details.robots as { unavailableAfter: string[] }).unavailableAfter, ['2099-12-31T00:00:00.000Z', '2099-12-31T00:00:00.000Z']);
  });

  it('an unavailable_after date Google cannot read is ignored, as Google ignores it, and listed in details', () => {
    const report = analyze(page(), served('unavailable_after: end of season'), URL);
    assert.deepEqual(report.findings, []);
    assert.deepEqual((report.details.robots as { ignored: string[] }).ignored, ['unavailable_after: end of season']);
  });

  it('a noindex in a meta that names no crawler (description) blocks nothing', () => {
    const report = analyze(page('<meta name="keywords" content="noindex">'), null, URL);
    assert.deepEqual(report.findings, []);
  });
});
