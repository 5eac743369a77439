// HTML passed in (local mode) is read under a placeholder address; no fix, evidence, note or
// detail may carry it, since a fix applied literally would paste a fake URL into the page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageAltAnalyzer } from '../../src/analysis/analyzers/image-alt.ts';
import { metaTagsAnalyzer } from '../../src/analysis/analyzers/meta-tags.ts';
import { mixedContentAnalyzer } from '../../src/analysis/analyzers/mixed-content.ts';
import { pageSpeedAnalyzer } from '../../src/analysis/analyzers/page-speed.ts';
import type { Finding, Report } from '../../src/analysis/findings.ts';
import { LOCAL_PAGE_URL, PAGE_URL_WORDS, withoutPlaceholderText } from '../../src/analysis/local-page.ts';
import { analyzeFetched } from '../../src/analysis/page-analysis.ts';
import { assertValid } from './analyzers/report-helpers.ts';

const ANALYZERS = [metaTagsAnalyzer, pageSpeedAnalyzer, mixedContentAnalyzer, imageAltAnalyzer];
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes | Acme</title>
<script src="/js/app.js"></script><link rel="stylesheet" href="css/site.css"></head>
<body><h1>Trail shoes</h1><a href="/"><img src="/img/logo.png"></a><img src="shoe.jpg"></body></html>`;

function only(report: Report, rule: string): Finding {
  const found = report.findings.filter((f) => f.rule === rule);
  assert.equal(found.length, 1, `one ${rule} finding, got ${found.length}`);
  return found[0] as Finding;
}

describe('local HTML under the placeholder address', () => {
  it('no part of the report names the placeholder; the canonical fix says to use the real URL', () => {
    const report = analyzeFetched(ANALYZERS, PAGE, null, LOCAL_PAGE_URL);
    assertValid(report);
    assert.ok(report.findings.length >= 4, report.findings.map((f) => f.rule).join(', '));
    assert.doesNotMatch(JSON.stringify(report), /local\.invalid/);
    const canonical = only(report, 'meta-canonical-missing');
    assert.equal(canonical.fix.change, 'Add <link rel="canonical"> in <head> whose href is the page\'s own public URL: the absolute https:// address it is served at.');
    assert.doesNotMatch(canonical.fix.change, /href="/);
    // resources on the page's own site are named by their path on it, as the page writes them
    const blocking = only(report, 'page-speed-render-blocking');
    assert.deepEqual(blocking.instances?.map((e) => e.url), ['/js/app.js', '/css/site.css']);
    const details = report.details['page-speed'] as { renderBlocking: { url: string }[] };
    assert.deepEqual(details.renderBlocking.map((r) => r.url), ['/js/app.js', '/css/site.css']);
  });

  it('a canonical to the real site is not judged against the placeholder host', () => {
    const html = PAGE.replace('<title>', '<link rel="canonical" href="https://shop.example.com/trail"><title>');
    const local = analyzeFetched([metaTagsAnalyzer], html, null, LOCAL_PAGE_URL);
    assert.equal(local.findings.some((f) => f.rule.startsWith('meta-canonical')), false, local.findings.map((f) => f.rule).join(', '));
    assert.equal(local.checks.find((c) => c.rule === 'meta-canonical-other-host')?.result, 'pass');
    // the same page at a real address still has its canonical judged against that host
    const served = analyzeFetched([metaTagsAnalyzer], html, null, 'https://www.acme.test/trail');
    assert.match(only(served, 'meta-canonical-other-host').fix.change, /Point the canonical at this page on www\.acme\.test/);
  });

  it('a real address keeps its URLs; only the placeholder is rewritten', () => {
    const served = analyzeFetched([metaTagsAnalyzer], PAGE, null, 'https://www.acme.test/trail');
    assert.equal(only(served, 'meta-canonical-missing').fix.change, 'Add <link rel="canonical" href="https://www.acme.test/trail"> in <head>.');
    assert.equal(withoutPlaceholderText('Add <link rel="canonical" href="https://local.invalid/">.'), `Add <link rel="canonical" href="${PAGE_URL_WORDS}">.`);
    assert.equal(withoutPlaceholderText('The script https://local.invalid/js/a.js?v=2 blocks; so does https://LOCAL.invalid/b.css.'), 'The script /js/a.js?v=2 blocks; so does /b.css.');
    assert.equal(withoutPlaceholderText('The canonical URL is on example.com, not local.invalid.'), "The canonical URL is on example.com, not your site's own host.");
    for (const other of ['https://shop.example.com/local.invalid.html', 'https://notlocal.invalid/', 'https://local.invalid.example.com/x', 'cdn.local.invalid.example']) assert.equal(withoutPlaceholderText(other), other);
  });
});
