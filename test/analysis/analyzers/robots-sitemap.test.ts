import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  analyzeRobotsSitemap,
  countInternalLinks,
  isW3cDate,
  parseRobots,
  readSitemap,
  rulesFor,
  verdictFor,
  type FetchOutcome,
  type SitemapFetch,
} from '../../../src/analysis/analyzers/robots-sitemap.ts';
import { assertValid, checkResult, firedRules, onlyFinding } from './report-helpers.ts';
import { factsFor } from './report-helpers.ts';

const SITE = 'https://shop.test';

function fetched(url: string, text: string, options: { status?: number; type?: string } = {}): FetchOutcome {
  const type = options.type ?? 'text/plain';
  const facts = factsFor(url, { status: options.status ?? 200, headers: { 'content-type': type } });
  return { url, error: null, facts: { ...facts, mediaType: type, text, body: Buffer.from(text) } };
}
const failedFetch = (url: string, phase: string, message: string): FetchOutcome => ({ url, facts: null, error: { code: 'fetch_failed', phase, message } });
const robots = (text: string, options?: { status?: number; type?: string }) => fetched(`${SITE}/robots.txt`, text, options);
const sitemap = (text: string, source: SitemapFetch['source'] = 'robots', url = `${SITE}/sitemap.xml`): SitemapFetch => ({ source, outcome: fetched(url, text, { type: 'application/xml' }) });
const urlset = (entries: string) => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`;

const GOOD_ROBOTS = `User-agent: *\nDisallow: /cart\nAllow: /cart/help\nCrawl-delay: 5\n\nSitemap: ${SITE}/sitemap.xml\n`;
const GOOD_SITEMAP = sitemap(urlset(`<url><loc>${SITE}/shoes</loc><lastmod>2024-05-01</lastmod></url><url><loc>${SITE}/a?x=1&amp;y=2</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod></url>`));

describe('robots.txt matching (RFC 9309)', () => {
  const parsed = parseRobots(
    'User-agent: *\nDisallow: /private\nAllow: /private/open\nDisallow: /*.pdf$\nDisallow: /tmp/\nAllow: /tmp/\n\n' +
      'User-agent: Googlebot\nUser-agent: bingbot\nDisallow: /no-google\n\nUser-agent: googlebot-news\nDisallow: /\n',
  );
  const star = rulesFor(parsed, '*');
  const google = rulesFor(parsed, 'Googlebot');

  it('the longest match wins, allow wins a tie, * and $ work', () => {
    assert.equal(verdictFor(star, '/private/x').allowed, false);
    assert.equal(verdictFor(star, '/private/open/x').allowed, true);
    assert.equal(verdictFor(star, '/docs/a.pdf').allowed, false);
    assert.equal(verdictFor(star, '/docs/a.pdf?x').allowed, true, '$ anchors the end');
    assert.equal(verdictFor(star, '/tmp/file').allowed, true, 'allow wins a tie of equal length');
    assert.equal(verdictFor(star, '/robots.txt').allowed, true);
    assert.equal(verdictFor(star, '/public').rule, null);
  });

  it('$ is an end anchor only at the end of a pattern; elsewhere it is a literal $, as Google matches it', () => {
    const only = (pattern: string) => rulesFor(parseRobots(`User-agent: *\nDisallow: ${pattern}\n`), '*');
    assert.equal(verdictFor(only('/price$list'), '/price$list/2024').allowed, false, 'an inner $ is a character of the path');
    assert.equal(verdictFor(only('/price$list'), '/price').allowed, true, 'an inner $ does not end the pattern');
    assert.equal(verdictFor(only('/*$x$'), '/a$x').allowed, false);
    assert.equal(verdictFor(only('/*$x$'), '/a$x/more').allowed, true, 'the last $ still anchors the end');
    // Google's robotstxt RobotsMatchStrategy::Matches (position sets; "$" an anchor only as the
    // pattern's last character), ported here as the reference the matcher must agree with.
    const google = (pattern: string, path: string): boolean => {
      let positions = [0];
      for (let k = 0; k < pattern.length; k++) {
        const c = pattern[k];
        if (c === '$' && k === pattern.length - 1) return positions.includes(path.length);
        if (c === '*') positions = Array.from({ length: path.length - (positions[0] ?? 0) + 1 }, (_, i) => (positions[0] ?? 0) + i);
        else positions = positions.filter((p) => p < path.length && path[p] === c).map((p) => p + 1);
        if (positions.length === 0) return false;
      }
      return true;
    };
    const text = (chars: string[], min: number) => fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text(['a', 'b', '$', '*', '.'], 0), text(['a', 'b', '$', '.'], 0), (tail, pathTail) => {
        const pattern = `/${tail}`;
        const path = `/${pathTail}`;
        assert.equal(verdictFor(only(pattern), path).allowed, !google(pattern, path), `${pattern} against ${path}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('a crawler obeys its own group (grouped user-agent lines) and only it; others fall back to *', () => {
    assert.equal(verdictFor(google, '/no-google').allowed, false);
    assert.equal(verdictFor(google, '/private/x').allowed, true, 'the * group is not merged in');
    assert.equal(verdictFor(rulesFor(parsed, 'bingbot'), '/no-google').allowed, false);
    assert.equal(verdictFor(rulesFor(parsed, 'DuckDuckBot'), '/private/x').allowed, false);
  });

  it('non-ASCII paths compare percent-encoded', () => {
    const rules = rulesFor(parseRobots('User-agent: *\nDisallow: /café\n'), '*');
    assert.equal(verdictFor(rules, '/caf%c3%a9/menu').allowed, false);
  });

  it('reports lines that are not rules, with their line numbers', () => {
    const { problems, sitemaps } = parseRobots('Disallow: /a\nUser-agent: *\nDisalow: /b\njust text\nDisallow: page.html\nNoindex: /c\nSitemap: /s.xml\n');
    assert.deepEqual(problems.map((p) => [p.line, p.reason]), [
      [1, 'disallow before any user-agent line: no crawler reads it'],
      [3, 'unknown field "disalow"'],
      [4, 'no colon: not a "field: value" line'],
      [5, 'the path "page.html" does not start with / or *, so it matches nothing'],
      [6, 'noindex in robots.txt is ignored by Google since 2019'],
    ]);
    assert.deepEqual(sitemaps, [{ url: '/s.xml', line: 7 }]);
  });
});

describe('sitemap reading', () => {
  it('counts <loc>, skips namespaced image locs, decodes only predefined entities, reads CDATA', () => {
    const read = readSitemap(urlset(`<url><loc>${SITE}/a</loc><image:image><image:loc>https://cdn.test/i.png</image:loc></image:image></url><url><loc><![CDATA[${SITE}/b]]></loc></url>`), 'application/xml', 'shop.test');
    assert.equal(read.kind, 'urlset');
    assert.equal(read.urls, 2);
    assert.equal(read.otherHost.count, 0);
    const doctype = readSitemap(`<!DOCTYPE urlset [<!ENTITY x "${'a'.repeat(100)}">]><urlset><url><loc>${SITE}/&x;</loc></url></urlset>`, 'application/xml', 'shop.test');
    assert.equal(doctype.kind, 'urlset');
    assert.equal(doctype.urls, 1, 'the declared entity is never expanded');
  });

  it('W3C dates', () => {
    for (const ok of ['2024', '2024-05', '2024-05-01', '2024-05-01T10:00Z', '2024-05-01T10:00:00.5-05:00']) assert.ok(isW3cDate(ok), ok);
    for (const bad of ['01/05/2024', '2024-13-01', '2024-02-30', '2024-05-01T10:00', '2024-05-01 10:00:00', 'yesterday']) assert.ok(!isW3cDate(bad), bad);
  });
});

describe('robots-sitemap analyzer', () => {
  it('a good robots.txt and sitemap fire nothing and score 100', () => {
    const report = analyzeRobotsSitemap({ pageUrl: `${SITE}/shoes`, robots: robots(GOOD_ROBOTS), sitemaps: [GOOD_SITEMAP], unfollowed: [] });
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
    for (const check of report.checks) assert.equal(check.result, 'pass', check.rule);
    assert.deepEqual(report.details.sitemaps, [{ url: `${SITE}/sitemap.xml`, source: 'robots', status: 200, kind: 'urlset', urls: 2 }]);
    assert.deepEqual(report.details.groups, [{ userAgents: ['*'], allow: ['/cart/help'], disallow: ['/cart'] }]);
  });

  it('the page disallowed for Googlebot, the site for * only (Googlebot has its own group), syntax errors and no sitemap line', () => {
    const report = analyzeRobotsSitemap({ pageUrl: `${SITE}/private/report`, robots: robots('User-agent: *\nDisallow: /\nUser-agent: Googlebot\nDisallow: /private\nFoo: bar\n'), sitemaps: [], unfollowed: [] });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['robots-crawlers-disallowed', 'robots-no-sitemap', 'robots-page-disallowed', 'robots-syntax-error']);
    const page = onlyFinding(report, 'robots-page-disallowed');
    assert.equal(page.count, 1);
    assert.equal(page.evidence.line, 4);
    assert.match(page.detail, /blocks Googlebot from \/private\/report/);
    // line 2 blocks * from the page and the home page; Googlebot's own group lets it crawl the home page
    const others = onlyFinding(report, 'robots-crawlers-disallowed');
    assert.equal(others.severity, 'low');
    assert.equal(others.count, 2);
    assert.equal(others.evidence.line, 2);
    assert.match(others.detail, /Googlebot has its own group and may crawl it/);
    assert.equal(checkResult(report, 'robots-site-disallowed'), 'pass');
    const syntax = onlyFinding(report, 'robots-syntax-error');
    assert.equal(syntax.evidence.line, 5);
    assert.equal(syntax.detail, 'Line 5: unknown field "foo".');
    assert.equal(checkResult(report, 'sitemap-missing'), 'not_applicable');
  });

  it('robots.txt missing, a server error, HTML instead of text, and too large', () => {
    const missing = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('nope', { status: 404, type: 'text/html' }), sitemaps: [], unfollowed: [] });
    assert.deepEqual(firedRules(missing), ['robots-missing']);
    assert.equal(checkResult(missing, 'robots-page-disallowed'), 'pass');
    const error = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('down', { status: 503 }), sitemaps: [], unfollowed: [] });
    assert.deepEqual(firedRules(error), ['robots-server-error']);
    assert.equal(checkResult(error, 'robots-page-disallowed'), 'unknown');
    assert.equal(error.incomplete, true);
    const html = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('<!doctype html><html><body>App</body></html>', { type: 'text/html' }), sitemaps: [], unfollowed: [] });
    assert.deepEqual(firedRules(html), ['robots-no-sitemap', 'robots-not-text']);
    assert.equal(checkResult(html, 'robots-syntax-error'), 'not_applicable');
    const large = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: failedFetch(`${SITE}/robots.txt`, 'size', 'the response is over the 524288-byte cap'), sitemaps: [], unfollowed: [] });
    assert.deepEqual(firedRules(large), ['robots-too-large']);
  });

  it('each sitemap rule fires on its sitemap', () => {
    const many = urlset(`<url><loc>${SITE}/p</loc></url>`.repeat(50_001));
    const report = analyzeRobotsSitemap({
      pageUrl: `${SITE}/`,
      robots: robots(GOOD_ROBOTS),
      sitemaps: [
        { source: 'robots', outcome: fetched(`${SITE}/gone.xml`, 'no', { status: 404, type: 'text/html' }) },
        { source: 'robots', outcome: fetched(`${SITE}/page.xml`, '<!doctype html><html></html>', { type: 'text/html' }) },
        sitemap('<?xml version="1.0"?><rss><channel></channel></rss>', 'robots', `${SITE}/feed.xml`),
        sitemap(many, 'index', `${SITE}/big.xml`),
        sitemap(urlset('<url><loc>https://other.test/x</loc><lastmod>05/01/2024</lastmod></url>'), 'index', `${SITE}/mixed.xml`),
        { source: 'robots', outcome: failedFetch(`${SITE}/huge.xml`, 'size', 'the response declares 60000000 bytes, over the 5242880-byte cap') },
      ],
      unfollowed: [`${SITE}/more.xml`],
    });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['sitemap-invalid-lastmod', 'sitemap-missing', 'sitemap-not-xml', 'sitemap-other-host', 'sitemap-too-large', 'sitemap-wrong-root']);
    assert.equal(onlyFinding(report, 'sitemap-too-large').count, 2);
    assert.equal(onlyFinding(report, 'sitemap-other-host').evidence.value, 'https://other.test/x');
    assert.equal(onlyFinding(report, 'sitemap-invalid-lastmod').evidence.value, '05/01/2024');
    assert.equal(onlyFinding(report, 'sitemap-wrong-root').evidence.snippet, '<rss>');
    assert.ok(report.notes.some((n) => n.includes(`${SITE}/more.xml`)));
  });

  it('one Disallow line that blocks Googlebot (through *) and * is one instance naming both crawlers', () => {
    const report = analyzeRobotsSitemap({ pageUrl: `${SITE}/private/report`, robots: robots(`User-agent: *\nDisallow: /private\n\nSitemap: ${SITE}/sitemap.xml\n`), sitemaps: [GOOD_SITEMAP], unfollowed: [] });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['robots-page-disallowed']);
    const blocked = onlyFinding(report, 'robots-page-disallowed');
    assert.equal(blocked.count, 1);
    assert.deepEqual(blocked.instances, [{ url: `${SITE}/private/report`, line: 2, snippet: 'Disallow: /private' }]);
    assert.match(blocked.detail, /blocks Googlebot and all crawlers \(\*\) from \/private\/report/);
    assert.match(blocked.fix.change, /the group of "User-agent: \*"/);
    const site = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('User-agent: *\nDisallow: /\n'), sitemaps: [], unfollowed: [] });
    assert.equal(onlyFinding(site, 'robots-site-disallowed').count, 1);
    assert.equal(onlyFinding(site, 'robots-page-disallowed').count, 1);
  });

  it('a text sitemap counts its lines; a missing default /sitemap.xml says robots.txt names none', () => {
    const text = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots(GOOD_ROBOTS), sitemaps: [{ source: 'robots', outcome: fetched(`${SITE}/urls.txt`, `${SITE}/a\n${SITE}/b\n`) }], unfollowed: [] });
    assert.deepEqual(text.findings, []);
    const none = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('User-agent: *\nAllow: /\n'), sitemaps: [{ source: 'default', outcome: fetched(`${SITE}/sitemap.xml`, 'x', { status: 404 }) }], unfollowed: [] });
    assert.deepEqual(firedRules(none), ['robots-no-sitemap', 'sitemap-missing']);
    assert.match(onlyFinding(none, 'sitemap-missing').detail, /^robots.txt names no sitemap and the default \/sitemap.xml answers HTTP 404/);
  });

  it('a relative Sitemap URL is a syntax error naming the absolute URL it meant, resolved against robots.txt', () => {
    const report = analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('User-agent: *\nAllow: /\nSitemap: /maps/sitemap.xml\n'), sitemaps: [sitemap(urlset(`<url><loc>${SITE}/a</loc></url>`), 'robots', `${SITE}/maps/sitemap.xml`)], unfollowed: [] });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['robots-syntax-error']);
    const syntax = onlyFinding(report, 'robots-syntax-error');
    assert.deepEqual(syntax.evidence, { url: `${SITE}/robots.txt`, line: 3, snippet: 'Sitemap: /maps/sitemap.xml' });
    assert.match(syntax.detail, /Google reads only a fully-qualified sitemap URL and ignores this line/);
    assert.equal(syntax.fix.change, `Write line 3 of robots.txt as "Sitemap: ${SITE}/maps/sitemap.xml".`);
    assert.deepEqual(firedRules(analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots(GOOD_ROBOTS), sitemaps: [GOOD_SITEMAP], unfollowed: [] })), []);
  });

  it('no sitemap at all is low (and weighs 1) on a small site, medium on a large one or when the page was not read', () => {
    const nav = (n: number) => `<nav>${Array.from({ length: n }, (_, i) => `<a href="/p/${i}">P${i}</a><a href="/p/${i}#top">again</a>`).join('')}<a href="https://elsewhere.test/">out</a><a href="mailto:a@shop.test">mail</a></nav>`;
    assert.equal(countInternalLinks(nav(12), `${SITE}/`), 12);
    assert.equal(countInternalLinks(`<base href="https://cdn.test/">${nav(3)}<a href="${SITE}/x">x</a>`, `${SITE}/`), 1, 'relative links follow <base>');
    const noSitemap = (internalLinks: number | null, source: SitemapFetch['source'] = 'default') =>
      analyzeRobotsSitemap({ pageUrl: `${SITE}/`, robots: robots('User-agent: *\nAllow: /\n'), sitemaps: [{ source, outcome: fetched(`${SITE}/sitemap.xml`, 'x', { status: 404 }) }], unfollowed: [], internalLinks });
    const small = noSitemap(countInternalLinks(nav(12), `${SITE}/`));
    assertValid(small);
    const missing = onlyFinding(small, 'sitemap-missing');
    assert.equal(missing.severity, 'low');
    assert.match(missing.detail, /links few pages of its site/);
    assert.equal(small.checks.find((c) => c.rule === 'sitemap-missing')?.weight, 1);
    assert.equal(small.details.internalLinks, 12);
    const large = noSitemap(countInternalLinks(nav(101), `${SITE}/`));
    assert.equal(onlyFinding(large, 'sitemap-missing').severity, 'medium');
    assert.equal(large.checks.find((c) => c.rule === 'sitemap-missing')?.weight, 3);
    assert.ok((small.scores['seo'] ?? 0) > (large.scores['seo'] ?? 0));
    assert.equal(onlyFinding(noSitemap(null), 'sitemap-missing').severity, 'medium', 'unread page: not guessed small');
    assert.equal(onlyFinding(noSitemap(3, 'robots'), 'sitemap-missing').severity, 'medium', 'a named sitemap that is gone is broken whatever the size');
  });

  it('findingIds are stable across runs', () => {
    const run = () => analyzeRobotsSitemap({ pageUrl: `${SITE}/private`, robots: robots('User-agent: *\nDisallow: /private\nFoo: x\n'), sitemaps: [], unfollowed: [] }).findings.map((f) => f.findingId);
    assert.deepEqual(run(), run());
  });

  it('adversarial wildcard patterns stay within the match budget', () => {
    const text = `User-agent: *\n${`Disallow: /${'*a'.repeat(200)}b\n`.repeat(2000)}`;
    const report = analyzeRobotsSitemap({ pageUrl: `${SITE}/${'a'.repeat(2000)}`, robots: robots(text), sitemaps: [], unfollowed: [] });
    assert.equal(checkResult(report, 'robots-page-disallowed'), 'unknown');
    assert.ok(report.notes.some((n) => n.includes('too many wildcard rules')));
  });
});
