import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema, type FetchPageOptions, type PageFetcher } from '../../core/define-url-tool.ts';
import { isServiceError, type ServiceError } from '../../core/errors.ts';
import { parseTargetUrl } from '../../analysis/egress-policy.ts';
import {
  analyzeRobotsSitemap,
  countInternalLinks,
  parseRobots,
  readSitemap,
  ROBOTS_MAX_BYTES,
  type FetchOutcome,
  type SitemapFetch,
} from '../../analysis/analyzers/robots-sitemap.ts';
import { robotsSitemapLocalAnalyzer } from '../../analysis/analyzers/robots-sitemap-local.ts';

const REPORTED_PHASES = new Set(['size', 'redirects', 'http']);
/** Sitemaps and sitemap indexes fetched in one run, robots.txt's first. */
const MAX_SITEMAPS = 3;
/** Each fetch after robots.txt gets this long, so three sitemaps fit the tool's time budget. */
const SITEMAP_TIMEOUT_MS = 15_000;

/**
 * Fetches a URL the page (or robots.txt) names: every failure becomes an outcome for the report,
 * since a broken link on someone's site is a finding, not the caller's error. A busy fetcher is
 * the exception: that is ours, and the caller may retry.
 */
export async function fetchOutcome(
  fetchPage: PageFetcher,
  url: string,
  options?: FetchPageOptions,
  rethrow: (error: ServiceError) => boolean = () => false,
): Promise<FetchOutcome> {
  try {
    return { url, facts: await fetchPage(url, options), error: null };
  } catch (error) {
    if (!isServiceError(error) || error.error === 'fetch_busy' || rethrow(error)) throw error;
    const phase = typeof error.extra['phase'] === 'string' ? error.extra['phase'] : null;
    return { url, facts: null, error: { code: error.error, phase, message: error.detail } };
  }
}

const ROBOTS_OK = 'User-agent: *\nDisallow: /cart\nAllow: /cart/help\n\nUser-agent: Googlebot\nDisallow: /search$\n\nSitemap: https://example.com/sitemap.xml\n';
const SITEMAP_OK =
  '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
  '<url><loc>https://example.com/shoes</loc><lastmod>2024-05-01</lastmod></url>\n' +
  '<url><loc>https://example.com/boots</loc><lastmod>2024-05-02T10:00:00+00:00</lastmod></url>\n</urlset>\n';
const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const XML = { 'content-type': 'application/xml' };

export const robotsSitemapCheckerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'robots-sitemap-checker',
  title: 'robots.txt and sitemap checker',
  description:
    "Fetches the site's /robots.txt (at most 512 KB) and reads it the RFC 9309 way: missing (4xx), a server error (5xx), not " +
    'text/plain, lines that are not rules (unknown fields, rules before any User-agent, an empty User-agent, a $ inside a ' +
    "pattern), and whether the given page and the home page are disallowed for Googlebot (its own group, else *: high, the " +
    "page cannot be in Google) or only for * while Googlebot has a group allowing it (low) (longest match wins, Allow wins " +
    "a tie, * and $ patterns). Then the sitemaps " +
    'it names (a relative Sitemap URL is reported, as Google reads only absolute ones, and still read) or /sitemap.xml when ' +
    'it names none (missing: low when the page links at most 100 pages of its site, a small site per Google, else medium), ' +
    'at most 3 files including sitemap indexes: missing, not XML, not a ' +
    '<urlset> or <sitemapindex>, over 50,000 URLs or 50 MB, URLs on another host, <lastmod> not a W3C date. ' +
    'details.groups lists the user-agent groups and their rules; details.sitemaps each sitemap with its kind and URL count.',
  aliases: ['robots.txt checker', 'robots.txt tester', 'sitemap checker', 'sitemap validator', 'xml sitemap', 'crawl rules'],
  credits: 3,
  input: z.object({ url: urlField.describe('A page of the site (or its home page): robots.txt is read from its origin, and this page is tested against its rules') }),
  output: urlReportResultSchema,
  limits: { timeoutMs: 60_000 },
  examples: [
    {
      title: 'A robots.txt that allows the page and names a clean sitemap',
      input: { url: 'https://example.com/shoes' },
      pages: {
        'https://example.com/robots.txt': { headers: TEXT, body: ROBOTS_OK },
        'https://example.com/sitemap.xml': { headers: XML, body: SITEMAP_OK },
      },
      expect: {
        scores: { seo: 100 },
        passes: ['robots-missing', 'robots-syntax-error', 'robots-page-disallowed', 'robots-site-disallowed', 'robots-no-sitemap', 'sitemap-missing', 'sitemap-other-host', 'sitemap-invalid-lastmod'],
      },
    },
    {
      title: 'The page disallowed, a typo in robots.txt, and a sitemap listing another host with a bad lastmod',
      input: { url: 'https://example.com/private/report' },
      pages: {
        'https://example.com/robots.txt': { headers: TEXT, body: 'Disallow: /tmp\nUser-agent: *\nDisalow: /old\nDisallow: /private\nSitemap: https://example.com/sitemap-main.xml\n' },
        'https://example.com/sitemap-main.xml': {
          headers: XML,
          body: '<?xml version="1.0"?><urlset><url><loc>https://rival.example.com/x</loc><lastmod>01/05/2024</lastmod></url></urlset>',
        },
      },
      expect: { fires: ['robots-syntax-error', 'robots-page-disallowed', 'sitemap-other-host', 'sitemap-invalid-lastmod'], passes: ['robots-site-disallowed', 'robots-no-sitemap'] },
    },
    {
      title: 'A whole host under Disallow: /: the page and the site are blocked from every crawler',
      input: { url: 'https://example.com/blog/launch' },
      pages: { 'https://example.com/robots.txt': { headers: TEXT, body: 'User-agent: *\nDisallow: /\n\nSitemap: https://example.com/sitemap.xml\n' }, 'https://example.com/sitemap.xml': { headers: XML, body: SITEMAP_OK } },
      expect: { fires: ['robots-page-disallowed', 'robots-site-disallowed'], passes: ['robots-crawlers-disallowed', 'robots-syntax-error'] },
    },
    {
      title: 'Every crawler but Googlebot disallowed: Google may crawl the page, other search engines not (low)',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/robots.txt': { headers: TEXT, body: 'User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /\n\nSitemap: https://example.com/sitemap.xml\n' }, 'https://example.com/sitemap.xml': { headers: XML, body: SITEMAP_OK } },
      expect: { fires: ['robots-crawlers-disallowed'], passes: ['robots-page-disallowed', 'robots-site-disallowed'] },
    },
    {
      title: 'No robots.txt and no sitemap on a small site: the missing sitemap is low',
      input: { url: 'https://example.com/' },
      pages: { 'https://example.com/': { body: '<!doctype html><title>Home</title><nav><a href="/about">About</a> <a href="/contact">Contact</a></nav>' } },
      expect: {
        fires: ['robots-missing', 'sitemap-missing'],
        passes: ['robots-page-disallowed', 'robots-site-disallowed'],
        result: { report: { details: { internalLinks: 2 } } },
      },
    },
  ],
  // HTML passed in has no site, so no robots.txt: a playbook on local HTML reports these rules not applicable.
  htmlAnalyzers: [robotsSitemapLocalAnalyzer],
  run: async ({ url }, ctx) => {
    const page = parseTargetUrl(url);
    const robotsUrl = `${page.origin}/robots.txt`;
    // A site that cannot be reached at all (a bad URL, refused, DNS, connect, TLS, timeout) is the
    // answer itself (4xx, not charged); an oversized, looping or broken robots.txt is a finding.
    const robots = await fetchOutcome(ctx.fetchPage, robotsUrl, { limits: { maxBytes: ROBOTS_MAX_BYTES } }, (error) => !REPORTED_PHASES.has(String(error.extra['phase'])));
    const facts = robots.facts;
    const named = facts && facts.status < 400 ? parseRobots(facts.text).sitemaps : [];
    const queue: { url: string; source: SitemapFetch['source'] }[] = [];
    for (const s of named) {
      // a relative Sitemap URL is reported (Google ignores it) but still read, against robots.txt's final URL
      const base = facts?.finalUrl ?? robotsUrl;
      const absolute = URL.canParse(s.url, base) ? new URL(s.url, base).href : s.url;
      if (!queue.some((q) => q.url === absolute)) queue.push({ url: absolute, source: 'robots' });
    }
    if (queue.length === 0) queue.push({ url: `${page.origin}/sitemap.xml`, source: 'default' });
    const sitemaps: SitemapFetch[] = [];
    while (queue.length > 0 && sitemaps.length < MAX_SITEMAPS) {
      const next = queue.shift() as (typeof queue)[number];
      const outcome = await fetchOutcome(ctx.fetchPage, next.url, { limits: { totalTimeoutMs: SITEMAP_TIMEOUT_MS } });
      sitemaps.push({ source: next.source, outcome });
      if (outcome.facts?.status === 200) {
        const read = readSitemap(outcome.facts.text, outcome.facts.mediaType, page.hostname);
        for (const child of read.kind === 'sitemapindex' ? read.children : []) {
          if (!queue.some((q) => q.url === child) && !sitemaps.some((s) => s.outcome.url === child)) queue.push({ url: child, source: 'index' });
        }
      }
    }
    // No sitemap at all: how much a sitemap matters depends on the site's size, read from how many
    // of its pages this page links (the analyzer's SMALL_SITE_INTERNAL_LINKS), so the page is read.
    let internalLinks: number | null = null;
    let pageFacts: FetchOutcome['facts'] = null;
    if (sitemaps.some((s) => s.source === 'default' && s.outcome.facts?.status !== 200)) {
      pageFacts = (await fetchOutcome(ctx.fetchPage, page.href, { limits: { totalTimeoutMs: SITEMAP_TIMEOUT_MS } })).facts;
      if (pageFacts !== null && pageFacts.status < 400 && /html/.test(pageFacts.mediaType ?? 'text/html')) internalLinks = countInternalLinks(pageFacts.text, pageFacts.finalUrl);
    }
    const report = analyzeRobotsSitemap({ pageUrl: page.href, robots, sitemaps, unfollowed: queue.map((q) => q.url), internalLinks });
    // status and finalUrl are the page's, as every URL tool's are (a playbook stops on an error
    // page by them), known only when the page was read; robots.txt's are details.robotsStatus.
    return { url, finalUrl: pageFacts?.finalUrl ?? page.href, status: pageFacts?.status ?? null, report };
  },
});
