import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { imageAltAnalyzer } from '../../analysis/analyzers/image-alt.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Gallery</title></head><body>${body}</body></html>`;

export const imageAltAuditTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'image-alt-audit',
  title: 'Image alt text audit',
  description:
    'Fetches a page and audits the text alternative of every <img> (and image <input>): a missing alt attribute, a ' +
    'linked image whose empty alt leaves the link without a name, and alt text that is only a file name (IMG_0042.jpg). ' +
    'Images marked decorative (alt="", role="presentation" or aria-hidden) are counted, not flagged. Category accessibility.',
  aliases: ['alt text checker', 'missing alt attributes', 'image accessibility audit', 'img alt audit'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'Every image has a useful alternative',
      input: { url: 'https://example.com/gallery' },
      pages: { 'https://example.com/gallery': { body: page('<img src="/a.jpg" alt="Red trail shoe, side view"><img src="/line.png" alt=""><a href="/b"><img src="/b.jpg" alt="Blue shoe"></a>') } },
      expect: { scores: { accessibility: 100 }, passes: ['image-alt-missing', 'image-alt-empty-link', 'image-alt-filename'] },
    },
    {
      title: 'Missing alt, an unnamed image link and a file-name alt',
      input: { url: 'https://example.com/broken-gallery' },
      pages: { 'https://example.com/broken-gallery': { body: page('<img src="/a.jpg"><a href="/b"><img src="/b.jpg" alt=""></a><img src="/c.jpg" alt="IMG_0042.jpg">') } },
      expect: { fires: ['image-alt-missing', 'image-alt-empty-link', 'image-alt-filename'] },
    },
  ],
  htmlAnalyzers: [imageAltAnalyzer],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [imageAltAnalyzer]),
});
