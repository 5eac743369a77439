import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema, type UrlToolContext } from '../../core/define-url-tool.ts';
import { invalidInput, isServiceError } from '../../core/errors.ts';
import { analyzeCors, probeHeaders } from '../../analysis/analyzers/cors.ts';
import type { PageFacts } from '../../analysis/page-facts.ts';

/** A fixed, unregistrable origin (.example is reserved): no real site trusts it, and reruns compare. */
export const DEFAULT_PROBE_ORIGIN = 'https://cors-probe.example';
const ORIGIN = /^https?:\/\/[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;

const page = '<!doctype html><html lang="en"><head><title>API</title></head><body><h1>API</h1></body></html>';
const API = 'https://example.com/api/me';

export const corsCheckerTool = defineUrlTool({
  family: 'security-apis',
  slug: 'cors-checker',
  title: 'CORS checker',
  description:
    'Requests a URL three times as an untrusted site would: a GET with an Origin it has no reason to trust (default ' +
    `${DEFAULT_PROBE_ORIGIN}), a GET with Origin: null, and an OPTIONS preflight asking for PUT with an Authorization header. ` +
    'Findings: Access-Control-Allow-Origin reflecting the untrusted origin (high with Allow-Credentials: true), a * origin with ' +
    'credentials, the null origin allowed, a preflight that grants the untrusted origin the method and header, and a per-origin ' +
    'Allow-Origin without Vary: Origin. details.answers gives each request\'s status and CORS headers.',
  aliases: ['cors tester', 'cors misconfiguration', 'access-control-allow-origin checker', 'cors preflight check', 'cors scanner'],
  credits: 3,
  input: z.object({
    url: urlField,
    origin: z
      .string()
      .max(200)
      .regex(ORIGIN, 'an origin: http(s)://host[:port], no path')
      .optional()
      .describe(`The untrusted origin to send (scheme://host[:port]); default ${DEFAULT_PROBE_ORIGIN}. Use one the site must NOT trust.`),
  }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'An API that answers only its own site',
      input: { url: API },
      pages: { [API]: { headers: { 'access-control-allow-origin': 'https://www.example.com', vary: 'Origin' }, body: page } },
      expect: {
        scores: { 'security-headers': 100 },
        passes: ['cors-reflects-origin', 'cors-wildcard-with-credentials', 'cors-null-origin-allowed', 'cors-preflight-permissive', 'cors-vary-origin-missing'],
      },
    },
    {
      title: 'An API that allows the probe origin with credentials and grants every preflight',
      input: { url: API },
      pages: {
        [API]: {
          headers: {
            'access-control-allow-origin': DEFAULT_PROBE_ORIGIN,
            'access-control-allow-credentials': 'true',
            'access-control-allow-methods': '*',
            'access-control-allow-headers': 'authorization, content-type',
          },
          body: page,
        },
      },
      expect: { fires: ['cors-reflects-origin', 'cors-preflight-permissive', 'cors-vary-origin-missing'], passes: ['cors-wildcard-with-credentials', 'cors-null-origin-allowed'] },
    },
    {
      title: 'A wildcard with credentials, probed from a chosen origin',
      input: { url: 'https://cdn.example.com/data.json', origin: 'https://rival.example.com' },
      pages: { 'https://cdn.example.com/data.json': { headers: { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }, body: page } },
      expect: { fires: ['cors-wildcard-with-credentials'], passes: ['cors-reflects-origin', 'cors-null-origin-allowed', 'cors-vary-origin-missing'] },
    },
  ],
  run: async ({ url, origin = DEFAULT_PROBE_ORIGIN }, ctx: UrlToolContext) => {
    const probeOrigin = origin.toLowerCase();
    if (URL.canParse(url) && new URL(url).origin === probeOrigin) {
      throw invalidInput('origin is the URL\'s own origin', [{ field: 'origin', message: 'must be an origin the site should not trust, not its own' }]);
    }
    const headers = probeHeaders(probeOrigin);
    // The GET with the probe origin first: if the URL cannot be fetched at all, that error (invalid_url,
    // fetch_failed, ...) is the answer. The other two only add rules, so their failures become notes.
    const simple = await ctx.fetchPage(url, { headers: headers.origin });
    const [nullOrigin, preflight] = await Promise.all([
      secondary(ctx, url, { headers: headers.nullOrigin }),
      secondary(ctx, url, { method: 'OPTIONS', headers: headers.preflight }),
    ]);
    return { url, finalUrl: simple.finalUrl, status: simple.status, report: analyzeCors({ url, origin: probeOrigin, simple, nullOrigin, preflight }) };
  },
});

async function secondary(ctx: UrlToolContext, url: string, options: Parameters<UrlToolContext['fetchPage']>[1]): Promise<PageFacts | string> {
  try {
    return await ctx.fetchPage(url, options);
  } catch (error) {
    if (!isServiceError(error) || ctx.signal?.aborted) throw error;
    return `${error.error}: ${error.detail}`;
  }
}
