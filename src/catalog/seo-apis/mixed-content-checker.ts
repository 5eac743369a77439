import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { mixedContentAnalyzer } from '../../analysis/analyzers/mixed-content.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const SECURE_PAGE = `<!doctype html><html lang="en"><head><title>Shop</title>
<link rel="stylesheet" href="/site.css"><script src="https://cdn.example.com/app.js"></script></head>
<body><img src="/logo.png" srcset="/logo.png 1x, https://cdn.example.com/logo@2x.png 2x"><form action="/search"><input name="q"></form></body></html>`;

const MIXED_PAGE = `<!doctype html><html lang="en"><head><title>Shop</title>
<script src="http://cdn.example.com/app.js"></script>
<style>.hero { background: url(http://cdn.example.com/hero.jpg) }</style></head>
<body><img src="http://cdn.example.com/a.png"><iframe src="http://www.example.com/embed"></iframe>
<form action="http://shop.example.com/login"><input name="user"></form></body></html>`;

export const mixedContentCheckerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'mixed-content-checker',
  title: 'Mixed content checker',
  description:
    'Fetches an https page and lists every http:// reference it makes, sorted the way browsers treat them: blockable ' +
    '(scripts, stylesheets, iframes, objects, fonts, CSS @import, forms posting to http) which browsers refuse, and ' +
    'upgradeable (images, media, srcset candidates, CSS url()) which browsers upgrade or warn about. An http page is ' +
    'itself a finding. details.resources lists each reference with its kind, how it is used and its element.',
  aliases: ['mixed content', 'insecure content', 'http resources on https', 'ssl mixed content scan'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'An https page with only secure references',
      input: { url: 'https://example.com/' },
      pages: { 'https://example.com/': { body: SECURE_PAGE } },
      expect: { scores: { 'mixed-content': 100 }, passes: ['mixed-content-insecure-page', 'mixed-content-blockable', 'mixed-content-upgradeable'] },
    },
    {
      title: 'Blockable and upgradeable http references on an https page',
      input: { url: 'https://shop.example.com/' },
      pages: { 'https://shop.example.com/': { body: MIXED_PAGE } },
      expect: { fires: ['mixed-content-blockable', 'mixed-content-upgradeable'], passes: ['mixed-content-insecure-page'] },
    },
  ],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [mixedContentAnalyzer]),
});
