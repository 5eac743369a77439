import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { serpSnippetAnalyzer } from '../../analysis/analyzers/serp-snippet.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = (head: string) => `<!doctype html><html lang="en"><head>${head}</head><body><h1>Shoes</h1></body></html>`;
const LONG_TITLE = 'Acme Trail Running Shoes for Men and Women, Waterproof, Lightweight, Free Returns';

export const serpSnippetPreviewTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'serp-snippet-preview',
  title: 'SERP snippet preview',
  description:
    'Fetches a page and shows its title and meta description as a search result would: each measured in pixels (Arial ' +
    'glyph widths; title at 20 px within 600 px, description at 14 px within 920 px on desktop and 680 px on mobile) and ' +
    'cut at a word with " ..." where it does not fit. details.title and details.description give the text, the measured ' +
    'width, the limit and the shown text per device; a missing or truncated title or description is a finding.',
  aliases: ['google snippet preview', 'serp preview', 'search result preview', 'title pixel width', 'meta description length'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A title and description that fit',
      input: { url: 'https://example.com/trail' },
      pages: { 'https://example.com/trail': { body: page('<title>Acme Trail Shoes</title><meta name="description" content="Light trail running shoes with free returns.">') } },
      expect: { scores: { seo: 100 }, passes: ['meta-title-missing', 'serp-title-truncated', 'meta-description-missing', 'serp-description-truncated'] },
    },
    {
      title: 'A title cut on desktop, and no description',
      input: { url: 'https://example.com/long' },
      pages: { 'https://example.com/long': { body: page(`<title>${LONG_TITLE}</title>`) } },
      expect: { fires: ['serp-title-truncated', 'meta-description-missing'], passes: ['meta-title-missing'] },
    },
  ],
  htmlAnalyzers: [serpSnippetAnalyzer],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [serpSnippetAnalyzer]),
});
