// Issue 19, item 4: an error page (404, 500) fails its SEO at the top of the report, in every
// page-reading report that judges SEO, as Lighthouse's http-status-code audit does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeFetched, HTTP_STATUS_RULE } from '../../src/analysis/page-analysis.ts';
import { metaTagsAnalyzer } from '../../src/analysis/analyzers/meta-tags.ts';
import { headingStructureAnalyzer } from '../../src/analysis/analyzers/heading-structure.ts';
import { securityHeadersAnalyzer } from '../../src/analysis/analyzers/security-headers.ts';
import { reportToMarkdown } from '../../src/analysis/report-markdown.ts';
import { assertValid, checkResult, factsFor } from './analyzers/report-helpers.ts';

const URL_ = 'https://shop.example/products/discontinued-boot';
// A well-made "not found" page: everything a meta-tags audit asks for is there, so before the
// status rule it scored 96 "good".
const ERROR_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found | Example Shop - boots and shoes</title>
<meta name="description" content="The page you asked for is not here. Browse our boots, shoes and sandals, or search the shop for what you were looking for.">
<link rel="canonical" href="${URL_}">
<meta property="og:title" content="Page not found"><meta property="og:description" content="Not here">
<meta property="og:image" content="https://shop.example/og.png"><meta property="og:url" content="${URL_}">
<meta name="twitter:card" content="summary"></head>
<body><h1>Page not found</h1><p>Try the <a href="/">home page</a>.</p></body></html>`;

function analyse(status: number, analyzers = [metaTagsAnalyzer]) {
  const facts = { ...factsFor(URL_, { status }), text: ERROR_PAGE };
  const report = analyzeFetched(analyzers, ERROR_PAGE, facts, URL_);
  assertValid(report);
  return report;
}

describe('the http-status-code rule', () => {
  for (const status of [404, 410, 500, 503]) {
    it(`fails a page answering ${status}: SEO not good, the finding first, naming the status`, () => {
      const report = analyse(status);
      assert.equal(checkResult(report, HTTP_STATUS_RULE.id), 'fail');
      assert.ok((report.scores.seo ?? 100) <= 50, `seo ${report.scores.seo}`);
      assert.notEqual(report.statuses.seo, 'good');
      assert.notEqual(report.statuses.overall, 'good');
      const first = report.findings[0];
      assert.equal(first?.rule, 'http-status-code');
      assert.equal(first?.severity, 'high');
      assert.match(first?.title ?? '', new RegExp(`\\(${status}\\)`));
      assert.match(first?.detail ?? '', new RegExp(`HTTP ${status}`));
      assert.match(first?.fix.change ?? '', status >= 500 ? /server fails/ : /301/);
      assert.equal(first?.fix.acceptance, 'The page answers HTTP 200.');
      assert.equal(report.summary.high, report.findings.filter((f) => f.severity === 'high').length);
      // The status is a finding now, not something "not analysed".
      assert.ok(!report.notes.some((n) => n.includes(`HTTP ${status}`)), report.notes.join('; '));
    });
  }

  it('the markdown report names the status as its first finding', () => {
    // A page with other defects too (no description, no lang), so there is something to come first.
    const html = '<!doctype html><html><head><title>Not found</title></head><body><p>Gone.</p></body></html>';
    const report = analyzeFetched([metaTagsAnalyzer], html, { ...factsFor(URL_, { status: 404 }), text: html }, URL_);
    const markdown = reportToMarkdown('Meta tags', URL_, report);
    assert.ok(report.findings.length > 1);
    assert.match(markdown, /### 1\. \[high\] The page answers an HTTP error status \(404\)/);
    assert.ok(markdown.indexOf('HTTP 404') < markdown.indexOf('### 2.'), 'named before any other finding');
  });

  it('passes a page answering 200 at Lighthouse weight 1, without a finding', () => {
    const report = analyse(200);
    const check = report.checks.find((c) => c.rule === HTTP_STATUS_RULE.id);
    assert.deepEqual(check, { rule: 'http-status-code', category: 'seo', weight: 1, result: 'pass', score: 1, audit: 'http-status-code' });
    assert.equal(report.findings.some((f) => f.rule === 'http-status-code'), false);
    assert.equal(report.statuses.seo, 'good');
  });

  it('fails the SEO of a report combined from several analyzers too', () => {
    const report = analyse(404, [metaTagsAnalyzer, headingStructureAnalyzer]);
    assert.equal(report.findings[0]?.rule, 'http-status-code');
    assert.ok((report.scores.seo ?? 100) <= 50);
  });

  it('leaves a report that does not judge SEO as it was, with the status in its notes', () => {
    const report = analyse(404, [securityHeadersAnalyzer]);
    assert.equal(report.checks.some((c) => c.rule === 'http-status-code'), false);
    assert.ok(report.notes.some((n) => n.includes('HTTP 404')));
  });

  it('does not judge HTML passed in without a response', () => {
    const report = analyzeFetched([metaTagsAnalyzer], ERROR_PAGE, null, URL_);
    assert.equal(report.checks.some((c) => c.rule === 'http-status-code'), false);
  });
});
