import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { structuredDataAnalyzer } from '../../analysis/analyzers/structured-data.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = (jsonLd: string) =>
  `<!doctype html><html lang="en"><head><title>Trail shoes</title><script type="application/ld+json">${jsonLd}</script></head><body><h1>Trail shoes</h1></body></html>`;

const GOOD_PRODUCT = JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Trail runner 2',
  image: 'https://example.com/img/trail-runner.jpg',
  description: 'A light trail shoe.',
  brand: { '@type': 'Brand', name: 'Acme' },
  sku: 'TR-2',
  offers: { '@type': 'Offer', price: '89.90', priceCurrency: 'EUR', availability: 'https://schema.org/InStock', url: 'https://example.com/shoes/trail-runner', priceValidUntil: '2030-12-31' },
});

const BAD_PRODUCT = JSON.stringify({
  '@type': 'Product',
  image: '/img/trail-runner.jpg',
  offers: { '@type': 'Offer', price: '€89,90', priceCurrency: 'EUR', priceValidUntil: '31/12/2030' },
});

export const structuredDataValidatorTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'structured-data-validator',
  title: 'Structured data (JSON-LD) validator',
  description:
    'Fetches a page and checks every <script type="application/ld+json"> block (at most 100, 1 MB each): JSON syntax errors with ' +
    'their line and column, a missing or non-schema.org @context, a missing @type, and for Google\'s rich-result types (Product, Offer, ' +
    'AggregateRating, Review, Article/NewsArticle/BlogPosting, BreadcrumbList, Organization, LocalBusiness, FAQPage, Event, Recipe, ' +
    'VideoObject, WebSite/SearchAction) the required properties (missing: high, medium when nested) and recommended ones (missing: low), ' +
    'plus value formats: prices as plain numbers, ISO 8601 dates, absolute URLs, ISO 4217 currencies. @graph, arrays and nested items are ' +
    'walked. details.items lists every item with its types and properties; microdata (itemscope) and RDFa (typeof) items are counted, not validated.',
  aliases: ['json-ld validator', 'schema markup validator', 'rich results test', 'schema.org checker', 'structured data testing tool'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A complete Product with its Offer',
      input: { url: 'https://shop.example.com/shoes/trail-runner' },
      pages: { 'https://shop.example.com/shoes/trail-runner': { body: page(GOOD_PRODUCT) } },
      expect: {
        scores: { seo: 100 },
        passes: ['structured-data-invalid-json', 'structured-data-missing-context', 'structured-data-missing-required', 'structured-data-missing-recommended', 'structured-data-invalid-value'],
      },
    },
    {
      title: 'No @context, no name, a relative image, a price with a currency sign and a non-ISO date',
      input: { url: 'https://shop.example.com/shoes/cheap' },
      pages: { 'https://shop.example.com/shoes/cheap': { body: page(BAD_PRODUCT) } },
      expect: {
        fires: ['structured-data-missing-context', 'structured-data-missing-required', 'structured-data-missing-recommended', 'structured-data-invalid-value'],
        passes: ['structured-data-invalid-json', 'structured-data-missing-type'],
      },
    },
    {
      title: 'A JSON-LD block with a trailing comma',
      input: { url: 'https://example.com/about' },
      pages: { 'https://example.com/about': { body: page('{"@context": "https://schema.org", "@type": "Organization", "name": "Acme",}') } },
      expect: { fires: ['structured-data-invalid-json'] },
    },
  ],
  htmlAnalyzers: [structuredDataAnalyzer],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [structuredDataAnalyzer]),
});
