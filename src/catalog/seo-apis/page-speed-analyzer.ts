import { z } from 'zod';
import { defineUrlTool, urlField } from '../../core/define-url-tool.ts';
import { pageSpeedAnalyzer } from '../../analysis/analyzers/page-speed.ts';
import { LAB_TOOL_TIMEOUT_MS, pageSpeedMarkdown, pageSpeedResultSchema, proxyAndLab } from '../../analysis/lab/page-speed-lab.ts';
import { fetchAndAnalyzeWithSizes } from '../../analysis/page-speed-subresources.ts';

// The fast page stays under the 1,400-byte compression threshold (the examples' server never
// compresses), sends a Cache-Control header, defers its script, sizes its images and lazy-loads
// the one past the first three.
const FAST_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes</title>' +
  '<style>body{font-family:sans-serif}</style><script src="/app.js" defer></script>' +
  '<link rel="stylesheet" href="/print.css" media="print"></head><body><h1>Trail shoes</h1>' +
  [1, 2, 3, 4]
    .map((n) => `<img src="/shoe-${n}.jpg" alt="Shoe ${n}" width="320" height="240"${n > 3 ? ' loading="lazy"' : ''}>`)
    .join('') +
  '</body></html>';

// The hero page lazy-loads its first, large image (the likely LCP element), which weighs 1.5 MB.
const HERO_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Summer above the clouds</title></head><body>' +
  '<img src="/hero.jpg" alt="A ridge at dawn" width="1600" height="1000" loading="lazy"><h1>A summer above the clouds</h1>' +
  '<p>Ridges at dawn, glacier crossings and the huts along the way.</p></body></html>';

// The heavy page blocks the render with two scripts and a stylesheet, leaves its images unsized
// and eager, and, at several kilobytes of repetitive HTML, is worth compressing.
const HEAVY_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>All deals</title>' +
  '<script src="https://cdn.example.com/jquery.js"></script><script src="/tracking.js"></script>' +
  '<link rel="stylesheet" href="/styles.css"></head><body><h1>All deals</h1>' +
  Array.from(
    { length: 12 },
    (_, i) => `<div class="card"><img src="/deal-${i + 1}.jpg" alt="Deal ${i + 1}"><p class="price">Deal ${i + 1}: save up to 40% on trail shoes this week only</p></div>`,
  ).join('') +
  '</body></html>';

export const pageSpeedAnalyzerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'page-speed-analyzer',
  title: 'Page speed analyzer',
  description:
    'Fetches a page and estimates its speed without a browser: a proxy, not a lab or field measurement (details.method is "proxy"). ' +
    'It also fetches the sizes of a few resources that decide the estimate (at most 8: the likely LCP image, the render-blocking ' +
    'scripts and stylesheets, then other scripts) and estimates FCP, LCP, TBT (script bytes standing for main-thread work), CLS ' +
    '(unsized images in view, content a script inserts after load) and Speed Index at Lighthouse\'s desktop simulation ' +
    '(40 ms round trip, 10 Mbps, CPU 1x), scored on Lighthouse\'s curves and weights (details.estimates, which names the sizes it ' +
    'assumed). Each finding says what it costs (milliseconds, bytes), its severity and its check\'s score follow that cost: ' +
    'render-blocking resources (classic scripts in the head without async/defer, screen stylesheets, CSS @import), a lazy-loaded ' +
    'LCP image, an image heavier than its displayed size needs, scripts large enough to block the main thread, late-inserted ' +
    'content, images without width and height, images past the first three not lazy-loaded, DOM size (Lighthouse bands: warn ' +
    'above 800 elements, fail above 1,400; depth above 32), HTML bytes (over 100 KiB on the wire or 500 KiB decoded), missing ' +
    'compression (text over 1,400 bytes that gzip shrinks by 10% or more), missing caching headers, time to first byte above ' +
    '600 ms, and more than 50 referenced resources. With mode=lab the result also has `lab`: the page loaded in headless ' +
    'Chromium, every request through the same egress-safe fetcher, with measured LCP, CLS, total blocking time, requests, bytes ' +
    'and the requests refused; the performance score and the findings for poor LCP, CLS and TBT are then the lab\'s ' +
    '(details.method "lab"), the HTML rules beside them.',
  aliases: ['page speed test', 'pagespeed', 'site speed checker', 'render blocking checker', 'core web vitals proxy', 'website performance'],
  credits: 2,
  input: z.object({
    url: urlField,
    mode: z.enum(['proxy', 'lab']).default('proxy').describe('proxy: estimate from the HTML and headers only; lab: also load the page in Chromium and measure it'),
  }),
  output: pageSpeedResultSchema,
  limits: { timeoutMs: LAB_TOOL_TIMEOUT_MS },
  markdown: pageSpeedMarkdown,
  examples: [
    {
      title: 'A fast page: deferred script, sized and lazy images, cached',
      input: { url: 'https://example.com/trail' },
      pages: { 'https://example.com/trail': { headers: { 'cache-control': 'public, max-age=300' }, body: FAST_PAGE } },
      expect: {
        passes: [
          'page-speed-render-blocking',
          'page-speed-unsized-images',
          'page-speed-offscreen-images',
          'page-speed-dom-size',
          'page-speed-dom-depth',
          'page-speed-html-bytes',
          'page-speed-compression',
          'page-speed-caching-headers',
          'page-speed-request-count',
        ],
        result: { status: 200, report: { details: { method: 'proxy' } } },
      },
    },
    {
      title: 'A heavy page: render-blocking scripts, unsized eager images, no compression or caching headers',
      input: { url: 'https://shop.example.com/deals' },
      pages: { 'https://shop.example.com/deals': { body: HEAVY_PAGE } },
      expect: {
        fires: [
          'page-speed-render-blocking',
          'page-speed-unsized-images',
          'page-speed-offscreen-images',
          'page-speed-compression',
          'page-speed-caching-headers',
        ],
        passes: ['page-speed-dom-size', 'page-speed-dom-depth', 'page-speed-html-bytes', 'page-speed-request-count'],
      },
    },
    {
      title: 'A lazy-loaded 1.5 MB hero image: its weight fetched and reported, LCP held back',
      input: { url: 'https://blog.example.com/summer' },
      pages: {
        'https://blog.example.com/summer': { headers: { 'cache-control': 'max-age=60' }, body: HERO_PAGE },
        'https://blog.example.com/hero.jpg': { headers: { 'content-type': 'image/jpeg', 'cache-control': 'max-age=31536000' }, body: 'J'.repeat(1536 * 1024) },
      },
      expect: {
        fires: ['page-speed-lcp-lazy', 'page-speed-image-weight'],
        passes: ['page-speed-render-blocking', 'page-speed-unsized-images', 'page-speed-compression', 'page-speed-caching-headers'],
        result: { status: 200, report: { details: { method: 'proxy' } } },
      },
    },
  ],
  run: ({ url, mode }, ctx) => (mode === 'lab' ? proxyAndLab(ctx, url, [pageSpeedAnalyzer]) : fetchAndAnalyzeWithSizes(ctx, url, [pageSpeedAnalyzer])),
});
