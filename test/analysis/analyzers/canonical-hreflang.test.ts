import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  analyzeCanonicalHreflang,
  canonicalHreflangAnalyzer,
  parseLinkHeader,
  readLinks,
  targetsOf,
  validHreflang,
} from '../../../src/analysis/analyzers/canonical-hreflang.ts';
import type { FetchOutcome } from '../../../src/analysis/analyzers/robots-sitemap.ts';
import { parseHtml } from '../../../src/analysis/html-document.ts';
import type { PageFacts } from '../../../src/analysis/page-facts.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const EN = 'https://shop.test/en/shoes';
const DE = 'https://shop.test/de/schuhe';
const head = (links: string, extra = '') => `<!doctype html><html lang="en"><head><title>Shoes</title>${extra}${links}</head><body><h1>Shoes</h1></body></html>`;
const alt = (code: string, href: string) => `<link rel="alternate" hreflang="${code}" href="${href}">`;
const SET = alt('en', EN) + alt('de', DE) + alt('x-default', EN);

function served(url: string, html: string, options: { status?: number; headers?: Record<string, string>; redirects?: PageFacts['redirects']; requestedUrl?: string } = {}): PageFacts {
  return { ...factsFor(url, options), text: html, body: Buffer.from(html) };
}
const outcome = (facts: PageFacts, url = facts.requestedUrl): FetchOutcome => ({ url, facts, error: null });
function run(html: string, targets: FetchOutcome[] | null, url = EN, headers: Record<string, string> = {}) {
  const facts = served(url, html, { headers });
  return analyzeCanonicalHreflang(parseHtml(html, url), facts, url, targets === null ? null : new Map(targets.map((t) => [t.url, t])));
}

describe('canonical-hreflang analyzer', () => {
  it('a self canonical in a reciprocal set passes every rule', () => {
    const report = run(head(`<link rel="canonical" href="${EN}">${SET}`), [outcome(served(DE, head(`<link rel="canonical" href="${DE}">${SET}`)))]);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
    assert.equal(checkResult(report, 'canonical-target-error'), 'not_applicable', 'a self canonical needs no second fetch');
    for (const rule of ['canonical-missing', 'canonical-invalid', 'canonical-relative', 'canonical-multiple', 'canonical-other-host', 'hreflang-invalid-code', 'hreflang-missing-self', 'hreflang-missing-x-default', 'hreflang-duplicate', 'hreflang-target-error', 'hreflang-no-return']) {
      assert.equal(checkResult(report, rule), 'pass', rule);
    }
    assert.deepEqual(report.details.hreflang, [
      { hreflang: 'en', href: EN, source: 'html', returns: null, status: null },
      { hreflang: 'de', href: DE, source: 'html', returns: true, status: 200 },
      { hreflang: 'x-default', href: EN, source: 'html', returns: null, status: null },
    ]);
  });

  it('canonical form: missing, relative, invalid, conflicting with the Link header, another host', () => {
    // A missing canonical is optional (Lighthouse: not applicable): no finding, no failing check.
    const missing = run(head(''), []);
    assert.deepEqual(firedRules(missing), []);
    assert.equal(checkResult(missing, 'canonical-missing'), 'not_applicable');
    const relative = run(head('<link rel="canonical" href="/en/shoes">'), []);
    assert.deepEqual(firedRules(relative), ['canonical-relative']);
    assert.equal(onlyFinding(relative, 'canonical-relative').fix.change, `Write the canonical href as ${EN}.`);
    assert.deepEqual(firedRules(run(head('<link rel="canonical" href="javascript:void(0)">'), [])), ['canonical-invalid']);
    const conflict = run(head(`<link rel="canonical" href="${EN}">`), [], EN, { link: `<${EN}?ref=1>; rel="canonical"` });
    assert.deepEqual(firedRules(conflict), ['canonical-multiple']);
    assert.equal(onlyFinding(conflict, 'canonical-multiple').evidence.header, 'link');
    const other = run(head('<link rel="canonical" href="https://mirror.test/en/shoes">'), [outcome(served('https://mirror.test/en/shoes', head('')))]);
    assert.deepEqual(firedRules(other), ['canonical-other-host']);
    assert.equal(onlyFinding(other, 'canonical-other-host').severity, 'medium');
  });

  it('a page with no canonical (issue 19) is not scored 0 "poor": the check is not applicable, a remark says it is optional', () => {
    const report = run(head(''), []);
    assertValid(report);
    assert.notEqual(report.statuses.seo, 'poor');
    assert.equal(report.scores.seo, undefined, 'nothing applicable: no score, not 0');
    assert.equal(report.incomplete, false);
    assert.ok(report.checks.every((c) => c.result !== 'fail'));
    assert.ok(report.notes.some((n) => n.includes('no canonical URL (optional')), report.notes.join('; '));
    // With an hreflang set to judge, the SEO score is the set's, not dragged down by the canonical.
    const withSet = run(head(SET), [outcome(served(DE, head(SET)))]);
    assert.deepEqual(withSet.scores, { seo: 100, overall: 100 });
  });

  it('a canonical pointing at the home page from a deeper page fails (Lighthouse: "points to the domain\'s root")', () => {
    const home = 'https://shop.test/';
    const report = run(head(`<link rel="canonical" href="${home}">`), [outcome(served(home, head('')))]);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['canonical-points-to-root']);
    const finding = onlyFinding(report, 'canonical-points-to-root');
    assert.equal(finding.severity, 'high');
    assert.match(finding.detail, /home page, not this page \(https:\/\/shop\.test\/en\/shoes\)/);
    assert.equal(finding.evidence.url, home);
    assert.match(finding.fix.change, /this page's own URL \(https:\/\/shop\.test\/en\/shoes\)/);
    assert.ok((report.scores.seo ?? 100) < 90);
    // The home page naming itself is fine, and so is a deeper page naming another deep page.
    const onHome = run(head(`<link rel="canonical" href="${home}">`), [], home);
    assert.equal(checkResult(onHome, 'canonical-points-to-root'), 'pass');
  });

  it("a canonical pointing at another language's alternate of the page's hreflang set fails", () => {
    const report = run(head(`<link rel="canonical" href="${DE}">${SET}`), [outcome(served(DE, head(`<link rel="canonical" href="${DE}">${SET}`)))]);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['canonical-points-to-alternate']);
    const finding = onlyFinding(report, 'canonical-points-to-alternate');
    assert.equal(finding.severity, 'high');
    assert.match(finding.detail, /hreflang="de" alternate/);
    assert.match(finding.fix.change, /this page's own URL \(https:\/\/shop\.test\/en\/shoes\)/);
    assert.equal(checkResult(report, 'canonical-points-to-alternate'), 'fail');
  });

  it('canonical target: an error status, a redirect, noindex in a header or a meta tag', () => {
    const target = 'https://shop.test/shoes';
    const canonical = head(`<link rel="canonical" href="${target}">`);
    const gone = run(canonical, [outcome(served(target, 'x', { status: 404 }))]);
    assert.deepEqual(firedRules(gone), ['canonical-target-error']);
    assert.equal(checkResult(gone, 'canonical-target-noindex'), 'unknown');
    const refused: FetchOutcome = { url: target, facts: null, error: { code: 'url_not_allowed', phase: null, message: 'private address' } };
    assert.match(onlyFinding(run(canonical, [refused]), 'canonical-target-error').detail, /could not be fetched \(private address\)/);
    const redirected = served('https://shop.test/shoes/', head(''), { requestedUrl: target, redirects: [{ url: target, status: 301, location: '/shoes/' }] });
    assert.deepEqual(firedRules(run(canonical, [outcome(redirected, target)])), ['canonical-target-redirects']);
    const header = run(canonical, [outcome(served(target, head(''), { headers: { 'x-robots-tag': 'noindex, nofollow' } }))]);
    assert.equal(onlyFinding(header, 'canonical-target-noindex').evidence.value, 'X-Robots-Tag: noindex, nofollow');
    const meta = run(canonical, [outcome(served(target, head('', '<meta name="robots" content="none">')))]);
    assert.deepEqual(firedRules(meta), ['canonical-target-noindex']);
  });

  it('hreflang: bad codes, duplicates, no self, no x-default, a broken alternate, no return link', () => {
    const html = head(`<link rel="canonical" href="${EN}">${alt('en_US', 'https://shop.test/us')}${alt('en-UK', 'https://shop.test/uk')}${alt('jp', 'https://shop.test/jp')}${alt('fr', 'https://shop.test/fr')}${alt('fr', 'https://shop.test/fr2')}${alt('de', DE)}`);
    const targets = ['https://shop.test/us', 'https://shop.test/uk', 'https://shop.test/jp', 'https://shop.test/fr', 'https://shop.test/fr2'].map((u) => outcome(served(u, head(alt('en', EN)))));
    const report = run(html, [...targets, outcome(served(DE, head(''), { status: 500 }))]);
    assertValid(report);
    assert.deepEqual(firedRules(report), [
      'hreflang-duplicate', 'hreflang-invalid-code', 'hreflang-missing-self', 'hreflang-missing-x-default', 'hreflang-target-error',
    ]);
    // three bad codes: one finding of the rule saying each
    const codes = onlyFinding(report, 'hreflang-invalid-code');
    assert.equal(codes.count, 3);
    assert.match(codes.detail, /"en-UK".*the United Kingdom is GB/s);
    assert.match(codes.detail, /"en_US".*hyphen/s);
    assert.equal(onlyFinding(report, 'hreflang-target-error').evidence.url, DE);
    const noReturn = run(head(`${alt('en', EN)}${alt('de', DE)}${alt('x-default', EN)}`), [outcome(served(DE, head(alt('de', DE))))]);
    assert.deepEqual(firedRules(noReturn), ['hreflang-no-return']);
    assert.equal(onlyFinding(noReturn, 'hreflang-no-return').evidence.url, DE);
  });

  it('a return link in the alternate\'s Link header counts', () => {
    const report = run(head(`<link rel="canonical" href="${EN}">${SET}`), [outcome(served(DE, head(''), { headers: { link: `<${EN}>; rel="alternate"; hreflang="en", <${DE}>; rel="alternate"; hreflang="de"` } }))]);
    assert.deepEqual(report.findings, []);
  });

  it('HTML alone leaves the target rules unknown; no hreflang leaves its rules not applicable', () => {
    const report = canonicalHreflangAnalyzer.analyze(head(`<link rel="canonical" href="https://shop.test/x">${SET}`), null, EN);
    assert.equal(checkResult(report, 'canonical-target-error'), 'unknown');
    assert.equal(checkResult(report, 'hreflang-no-return'), 'unknown');
    assert.equal(report.incomplete, true);
    assert.equal(checkResult(run(head(`<link rel="canonical" href="${EN}">`), []), 'hreflang-duplicate'), 'not_applicable');
  });

  it('parsing helpers: Link header, codes, fetch targets', () => {
    assert.deepEqual(parseLinkHeader('<https://a.test/>; rel="canonical", </de>; rel=alternate; hreflang=de'), [
      { href: 'https://a.test/', params: { rel: 'canonical' } },
      { href: '/de', params: { rel: 'alternate', hreflang: 'de' } },
    ]);
    for (const ok of ['en', 'en-GB', 'zh-Hant-TW', 'es-419', 'X-Default']) assert.ok(validHreflang(ok), ok);
    for (const bad of ['en-UK', 'jp', 'en_US', 'english', '']) assert.ok(!validHreflang(bad), bad);
    const links = readLinks(parseHtml(head(`<link rel="canonical" href="https://shop.test/c">${SET}`), EN), null, EN);
    assert.deepEqual(targetsOf(links, [EN]), { canonical: 'https://shop.test/c', alternates: [DE] });
  });

  it('findingIds are stable across runs', () => {
    const html = head(alt('en-UK', EN) + alt('de', DE));
    const ids = () => run(html, []).findings.map((f) => f.findingId);
    assert.deepEqual(ids(), ids());
  });
});
