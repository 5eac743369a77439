import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { isServiceError } from '../../core/errors.ts';
import { analyzeRedirects, redirectFailure } from '../../analysis/analyzers/redirect-chain.ts';

const moved = (location: string, status = 301) => ({ status, headers: { location }, body: '' });
const page = '<!doctype html><html lang="en"><title>Shoes</title><h1>Shoes</h1></html>';

export const redirectChainCheckerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'redirect-chain-checker',
  title: 'Redirect chain checker',
  description:
    'Follows the redirects from a URL (at most 10, each hop checked by the egress rules) and judges the chain: more than one ' +
    'hop, a loop or a chain past 10 hops (reported as a finding, not an error), temporary redirects (302/307), a hop from ' +
    'https to http, hops that cross to another host (www. aside), and a final status other than 200. details.hops lists ' +
    'each hop (url, status, Location as sent, resolved target); details.finalUrl and finalStatus where it ended.',
  aliases: ['redirect checker', 'redirect chain', '301 checker', 'redirect loop', 'http redirect trace'],
  credits: 2,
  input: z.object({ url: urlField.describe('The URL to follow: an absolute http or https URL (public addresses only)') }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A page that answers directly',
      input: { url: 'https://example.com/shoes' },
      pages: { 'https://example.com/shoes': { body: page } },
      expect: { scores: { 'http-status': 100, 'best-practices': 100, overall: 100 }, passes: ['redirect-chain', 'redirect-loop', 'redirect-temporary', 'redirect-https-downgrade', 'redirect-mixed-hosts', 'redirect-final-status'] },
    },
    {
      title: 'Two hops, one of them temporary, onto another host',
      input: { url: 'http://example.com/old' },
      pages: {
        'http://example.com/old': moved('https://example.com/old', 302),
        'https://example.com/old': moved('https://shop.example.com/new'),
        'https://shop.example.com/new': { body: page },
      },
      expect: { fires: ['redirect-chain', 'redirect-temporary', 'redirect-mixed-hosts'], passes: ['redirect-loop', 'redirect-https-downgrade', 'redirect-final-status'] },
    },
    {
      title: 'A redirect loop',
      input: { url: 'https://example.com/a' },
      pages: { 'https://example.com/a': moved('https://example.com/b'), 'https://example.com/b': moved('https://example.com/a') },
      expect: { fires: ['redirect-loop', 'redirect-chain'], result: { status: null } },
    },
    {
      title: 'An https page redirected to a missing http page',
      input: { url: 'https://example.com/promo' },
      pages: { 'https://example.com/promo': moved('http://example.com/promo-2024', 308) },
      expect: { fires: ['redirect-https-downgrade', 'redirect-final-status'], passes: ['redirect-chain', 'redirect-temporary'] },
    },
  ],
  run: async ({ url }, ctx) => {
    try {
      // GET with the configured caps (not HEAD, which some servers answer differently): the same response a browser gets.
      const facts = await ctx.fetchPage(url);
      return { url, finalUrl: facts.finalUrl, status: facts.status, report: analyzeRedirects({ requestedUrl: facts.requestedUrl, facts, failure: null }) };
    } catch (error) {
      // A loop or a broken Location is what this tool reports on, not a failure to analyse.
      if (!isServiceError(error) || error.error !== 'fetch_failed' || error.extra['phase'] !== 'redirects') throw error;
      const failure = redirectFailure(error.detail);
      return { url, finalUrl: failure.stoppedAt ?? url, status: null, report: analyzeRedirects({ requestedUrl: url, facts: null, failure }) };
    }
  },
});
