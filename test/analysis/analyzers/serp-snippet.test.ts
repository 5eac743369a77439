import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, fitToWidth, textWidthPx, type SnippetLine } from '../../../src/analysis/analyzers/serp-snippet.ts';
import { metaTagsAnalyzer } from '../../../src/analysis/analyzers/meta-tags.ts';
import { serpSnippetAnalyzer } from '../../../src/analysis/analyzers/serp-snippet.ts';
import { analyzeFetched } from '../../../src/analysis/page-analysis.ts';
import { assertValid, checkResult, findingIds, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/';
const page = (head: string) => `<!doctype html><html><head>${head}</head><body><svg><title>Icon</title></svg></body></html>`;
const CLEAN = page('<title>Acme Trail Shoes</title><meta name="description" content="Light trail running shoes with free returns.">');
const LONG_TITLE = 'Acme Trail Running Shoes for Men and Women, Waterproof, Lightweight, Free Returns';
const LONG_DESCRIPTION = 'Shop the full range of '.concat('light waterproof trail running shoes '.repeat(8)).trim();

interface Measured {
  text: string;
  desktop: SnippetLine;
  mobile: SnippetLine;
}

describe('serp-snippet analyzer', () => {
  it('measures text with the Arial width table', () => {
    // A 667 + c 500 + m 833 + e 556 = 2556/1000 em
    assert.equal(textWidthPx('Acme', 20), 51.1);
    assert.equal(textWidthPx('iiii', 20), 17.8);
    assert.equal(textWidthPx('WWWW', 20), 75.5);
    assert.equal(textWidthPx('日本', 20), 40);
    assert.equal(textWidthPx('e\u0301', 14), textWidthPx('e', 14));
    assert.equal(textWidthPx('É', 20), 13.3);
  });

  it('cuts at a word with " ..." within the limit', () => {
    const line = fitToWidth(LONG_TITLE, 600, 20);
    assert.equal(line.truncated, true);
    assert.equal(line.shown, 'Acme Trail Running Shoes for Men and Women, Waterproof, ...');
    assert.ok(textWidthPx(line.shown, 20) <= 600);
    assert.equal(fitToWidth('W'.repeat(80), 600, 20).shown, `${'W'.repeat(30)} ...`);
  });

  it('a short title and description fire nothing and report their widths', () => {
    const report = analyze(CLEAN, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    const title = report.details.title as Measured;
    assert.equal(title.text, 'Acme Trail Shoes');
    assert.deepEqual(title.desktop, { widthPx: textWidthPx('Acme Trail Shoes', 20), limitPx: 600, truncated: false, shown: 'Acme Trail Shoes' });
    assert.equal((report.details.description as Measured).mobile.limitPx, 680);
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
    assert.deepEqual(report.statuses, { seo: 'good', overall: 'good' });
  });

  it('long texts fire one truncation finding each, the desktop rule naming both devices; mobile only has its own rule', () => {
    const report = analyze(page(`<title>${LONG_TITLE}</title><meta name="description" content="${LONG_DESCRIPTION}">`), null, URL);
    assertValid(report);
    // cut on both devices: one defect each, so one finding each (the more severe desktop rule)
    assert.deepEqual(firedRules(report), ['serp-description-truncated', 'serp-title-truncated']);
    const severities = Object.fromEntries(report.findings.map((f) => [f.rule, f.severity]));
    assert.deepEqual(severities, { 'serp-description-truncated': 'low', 'serp-title-truncated': 'medium' });
    const desktop = onlyFinding(report, 'serp-title-truncated');
    assert.equal(desktop.evidence.selector, 'html>head>title');
    assert.match(desktop.detail, new RegExp(`^The title is ${textWidthPx(LONG_TITLE, 20)} px wide at 20 px Arial; desktop results show 600 px: ".*"; mobile results show 750 px: ".*"\\.$`));
    assert.equal(desktop.fix.change, 'Shorten the <title> to under 600 px (put the words that matter first).');
    // the description is cut at 680 px on mobile before 920 px on desktop: one fix for both
    const description = onlyFinding(report, 'serp-description-truncated');
    assert.match(description.detail, /desktop results show 920 px, mobile results show 680 px\.$/);
    assert.equal(description.fix.change, 'Shorten the meta description to under 680 px.');
    assert.equal(checkResult(report, 'serp-title-truncated-mobile'), 'pass');
    // Both Lighthouse audits it judges pass (a title, a description: seo-audits.ts); the truncations
    // are rules Lighthouse does not score, which lower it by a fifth at most: 3 of 4 weight fails
    // once the info rule (weight 0) is left out -> 100 x (1 - 0.2 x 3/4) = 85.
    assert.deepEqual(report.scores, { seo: 85, overall: 85 });
    assert.equal(report.statuses.seo, 'needs_improvement');
    // a description between the two limits is cut on mobile only: the mobile rule's finding
    const medium = 'Light trail running shoes with grippy soles, waterproof uppers and a roomy toe box, sold with free returns for thirty days and free shipping.';
    const mobileOnly = analyze(page(`<title>Acme Trail Shoes</title><meta name="description" content="${medium}">`), null, URL);
    assert.ok(textWidthPx(medium, 14) > 680 && textWidthPx(medium, 14) <= 920, `${textWidthPx(medium, 14)} px`);
    assert.deepEqual(firedRules(mobileOnly), ['serp-description-truncated-mobile']);
    assert.equal(onlyFinding(mobileOnly, 'serp-description-truncated-mobile').title, 'Description cut off in mobile results only');
  });

  it('a page without title or description fires the missing rules, and ignores an SVG title', () => {
    const report = analyze(page(''), null, URL);
    // the meta tags' own rules: one defect, one rule, whichever analyzer sees it
    assert.deepEqual(firedRules(report), ['meta-description-missing', 'meta-title-missing']);
    assert.equal(onlyFinding(report, 'meta-title-missing').severity, 'high');
    assert.equal(onlyFinding(report, 'meta-description-missing').severity, 'medium');
    // The two Lighthouse audits it judges (document-title, meta-description) both fail.
    assert.deepEqual(report.scores, { seo: 0, overall: 0 });
    assert.equal(report.statuses.seo, 'poor');
  });

  it('run with the meta tags analyzer, a missing title and description are one finding each, with one fix', () => {
    for (const order of [[metaTagsAnalyzer, serpSnippetAnalyzer], [serpSnippetAnalyzer, metaTagsAnalyzer]]) {
      const report = analyzeFetched(order, page('<title> </title>'), null, URL);
      assertValid(report);
      const alone = analyze(page('<title> </title>'), null, URL);
      for (const rule of ['meta-title-missing', 'meta-description-missing']) {
        const finding = onlyFinding(report, rule);
        assert.equal(finding.count, 1);
        // the same finding, words and fix included, whichever analyzer came first
        assert.deepEqual(finding, onlyFinding(alone, rule));
        assert.equal(report.checks.filter((c) => c.rule === rule).length, 1);
      }
      assert.equal(onlyFinding(report, 'meta-description-missing').fix.change, 'Add <meta name="description" content="…"> in <head> with a 50-160 character summary of the page.');
      assert.equal(onlyFinding(report, 'meta-title-missing').detail, 'The <title> is empty: search results show a title the search engine writes, and browser tabs the URL.');
    }
  });

  it('findingIds do not change when the texts change or the page is edited elsewhere', () => {
    const html = page(`<title>${LONG_TITLE}</title><meta name="description" content="${LONG_DESCRIPTION}">`);
    const first = findingIds(analyze(html, null, URL));
    assert.deepEqual(findingIds(analyze(html, null, URL)), first);
    const edited = page(`<meta charset="utf-8"><title>${LONG_TITLE} and More</title><meta name="description" content="${LONG_DESCRIPTION} today">`);
    assert.deepEqual(findingIds(analyze(edited, null, URL)), first);
  });
});
