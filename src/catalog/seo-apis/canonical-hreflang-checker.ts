import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { analyzeCanonicalHreflang, MAX_ALTERNATES, readLinks, targetsOf } from '../../analysis/analyzers/canonical-hreflang.ts';
import type { FetchOutcome } from '../../analysis/analyzers/robots-sitemap.ts';
import { parseHtml } from '../../analysis/html-document.ts';
import { isHtmlResponse, pageNotes, withHttpStatus } from '../../analysis/page-analysis.ts';
import { fetchOutcome } from './robots-sitemap-checker.ts';

/** Each target is read only for its status, headers and <head>, so a small cap and a short time do. */
const TARGET_LIMITS = { maxBytes: 512 * 1024, totalTimeoutMs: 8000 };
/** Targets fetched at once: within the account's fetch slots, leaving room for its other calls. */
const PARALLEL = 3;

const head = (links: string, robots = '') =>
  `<!doctype html><html lang="en"><head><title>Shoes</title>${robots}${links}</head><body><h1>Shoes</h1></body></html>`;
const SET =
  '<link rel="alternate" hreflang="en" href="https://example.com/en/shoes">' +
  '<link rel="alternate" hreflang="de" href="https://example.com/de/schuhe">' +
  '<link rel="alternate" hreflang="x-default" href="https://example.com/en/shoes">';

export const canonicalHreflangCheckerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'canonical-hreflang-checker',
  title: 'Canonical and hreflang checker',
  description:
    'Fetches a page and reads its canonical URL (<link rel=canonical> and the Link header) and its hreflang alternates. ' +
    'Canonical: missing, not a valid http(s) URL, relative, conflicting declarations, on another host; the canonical URL ' +
    'is fetched when it is another page, to find a status other than 200, a redirect, or noindex (meta robots or ' +
    `X-Robots-Tag). hreflang: codes that are not ISO 639-1 (with an optional ISO 3166-1 region) or x-default, a code listed twice, no ` +
    `alternate for the page itself, no x-default; each alternate (at most ${MAX_ALTERNATES}) is fetched to find one that does not answer 200 or ` +
    'does not link back. details.canonicals and details.hreflang list what was declared, with each alternate\'s status and return link.',
  aliases: ['canonical checker', 'hreflang checker', 'hreflang validator', 'rel canonical', 'international seo', 'return tags'],
  credits: 4,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  limits: { timeoutMs: 60_000 },
  examples: [
    {
      title: 'A self-canonical page in a complete, reciprocal hreflang set',
      input: { url: 'https://example.com/en/shoes' },
      pages: {
        'https://example.com/en/shoes': { body: head(`<link rel="canonical" href="https://example.com/en/shoes">${SET}`) },
        'https://example.com/de/schuhe': { body: head(`<link rel="canonical" href="https://example.com/de/schuhe">${SET}`) },
      },
      expect: {
        scores: { seo: 100 },
        passes: ['canonical-missing', 'canonical-invalid', 'canonical-relative', 'canonical-multiple', 'canonical-other-host', 'hreflang-invalid-code', 'hreflang-missing-self', 'hreflang-missing-x-default', 'hreflang-duplicate', 'hreflang-target-error', 'hreflang-no-return'],
      },
    },
    {
      title: 'A canonical to a redirected noindex page, and hreflang without return links',
      input: { url: 'https://example.com/en/boots' },
      pages: {
        'https://example.com/en/boots': {
          body: head(
            '<link rel="canonical" href="https://example.com/boots-old">' +
              '<link rel="alternate" hreflang="en-UK" href="https://example.com/en/boots">' +
              '<link rel="alternate" hreflang="fr" href="https://example.com/fr/bottes">' +
              '<link rel="alternate" hreflang="es" href="https://example.com/es/botas">',
          ),
        },
        'https://example.com/boots-old': { status: 301, headers: { location: 'https://example.com/boots' }, body: '' },
        'https://example.com/boots': { body: head('', '<meta name="robots" content="noindex">') },
        'https://example.com/fr/bottes': { body: head('') },
      },
      expect: {
        fires: ['canonical-target-redirects', 'canonical-target-noindex', 'hreflang-invalid-code', 'hreflang-missing-x-default', 'hreflang-no-return', 'hreflang-target-error'],
        passes: ['canonical-other-host', 'canonical-relative', 'hreflang-missing-self', 'hreflang-duplicate'],
      },
    },
  ],
  run: async ({ url }, ctx) => {
    const facts = await ctx.fetchPage(url);
    const doc = parseHtml(isHtmlResponse(facts) ? facts.text : '', facts.finalUrl);
    const links = readLinks(doc, facts.headers, facts.finalUrl);
    const wanted = targetsOf(links, [facts.finalUrl, facts.requestedUrl]);
    const urls = [...new Set([...(wanted.canonical ? [wanted.canonical] : []), ...wanted.alternates.slice(0, MAX_ALTERNATES)])];
    const targets = new Map<string, FetchOutcome>();
    // A few at a time; a broken target is a finding, so fetchOutcome never throws but for a busy fetcher.
    for (let i = 0; i < urls.length; i += PARALLEL) {
      const batch = await Promise.all(urls.slice(i, i + PARALLEL).map((u) => fetchOutcome(ctx.fetchPage, u, { limits: TARGET_LIMITS })));
      for (const outcome of batch) targets.set(outcome.url, outcome);
    }
    // The status rule every page-reading report gets (page-analysis.ts): an error page is not indexed.
    const report = withHttpStatus(analyzeCanonicalHreflang(doc, facts, facts.finalUrl, targets), facts);
    const extra = pageNotes(facts, true);
    return { url, finalUrl: facts.finalUrl, status: facts.status, report: extra.length === 0 ? report : { ...report, notes: [...extra, ...report.notes], incomplete: true } };
  },
});
