import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { metaTagsAnalyzer } from '../../analysis/analyzers/meta-tags.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const TITLE = 'Running shoes for trail and road | Shop';
const DESCRIPTION = 'Lightweight running shoes for trail and road, with free returns within thirty days of delivery.';
const COMPLETE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLE}</title><meta name="description" content="${DESCRIPTION}">
<link rel="canonical" href="https://example.com/shoes">
<link rel="alternate" hreflang="en" href="https://example.com/shoes">
<link rel="alternate" hreflang="x-default" href="https://example.com/shoes">
<meta property="og:title" content="${TITLE}"><meta property="og:description" content="${DESCRIPTION}">
<meta property="og:image" content="https://example.com/img/shoes.jpg"><meta property="og:url" content="https://example.com/shoes">
<meta name="twitter:card" content="summary_large_image"></head><body><h1>Shoes</h1></body></html>`;

export const metaTagsAnalyzerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'meta-tags-analyzer',
  title: 'Meta tags analyzer',
  description:
    'Fetches a page and checks its head: title and meta description (present, one each, length within 10-60 and ' +
    '50-160 characters), canonical (present, absolute, same host, one), robots directives per crawler as Google reads them ' +
    '(meta robots and crawler metas, X-Robots-Tag with an optional "<crawler>:" prefix; noindex, none, unavailable_after ' +
    'with a past date: blocking every crawler or Googlebot is high, another crawler only low), viewport ' +
    '(present, zoom not disabled), charset (declared, UTF-8), the html lang attribute, hreflang alternates (valid codes, ' +
    'absolute, an x-default), Open Graph (og:title, og:description, og:image absolute, og:url) and the Twitter card. ' +
    'details holds every extracted value.',
  aliases: ['meta tag checker', 'seo meta tags', 'open graph checker', 'twitter card validator', 'head tags audit'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A complete head',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: COMPLETE } },
      expect: { scores: { seo: 100, overall: 100 }, passes: ['meta-title-missing', 'meta-description-missing', 'meta-canonical-missing', 'meta-og-missing', 'meta-viewport-missing'] },
    },
    {
      title: 'An empty head, served with X-Robots-Tag: noindex',
      input: { url: 'https://example.com/bare' },
      pages: { 'https://example.com/bare': { headers: { 'x-robots-tag': 'noindex' }, body: '<!doctype html><html><head></head><body><p>Hi</p></body></html>' } },
      expect: { fires: ['meta-title-missing', 'meta-description-missing', 'meta-canonical-missing', 'meta-robots-noindex', 'meta-viewport-missing', 'meta-lang-missing'] },
    },
    {
      title: 'A complete head whose unavailable_after date has passed (RFC 850, as Google reads it)',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { headers: { 'x-robots-tag': 'unavailable_after: Friday, 25-Jun-10 15:00:00 PST' }, body: COMPLETE } },
      expect: { fires: ['meta-robots-noindex'], passes: ['meta-robots-crawler-blocked', 'meta-title-missing'] },
    },
    {
      title: 'A complete head served with X-Robots-Tag: bingbot: noindex: Bing only, Google may index it',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { headers: { 'x-robots-tag': 'bingbot: noindex' }, body: COMPLETE } },
      expect: { fires: ['meta-robots-crawler-blocked'], passes: ['meta-robots-noindex'] },
    },
  ],
  htmlAnalyzers: [metaTagsAnalyzer],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [metaTagsAnalyzer]),
});
