import { z } from 'zod';
import { evaluateCspPolicy, MAX_CSP_LENGTH } from '../../analysis/analyzers/csp-evaluation.ts';
import { reportToMarkdown } from '../../analysis/report-markdown.ts';
import { defineUrlTool, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { invalidInput } from '../../core/errors.ts';

const ALL_PASS = [
  'csp-missing-script-src', 'csp-missing-object-src', 'csp-missing-base-uri', 'csp-unsafe-inline', 'csp-unsafe-eval', 'csp-wildcard-source',
  'csp-broad-scheme', 'csp-insecure-source', 'csp-bypassable-host', 'csp-missing-frame-ancestors', 'csp-report-only', 'csp-no-reporting',
  'csp-deprecated-directive', 'csp-unknown-directive', 'csp-duplicate-directive', 'csp-keyword-without-quotes', 'csp-short-nonce',
];

/**
 * The page URL only says where 'self' is and whether it is https; nothing is fetched. It is
 * `pageUrl`, not `url`, because `url` is what the fetching URL tools fetch (and what the
 * bad-input suite sends private addresses in).
 */
function pageUrlOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput('The pageUrl is not an absolute URL', [{ field: 'pageUrl', message: 'must be an absolute http or https URL, such as https://example.com/' }]);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidInput('The pageUrl is not http or https', [{ field: 'pageUrl', message: `must be an http or https URL, not ${parsed.protocol}` }]);
  }
  return parsed.href;
}

export const cspEvaluatorTool = defineUrlTool({
  family: 'security-apis',
  slug: 'csp-evaluator',
  title: 'CSP evaluator',
  description:
    'Judges a Content-Security-Policy you send (nothing is fetched), the way Google\'s CSP Evaluator does: missing script-src, ' +
    "object-src, base-uri and frame-ancestors; 'unsafe-inline' without a nonce, hash or 'strict-dynamic'; 'unsafe-eval'; wildcard, " +
    'http:, https: and data: sources for scripts and plugins; http sources (and \'self\' on an http page); allowlisted hosts that serve ' +
    'JSONP or AngularJS; report-only policies and missing reporting; deprecated, unknown (with a did-you-mean), duplicate and unquoted ' +
    'keywords; nonces under 16 characters. Each a finding with the header fix; details lists the directives and the MDN Observatory CSP result.',
  aliases: ['csp checker', 'content security policy evaluator', 'csp analyzer', 'csp validator', 'check csp header'],
  credits: 2,
  method: 'POST',
  input: z.object({
    csp: z.string().min(1).max(MAX_CSP_LENGTH).describe(`The policy: the Content-Security-Policy header value, up to ${MAX_CSP_LENGTH} characters`),
    pageUrl: z.string().min(1).max(2048).optional().describe("The page the policy protects (absolute http or https URL), to judge 'self' and https; never fetched"),
    reportOnly: z.boolean().default(false).describe('true when the policy is sent as Content-Security-Policy-Report-Only'),
  }),
  output: urlReportResultSchema,
  // Without a pageUrl the standard renderer would print an empty URL line.
  markdown: (result, title) => reportToMarkdown(title, result.finalUrl || 'none given (the policy alone was judged)', result.report),
  examples: [
    {
      title: 'A strict nonce policy',
      input: {
        csp: "script-src 'nonce-r4nd0mBase64Value22ch' 'strict-dynamic' https:; object-src 'none'; base-uri 'none'; frame-ancestors 'self'; report-to csp",
        pageUrl: 'https://example.com/',
      },
      pages: {},
      expect: { scores: { 'security-headers': 100, overall: 100 }, passes: ALL_PASS },
    },
    {
      title: 'An allowlist policy with unsafe-inline, a JSONP host and a typo',
      input: {
        csp: "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' https://ajax.googleapis.com http:; scrip-src self; plugin-types application/pdf",
        pageUrl: 'http://example.com/',
      },
      pages: {},
      expect: {
        fires: [
          'csp-missing-base-uri', 'csp-unsafe-inline', 'csp-unsafe-eval', 'csp-broad-scheme', 'csp-insecure-source', 'csp-bypassable-host',
          'csp-missing-frame-ancestors', 'csp-no-reporting', 'csp-deprecated-directive', 'csp-unknown-directive', 'csp-keyword-without-quotes',
        ],
        passes: ['csp-missing-script-src', 'csp-missing-object-src', 'csp-wildcard-source', 'csp-report-only', 'csp-duplicate-directive', 'csp-short-nonce'],
        scores: { 'security-headers': 41, overall: 41 },
      },
    },
    {
      title: 'A report-only policy with a wildcard and a short nonce',
      input: { csp: "script-src 'nonce-abc123' *; object-src 'none'; base-uri 'self'; frame-ancestors 'none'", reportOnly: true },
      pages: {},
      expect: {
        fires: ['csp-report-only', 'csp-wildcard-source', 'csp-short-nonce', 'csp-no-reporting'],
        passes: ['csp-missing-script-src', 'csp-unsafe-inline', 'csp-missing-base-uri', 'csp-missing-frame-ancestors'],
        result: { url: '', finalUrl: '', status: null },
      },
    },
  ],
  run: ({ csp, pageUrl, reportOnly }) => {
    const page = pageUrlOf(pageUrl);
    return { url: pageUrl ?? '', finalUrl: page ?? '', status: null, report: evaluateCspPolicy(csp, { pageUrl: page, reportOnly }) };
  },
});
