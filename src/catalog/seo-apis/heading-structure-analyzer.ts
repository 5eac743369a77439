import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { headingStructureAnalyzer } from '../../analysis/analyzers/heading-structure.ts';
import { linkAuditAnalyzer } from '../../analysis/analyzers/link-audit.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Trail shoes</title></head><body>${body}</body></html>`;
const ANALYZERS = [headingStructureAnalyzer, linkAuditAnalyzer];

export const headingStructureAnalyzerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'heading-structure-analyzer',
  title: 'Headings and links analyzer',
  description:
    'Fetches a page and reads its headings and links: a missing or repeated <h1>, a skipped level (<h4> after <h2>), empty headings; ' +
    'Lighthouse\'s link-text (generic text such as "Read more", "click here") and crawlable-anchors (javascript: href, onclick ' +
    'without a real href) audits. Fixes name the element, a suggested link text taken from the page and the URL found in a ' +
    'link\'s script. details["heading-structure"].outline lists the headings; details["link-audit"] the failing links.',
  aliases: ['heading checker', 'h1 checker', 'outline checker', 'heading hierarchy', 'h1 h2 structure', 'link text checker', 'crawlable links', 'read more links', 'uncrawlable anchors'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A clean outline and descriptive, crawlable links',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: page('<h1>Shoes</h1><h2>Running</h2><h3>Trail</h3><h2>Walking</h2><a href="/shoes/trail">Trail running shoes</a>') } },
      expect: { scores: { seo: 100, overall: 100 }, passes: ['heading-missing-h1', 'heading-multiple-h1', 'heading-skipped-level', 'heading-empty', 'link-text', 'crawlable-anchors'] },
    },
    {
      title: 'No h1, a skipped level and an empty heading',
      input: { url: 'https://example.com/deals' },
      pages: { 'https://example.com/deals': { body: page('<h2>Welcome</h2><h4>Deals</h4><h3> </h3>') } },
      expect: { fires: ['heading-missing-h1', 'heading-skipped-level', 'heading-empty'], passes: ['heading-multiple-h1'] },
    },
    {
      title: 'A "Read more" link beside its headline',
      input: { url: 'https://example.com/blog' },
      pages: { 'https://example.com/blog': { body: page('<h1>Blog</h1><article><h2>How to lace trail shoes</h2><p>Three knots that hold.</p><a href="/blog/lacing">Read more</a></article>') } },
      expect: {
        fires: ['link-text'],
        passes: ['crawlable-anchors', 'heading-missing-h1'],
        result: { report: { details: { 'link-audit': { links: 1, genericLinks: [{ selector: 'a[href="/blog/lacing"]', line: 1, text: 'Read more', href: 'https://example.com/blog/lacing', suggestedText: 'How to lace trail shoes' }] } } } },
      },
    },
    {
      title: 'A link whose destination is only in its onclick',
      input: { url: 'https://example.com/sale' },
      pages: { 'https://example.com/sale': { body: page('<h1>Sale</h1><a href="javascript:void(0)" onclick="window.location=\'/sale/boots\'">Boots on sale</a>') } },
      expect: {
        fires: ['crawlable-anchors'],
        passes: ['link-text', 'heading-missing-h1'],
        result: { report: { details: { 'link-audit': { unfollowableLinks: [{ selector: 'a[href="javascript:void(0)"]', line: 1, problem: 'javascript', href: 'javascript:void(0)', text: 'Boots on sale', suggestedHref: '/sale/boots' }] } } } },
      },
    },
  ],
  htmlAnalyzers: ANALYZERS,
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, ANALYZERS),
});
