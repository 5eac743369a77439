// robots.txt as Lighthouse's is-crawlable and robots-txt audits read it: the page disallowed for
// Googlebot, a whole host under `Disallow: /`, a line that blocks other crawlers only, and the
// lines its robots-txt audit calls invalid.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRobotsSitemap, parseRobots, type FetchOutcome, type SitemapFetch } from '../../../src/analysis/analyzers/robots-sitemap.ts';
import { LOCAL_ROBOTS_INFO, robotsSitemapLocalAnalyzer } from '../../../src/analysis/analyzers/robots-sitemap-local.ts';
import { LOCAL_PAGE_URL } from '../../../src/analysis/local-page.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const SITE = 'https://blog.test';
function fetched(url: string, text: string, type = 'text/plain'): FetchOutcome {
  const facts = factsFor(url, { status: 200, headers: { 'content-type': type } });
  return { url, error: null, facts: { ...facts, mediaType: type, text, body: Buffer.from(text) } };
}
const SITEMAP: SitemapFetch = {
  source: 'robots',
  outcome: fetched(`${SITE}/sitemap.xml`, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${SITE}/a</loc></url></urlset>`, 'application/xml'),
};
const run = (pagePath: string, robotsTxt: string) =>
  analyzeRobotsSitemap({ pageUrl: `${SITE}${pagePath}`, robots: fetched(`${SITE}/robots.txt`, `${robotsTxt}\nSitemap: ${SITE}/sitemap.xml\n`), sitemaps: [SITEMAP], unfollowed: [] });

describe('robots.txt crawlability', () => {
  it('a page robots.txt disallows for every crawler fails robots-page-disallowed, high, and the SEO score is not good', () => {
    const report = run('/drafts/post-1', 'User-agent: *\nDisallow: /drafts/');
    assertValid(report);
    assert.deepEqual(firedRules(report), ['robots-page-disallowed']);
    const finding = onlyFinding(report, 'robots-page-disallowed');
    assert.equal(finding.severity, 'high');
    assert.match(finding.detail, /blocks Googlebot and all crawlers \(\*\) from \/drafts\/post-1/);
    assert.equal(checkResult(report, 'robots-site-disallowed'), 'pass');
    // Lighthouse's is-crawlable fails, which dominates the SEO score
    assert.equal(report.checks.find((c) => c.rule === 'robots-page-disallowed')?.audit, 'is-crawlable');
    assert.ok((report.scores.seo ?? 100) < 70, `seo ${report.scores.seo}`);
  });

  it('a whole host under Disallow: / fails both the page and the site rules', () => {
    const report = run('/about', 'User-agent: *\nDisallow: /');
    assert.deepEqual(firedRules(report), ['robots-page-disallowed', 'robots-site-disallowed']);
    assert.ok((report.scores.seo ?? 100) < 70, `seo ${report.scores.seo}`);
  });

  it('a page disallowed for Googlebot alone is blocked from Google: high', () => {
    const report = run('/about', 'User-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nAllow: /');
    assert.deepEqual(firedRules(report), ['robots-page-disallowed', 'robots-site-disallowed']);
    assert.match(onlyFinding(report, 'robots-page-disallowed').detail, /blocks Googlebot from \/about/);
  });

  it('a page disallowed for * while Googlebot has a group that allows it is low: Google may crawl it', () => {
    const report = run('/about', 'User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /');
    assertValid(report);
    assert.deepEqual(firedRules(report), ['robots-crawlers-disallowed']);
    assert.equal(checkResult(report, 'robots-page-disallowed'), 'pass');
    assert.equal(checkResult(report, 'robots-site-disallowed'), 'pass');
    const finding = onlyFinding(report, 'robots-crawlers-disallowed');
    assert.equal(finding.severity, 'low');
    assert.match(finding.detail, /Bing, DuckDuckGo and other search engines leave it out/);
    assert.ok((report.scores.seo ?? 0) >= 80, `seo ${report.scores.seo}`);
  });

  it('robots.txt that blocks only another crawler (bingbot) leaves the page crawlable', () => {
    const report = run('/about', 'User-agent: bingbot\nDisallow: /\n\nUser-agent: *\nAllow: /');
    assert.deepEqual(report.findings, []);
  });
});

describe('robots.txt lines Lighthouse\'s robots-txt audit calls invalid', () => {
  it('an empty user-agent and a $ inside a pattern are problems; Content-Signal is a known field', () => {
    const { problems } = parseRobots('User-agent:\nDisallow: /a\nUser-agent: *\nDisallow: /price$list\nDisallow: /*.pdf$\nContent-Signal: search=yes, ai-train=no\n');
    assert.deepEqual(problems.map((p) => p.line), [1, 4]);
    assert.match(problems[0]?.reason ?? '', /no crawler name/);
    assert.match(problems[1]?.reason ?? '', /Google reads it as a literal \$, other crawlers as the end of the URL/);
  });

  it('each is a robots-syntax-error finding with its line', () => {
    const report = run('/a', 'User-agent: *\nDisallow: /price$list');
    assert.deepEqual(firedRules(report), ['robots-syntax-error']);
    assert.equal(onlyFinding(report, 'robots-syntax-error').evidence.line, 2);
    assert.equal(report.checks.find((c) => c.rule === 'robots-syntax-error')?.audit, 'robots-txt');
  });
});

describe('robots-sitemap-checker on HTML passed in (local mode)', () => {
  it('no robots.txt applies to a page with no address: every rule not applicable, nothing judged, complete, and says where to check', () => {
    const report = robotsSitemapLocalAnalyzer.analyze('<!doctype html><title>Draft</title><h1>Draft</h1>', null, LOCAL_PAGE_URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.ok(report.checks.length > 0 && report.checks.every((c) => c.result === 'not_applicable'));
    assert.ok(report.checks.some((c) => c.rule === 'robots-page-disallowed'));
    assert.equal(report.statuses.seo, 'unknown', 'nothing judged is never a pass');
    assert.equal(report.incomplete, false);
    assert.ok(report.notes.includes(LOCAL_ROBOTS_INFO));
  });
});
