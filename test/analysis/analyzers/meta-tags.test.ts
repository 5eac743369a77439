import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, rules, type HreflangEntry } from '../../../src/analysis/analyzers/meta-tags.ts';
import { assertValid, checkResult, factsFor, findingIds, findingsOf, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/products/shoes';
const TITLE = 'Running shoes for trail and road | Shop';
const DESCRIPTION = 'Lightweight running shoes for trail and road, with free returns within thirty days of delivery.';

/** A page with every tag right; each override replaces one tag's markup ('' drops it). */
function page(overrides: Partial<Record<keyof typeof PARTS, string>> = {}, htmlOpen = '<html lang="en">'): string {
  const parts = { ...PARTS, ...overrides };
  return `<!doctype html>${htmlOpen}<head>${Object.values(parts).join('\n')}</head><body><h1>Shoes</h1></body></html>`;
}

const PARTS = {
  charset: '<meta charset="utf-8">',
  viewport: '<meta name="viewport" content="width=device-width, initial-scale=1">',
  title: `<title>${TITLE}</title>`,
  description: `<meta name="description" content="${DESCRIPTION}">`,
  canonical: `<link rel="canonical" href="${URL}">`,
  robots: '<meta name="robots" content="index, follow">',
  hreflang: [
    '<link rel="alternate" hreflang="en" href="https://shop.test/products/shoes">',
    '<link rel="alternate" hreflang="de-DE" href="https://shop.test/de/products/shoes">',
    '<link rel="alternate" hreflang="x-default" href="https://shop.test/products/shoes">',
  ].join('\n'),
  og: [
    `<meta property="og:title" content="${TITLE}">`,
    `<meta property="og:description" content="${DESCRIPTION}">`,
    '<meta property="og:image" content="https://shop.test/img/shoes.jpg">',
    `<meta property="og:url" content="${URL}">`,
  ].join('\n'),
  twitter: '<meta name="twitter:card" content="summary_large_image">',
  svg: '<svg><title>x</title></svg>',
};

describe('meta-tags analyzer', () => {
  it('a clean head fires no rule, scores 100 in every category and reports the extracted values', () => {
    const report = analyze(page(), factsFor(URL), URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { seo: 100, accessibility: 100, 'best-practices': 100, overall: 100 });
    for (const rule of rules) assert.equal(checkResult(report, rule.id), 'pass', rule.id);
    const d = report.details;
    assert.equal(d.title, TITLE);
    assert.equal(d.description, DESCRIPTION);
    assert.equal(d.canonical, URL);
    assert.deepEqual(d.robots, { meta: ['index, follow'], header: null, indexable: true, blockedFor: [], unavailableAfter: [], ignored: [] });
    assert.equal(d.viewport, 'width=device-width, initial-scale=1');
    assert.equal(d.charset, 'utf-8');
    assert.equal(d.lang, 'en');
    assert.deepEqual((d.hreflang as HreflangEntry[]).map((h) => h.hreflang), ['en', 'de-DE', 'x-default']);
    assert.equal((d.og as Record<string, string>)['og:image'], 'https://shop.test/img/shoes.jpg');
    assert.equal((d.twitter as Record<string, string>)['twitter:card'], 'summary_large_image');
  });

  it('an empty head fires every missing rule, each with its severity and category', () => {
    const html = '<!doctype html><html><head></head><body><p>Hi</p></body></html>';
    const report = analyze(html, null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), [
      'meta-canonical-missing',
      'meta-charset-missing',
      'meta-description-missing',
      'meta-lang-missing',
      'meta-og-missing',
      'meta-title-missing',
      'meta-twitter-card-missing',
      'meta-viewport-missing',
    ]);
    const title = onlyFinding(report, 'meta-title-missing');
    assert.equal(title.severity, 'high');
    assert.equal(title.category, 'seo');
    assert.equal(onlyFinding(report, 'meta-lang-missing').category, 'accessibility');
    assert.equal(onlyFinding(report, 'meta-viewport-missing').category, 'best-practices');
    assert.equal(onlyFinding(report, 'meta-twitter-card-missing').severity, 'info');
    // the four Open Graph properties missing are one finding of the rule, counted
    const og = onlyFinding(report, 'meta-og-missing');
    assert.equal(og.severity, 'low');
    assert.equal(og.count, 4);
    assert.equal(og.title, 'An Open Graph property is missing (4 instances)');
    assert.equal(
      og.fix.change,
      'Fix all 4 instances, not only the first. Each: ' +
        ['og:title', 'og:description', 'og:image', 'og:url'].map((p) => `Add <meta property="${p}" content="…"> in <head>.`).join(' '),
    );
    assert.equal(og.fix.acceptance, `Each holds: ${['og:title', 'og:description', 'og:image', 'og:url'].map((p) => `The page has a non-empty ${p}.`).join(' ')}`);
    for (const finding of report.findings) assert.equal(finding.fix.roleHint, 'edit');
    assert.match(onlyFinding(report, 'meta-canonical-missing').fix.change, /href="https:\/\/shop\.test\/products\/shoes"/);
    // hreflang rules have nothing to judge on a page without alternates: they pass
    assert.equal(checkResult(report, 'meta-hreflang-no-x-default'), 'pass');
    assert.equal(report.details.title, null);
  });

  it('title and description length rules fire at their bounds', () => {
    const short = analyze(page({ title: '<title>Shoes</title>', description: '<meta name="description" content="Shoes for running.">' }), null, URL);
    assert.deepEqual(firedRules(short), ['meta-description-too-short', 'meta-title-too-short']);
    assert.equal(onlyFinding(short, 'meta-title-too-short').detail, 'The title "Shoes" has 5 characters, fewer than 10: too little to describe the page.');
    assert.equal(onlyFinding(short, 'meta-description-too-short').fix.patchType, 'content');
    const long = analyze(page({ title: `<title>${'a'.repeat(61)}</title>`, description: `<meta name="description" content="${'b'.repeat(161)}">` }), null, URL);
    assert.deepEqual(firedRules(long), ['meta-description-too-long', 'meta-title-too-long']);
    const edge = analyze(page({ title: `<title>${'a'.repeat(60)}</title>`, description: `<meta name="description" content="${'b'.repeat(160)}">` }), null, URL);
    assert.deepEqual(edge.findings, []);
  });

  it('several titles, descriptions and canonicals each fire on the extra element', () => {
    const report = analyze(
      page({
        title: `<title>${TITLE}</title><title>Second title here</title>`,
        description: `<meta name="description" content="${DESCRIPTION}"><meta name="Description" content="${DESCRIPTION}">`,
        canonical: `<link rel="canonical" href="${URL}"><link rel="canonical" href="${URL}?a=1">`,
      }),
      null,
      URL,
    );
    assert.deepEqual(firedRules(report), ['meta-canonical-multiple', 'meta-description-multiple', 'meta-title-multiple']);
    assert.equal(onlyFinding(report, 'meta-title-multiple').evidence.snippet, '<title>');
    assert.equal(onlyFinding(report, 'meta-canonical-multiple').evidence.selector, `link[href="${URL}?a=1"]`);
  });

  it("a canonical at the home page or at another language's alternate fails (issue 19)", () => {
    const home = analyze(page({ canonical: '<link rel="canonical" href="https://shop.test/">' }), null, URL);
    assert.deepEqual(firedRules(home), ['canonical-points-to-root']);
    assert.equal(onlyFinding(home, 'canonical-points-to-root').severity, 'high');
    assert.match(onlyFinding(home, 'canonical-points-to-root').detail, /home page, not this page/);
    const de = 'https://shop.test/de/produkte/schuhe';
    const set = `<link rel="alternate" hreflang="en" href="${URL}"><link rel="alternate" hreflang="de" href="${de}"><link rel="alternate" hreflang="x-default" href="${URL}">`;
    const other = analyze(page({ canonical: `<link rel="canonical" href="${de}">${set}` }), null, URL);
    assert.deepEqual(firedRules(other), ['canonical-points-to-alternate']);
    assert.match(onlyFinding(other, 'canonical-points-to-alternate').detail, /hreflang="de" alternate/);
    // Naming itself inside the same set passes both.
    const self = analyze(page({ canonical: `<link rel="canonical" href="${URL}">${set}` }), null, URL);
    assert.equal(checkResult(self, 'canonical-points-to-alternate'), 'pass');
    assert.equal(checkResult(self, 'canonical-points-to-root'), 'pass');
  });

  it('a relative canonical and a canonical on another host fire their own rules', () => {
    const relative = analyze(page({ canonical: '<link rel="canonical" href="/products/shoes">' }), null, URL);
    assert.deepEqual(firedRules(relative), ['meta-canonical-relative']);
    assert.equal(onlyFinding(relative, 'meta-canonical-relative').evidence.url, '/products/shoes');
    const other = analyze(page({ canonical: '<link rel="canonical" href="https://copycat.test/shoes">' }), null, URL);
    assert.deepEqual(firedRules(other), ['meta-canonical-other-host']);
    assert.equal(onlyFinding(other, 'meta-canonical-other-host').severity, 'medium');
    assert.match(onlyFinding(other, 'meta-canonical-other-host').detail, /on copycat\.test, not shop\.test/);
  });

  it('noindex in a robots meta or the X-Robots-Tag header is a high finding', () => {
    const meta = analyze(page({ robots: '<meta name="robots" content="NoIndex, follow">' }), null, URL);
    assert.deepEqual(firedRules(meta), ['meta-robots-noindex']);
    assert.equal(onlyFinding(meta, 'meta-robots-noindex').severity, 'high');
    const none = analyze(page({ robots: '<meta name="googlebot" content="none">' }), null, URL);
    assert.deepEqual(firedRules(none), ['meta-robots-noindex']);
    const header = analyze(page(), factsFor(URL, { headers: { 'x-robots-tag': 'googlebot: noindex' } }), URL);
    const finding = onlyFinding(header, 'meta-robots-noindex');
    assert.deepEqual(finding.evidence, { header: 'x-robots-tag', value: 'googlebot: noindex' });
    assert.equal(finding.fix.patchType, 'http-header');
    assert.deepEqual(header.details.robots, { meta: ['index, follow'], header: 'googlebot: noindex', indexable: false, blockedFor: ['googlebot'], unavailableAfter: [], ignored: [] });
    assert.deepEqual(analyze(page(), factsFor(URL, { headers: { 'x-robots-tag': 'max-snippet:-1' } }), URL).findings, []);
  });

  it('a viewport that blocks zoom is an accessibility finding', () => {
    for (const content of ['width=device-width, user-scalable=no', 'width=device-width, maximum-scale=1.5']) {
      const report = analyze(page({ viewport: `<meta name="viewport" content="${content}">` }), null, URL);
      assert.deepEqual(firedRules(report), ['meta-viewport-zoom-disabled'], content);
      assert.equal(onlyFinding(report, 'meta-viewport-zoom-disabled').category, 'accessibility');
    }
    const ok = analyze(page({ viewport: '<meta name="viewport" content="width=device-width, maximum-scale=5">' }), null, URL);
    assert.deepEqual(ok.findings, []);
  });

  it('a charset other than utf-8 fires, from the meta or from the Content-Type header', () => {
    const meta = analyze(page({ charset: '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">' }), null, URL);
    assert.deepEqual(firedRules(meta), ['meta-charset-not-utf8']);
    assert.equal(meta.details.charset, 'iso-8859-1');
    const header = analyze(page({ charset: '' }), factsFor(URL, { headers: { 'content-type': 'text/html; charset=windows-1252' } }), URL);
    const finding = onlyFinding(header, 'meta-charset-not-utf8');
    assert.equal(finding.evidence.header, 'content-type');
    assert.equal(finding.fix.patchType, 'http-header');
    // the header alone declares the encoding: no missing-charset finding
    assert.deepEqual(analyze(page({ charset: '' }), factsFor(URL), URL).findings, []);
  });

  it('hreflang without x-default, with an invalid code or a relative href fires each rule', () => {
    const report = analyze(
      page({
        hreflang: [
          '<link rel="alternate" hreflang="en" href="https://shop.test/products/shoes">',
          '<link rel="alternate" hreflang="english" href="https://shop.test/en/shoes">',
          '<link rel="alternate" hreflang="fr" href="/fr/products/shoes">',
        ].join(''),
      }),
      null,
      URL,
    );
    assert.deepEqual(firedRules(report), ['meta-hreflang-invalid-code', 'meta-hreflang-no-x-default', 'meta-hreflang-relative']);
    assert.match(onlyFinding(report, 'meta-hreflang-invalid-code').detail, /hreflang="english"/);
    assert.equal(onlyFinding(report, 'meta-hreflang-relative').evidence.url, '/fr/products/shoes');
    assert.equal(onlyFinding(report, 'meta-hreflang-no-x-default').severity, 'low');
  });

  it('a relative og:image fires meta-og-image-relative; a missing og:url fires meta-og-missing for it alone', () => {
    const relative = analyze(page({ og: PARTS.og.replace('https://shop.test/img/shoes.jpg', '/img/shoes.jpg') }), null, URL);
    assert.deepEqual(firedRules(relative), ['meta-og-image-relative']);
    const noUrl = analyze(page({ og: PARTS.og.replace(/<meta property="og:url"[^>]*>/, '') }), null, URL);
    assert.deepEqual(firedRules(noUrl), ['meta-og-missing']);
    assert.match(onlyFinding(noUrl, 'meta-og-missing').detail, /^No og:url/);
  });

  it('a missing lang is an accessibility finding on <html>', () => {
    const report = analyze(page({}, '<html>'), null, URL);
    const finding = onlyFinding(report, 'meta-lang-missing');
    assert.equal(finding.evidence.snippet, '<html>');
    assert.equal(report.scores.accessibility, 50);
  });

  it('findingIds are stable across runs and unrelated edits', () => {
    const broken = page({ title: '<title>Hi</title><title>Again</title>', canonical: '', og: '', twitter: '' }, '<html>');
    const first = findingIds(analyze(broken, null, URL));
    assert.deepEqual(findingIds(analyze(broken, null, URL)), first);
    const edited = broken.replace('<head>', '<head><link rel="stylesheet" href="/a.css">').replace('<h1>Shoes</h1>', '<p>intro</p><h1>Shoes!</h1>');
    assert.deepEqual(findingIds(analyze(edited, null, URL)), first);
  });
});
