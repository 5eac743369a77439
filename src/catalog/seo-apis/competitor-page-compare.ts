import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema, type UrlToolContext } from '../../core/define-url-tool.ts';
import { ServiceError, isServiceError } from '../../core/errors.ts';
import { headingStructureAnalyzer } from '../../analysis/analyzers/heading-structure.ts';
import { imageAltAnalyzer } from '../../analysis/analyzers/image-alt.ts';
import { metaTagsAnalyzer } from '../../analysis/analyzers/meta-tags.ts';
import { mixedContentAnalyzer } from '../../analysis/analyzers/mixed-content.ts';
import { securityHeadersAnalyzer } from '../../analysis/analyzers/security-headers.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';
import { categoryComparisonSchema, comparePages, comparisonToMarkdown, sideSchema, type PageComparison } from '../../analysis/page-comparison.ts';
import type { UrlReportResult } from '../../core/define-url-tool.ts';

const ANALYZERS = [metaTagsAnalyzer, headingStructureAnalyzer, imageAltAnalyzer, mixedContentAnalyzer, securityHeadersAnalyzer];

const STRONG = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for every terrain | Acme</title>
<meta name="description" content="Lightweight trail running shoes with grippy soles, waterproof uppers and free returns within thirty days.">
</head>
<body><h1>Trail shoes</h1><h2>Waterproof</h2><img src="/a.jpg" alt="Acme trail shoe"></body></html>`;
const WEAK = '<!doctype html><html><head><title>Shoes</title></head><body><h2>Shoes</h2><img src="/a.jpg"></body></html>';

/** Either side's fetch failure, told as that side's. */
async function side(ctx: UrlToolContext, field: 'yourUrl' | 'competitorUrl', url: string): Promise<UrlReportResult> {
  try {
    return await fetchAndAnalyze(ctx, url, ANALYZERS);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    throw new ServiceError(error.status, error.error, `${field}: ${error.message}`, { detail: error.detail, headers: error.headers, extra: { ...error.extra, field }, cause: error });
  }
}

export const competitorPageCompareTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'competitor-page-compare',
  title: 'Competitor page comparison',
  description:
    'Fetches your page and a competitor\'s and runs the same analyzers on both (meta tags, heading structure, image alt ' +
    'text, mixed content, security headers), then compares them category by category: both scores, which page wins, and ' +
    'why (the rules the losing page fails that the winning page passes). Both full reports are included.',
  aliases: ['compare pages', 'competitor seo comparison', 'seo head to head', 'page vs page audit'],
  method: 'POST',
  credits: 4,
  input: z.object({
    yourUrl: urlField.describe('Your page: an absolute http or https URL'),
    competitorUrl: urlField.describe('The competitor\'s page: an absolute http or https URL'),
  }),
  output: z.object({
    yours: urlReportResultSchema,
    competitor: urlReportResultSchema,
    categories: z.array(categoryComparisonSchema),
    overall: z.object({ yours: z.number().int().nullable(), competitor: z.number().int().nullable(), winner: sideSchema }),
  }),
  examples: [
    {
      title: 'The competitor wins SEO and accessibility, and why',
      input: { yourUrl: 'https://example.com/shoes', competitorUrl: 'https://rival.example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: WEAK }, 'https://rival.example.com/shoes': { body: STRONG } },
      expect: { result: { overall: { winner: 'competitor' } } },
    },
    {
      title: 'The same page on both sides is a tie',
      input: { yourUrl: 'https://example.com/shoes', competitorUrl: 'https://rival.example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: STRONG }, 'https://rival.example.com/shoes': { body: STRONG } },
      expect: { result: { overall: { winner: 'tie' } } },
    },
  ],
  markdown: (result, title) => comparisonToMarkdown(result as PageComparison, title),
  async run({ yourUrl, competitorUrl }, ctx) {
    const [yours, competitor] = await Promise.all([side(ctx, 'yourUrl', yourUrl), side(ctx, 'competitorUrl', competitorUrl)]);
    return comparePages(yours, competitor);
  },
});
