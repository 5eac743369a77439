import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { headingStructureAnalyzer } from '../../analysis/analyzers/heading-structure.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Trail shoes</title></head><body>${body}</body></html>`;

export const headingStructureAnalyzerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'heading-structure-analyzer',
  title: 'Heading structure analyzer',
  description:
    'Fetches a page and reads its h1-h6 outline in document order: a missing <h1>, more than one <h1>, a level skipped on the ' +
    'way down (an <h4> after an <h2>) and empty headings, each a finding with the element, its line and the fix. ' +
    'details.outline lists every heading (level, text, selector, line).',
  aliases: ['heading checker', 'h1 checker', 'outline checker', 'heading hierarchy', 'h1 h2 structure'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A clean outline',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: page('<h1>Shoes</h1><h2>Running</h2><h3>Trail</h3><h2>Walking</h2>') } },
      expect: { scores: { seo: 100, overall: 100 }, passes: ['heading-missing-h1', 'heading-multiple-h1', 'heading-skipped-level', 'heading-empty'] },
    },
    {
      title: 'No h1, a skipped level and an empty heading',
      input: { url: 'https://example.com/deals' },
      pages: { 'https://example.com/deals': { body: page('<h2>Welcome</h2><h4>Deals</h4><h3> </h3>') } },
      expect: { fires: ['heading-missing-h1', 'heading-skipped-level', 'heading-empty'], passes: ['heading-multiple-h1'] },
    },
  ],
  htmlAnalyzers: [headingStructureAnalyzer],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [headingStructureAnalyzer]),
});
