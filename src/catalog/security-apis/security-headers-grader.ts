import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema, type UrlToolContext } from '../../core/define-url-tool.ts';
import { isServiceError } from '../../core/errors.ts';
import { OBSERVATORY_PROBE_ORIGIN, securityHeadersAnalyzer, type ObservatoryProbes, type ProbedFacts } from '../../analysis/analyzers/security-headers.ts';
import { analyzeOnWorker } from '../../analysis/analysis-pool.ts';
import type { PageFacts } from '../../analysis/page-facts.ts';

const page = '<!doctype html><html lang="en"><head><title>Account</title><script src="/app.js"></script></head><body><h1>Account</h1></body></html>';

const HARDENED: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'set-cookie': 'sessionid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax',
};

export const securityHeadersGraderTool = defineUrlTool({
  family: 'security-apis',
  slug: 'security-headers-grader',
  title: 'Security headers grader',
  description:
    'Fetches a page and grades its response the MDN HTTP Observatory way (start at 100, a modifier per test, bonuses only from 90 up, ' +
    'letter grade A+ to F): Content-Security-Policy, cookie flags, CORS, http-to-https redirection, Referrer-Policy, ' +
    'Strict-Transport-Security, subresource integrity of external scripts, X-Content-Type-Options, X-Frame-Options / frame-ancestors ' +
    'and Cross-Origin-Resource-Policy, with Cross-Origin-Opener-Policy checked beside them. As the Observatory does, it also requests the ' +
    'same path on http (the redirection test: an https URL whose http twin does not redirect loses 20) and an OPTIONS with an Origin ' +
    '(the CORS test: an Origin echoed with credentials is -50). Every failing test is a finding with the ' +
    'header to send; details.observatory gives the score, grade and each test\'s result and modifier.',
  aliases: ['security headers checker', 'http security headers', 'observatory grade', 'csp checker', 'header grader', 'securityheaders'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A hardened https page: A+',
      input: { url: 'https://example.com/account' },
      pages: { 'https://example.com/account': { headers: HARDENED, body: page } },
      expect: {
        scores: { 'security-headers': 100, overall: 100 },
        passes: ['security-csp', 'security-cookies', 'security-hsts', 'security-x-content-type-options', 'security-x-frame-options', 'security-referrer-policy', 'security-corp', 'security-coop'],
        result: { report: { details: { observatory: { grade: 'A+' } } } },
      },
    },
    {
      title: 'A bare http page: F',
      input: { url: 'http://example.com/account' },
      pages: { 'http://example.com/account': { body: page } },
      expect: {
        fires: ['security-csp', 'security-hsts', 'security-x-frame-options', 'security-x-content-type-options', 'security-redirection'],
        scores: { 'security-headers': 10 },
        result: { report: { details: { observatory: { score: 10, grade: 'F' } } } },
      },
    },
    {
      // The CORS test reads an OPTIONS sent with an Origin: this server echoes it with credentials.
      title: 'A hardened page that lets any site read it with the visitor\'s cookies: C',
      input: { url: 'https://example.com/account' },
      pages: {
        'https://example.com/account': {
          headers: { ...HARDENED, 'access-control-allow-origin': OBSERVATORY_PROBE_ORIGIN, 'access-control-allow-credentials': 'true' },
          body: page,
        },
      },
      expect: {
        fires: ['security-cors'],
        scores: { 'security-headers': 50 },
        result: { report: { details: { observatory: { score: 50, grade: 'C' } } } },
      },
    },
  ],
  // The Observatory's two side requests are made before the page is held, so a page slot never
  // waits on them; their failures are outcomes of their tests, never the tool's.
  run: async ({ url }, ctx) => {
    const observatoryProbes = await probe(ctx, url);
    return ctx.withPage(url, async (facts) => {
      const probed: ProbedFacts = { ...facts, observatoryProbes };
      const report = await analyzeOnWorker([securityHeadersAnalyzer], facts.text, probed, facts.finalUrl, ctx.signal);
      return { url, finalUrl: facts.finalUrl, status: facts.status, report };
    });
  },
});

async function probe(ctx: UrlToolContext, url: string): Promise<ObservatoryProbes> {
  const target = URL.canParse(url) ? new URL(url) : null;
  let http: ObservatoryProbes['http'] = null;
  if (target?.protocol === 'https:') {
    const plain = new URL(target.href);
    plain.protocol = 'http:';
    // An explicit https port has no http twin to guess: the default port is what the Observatory asks.
    plain.port = '';
    const facts = await attempt(ctx, plain.href, {});
    if (facts !== null) http = { requestedUrl: facts.requestedUrl, finalUrl: facts.finalUrl, redirects: facts.redirects };
  }
  const preflight = await attempt(ctx, url, { method: 'OPTIONS', headers: { origin: OBSERVATORY_PROBE_ORIGIN, 'access-control-request-method': 'GET' } });
  return { http, cors: preflight === null ? null : { origin: OBSERVATORY_PROBE_ORIGIN, headers: preflight.headers } };
}

async function attempt(ctx: UrlToolContext, url: string, options: Parameters<UrlToolContext['fetchPage']>[1]): Promise<PageFacts | null> {
  try {
    return await ctx.fetchPage(url, options);
  } catch (error) {
    if (!isServiceError(error) || ctx.signal?.aborted) throw error;
    return null;
  }
}
