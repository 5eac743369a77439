import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { cookieReportAnalyzer } from '../../analysis/analyzers/cookie-report.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = '<!doctype html><html lang="en"><head><title>Sign in</title></head><body><h1>Sign in</h1></body></html>';

export const cookieFlagsCheckerTool = defineUrlTool({
  family: 'security-apis',
  slug: 'cookie-flags-checker',
  title: 'Cookie flags checker',
  description:
    'Fetches a URL and checks every Set-Cookie of the final response: Secure missing (or the cookie set over plain http), HttpOnly ' +
    'missing on session-like cookies (named like sess, sid, auth, token, login), SameSite missing or invalid, SameSite=None without ' +
    'Secure, the __Host- and __Secure- prefix rules, a Domain wider than the host, and a lifetime past the 400 days browsers allow. ' +
    'Findings are in the security-headers category; cookie values are never echoed. details.cookies lists each cookie\'s parsed ' +
    'flags. Cookies set by redirect responses are not recorded, and the notes say so when the URL redirected.',
  aliases: ['cookie checker', 'cookie security', 'set-cookie checker', 'httponly checker', 'samesite checker', 'secure cookie flags'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      title: 'A session cookie with Secure, HttpOnly and SameSite',
      input: { url: 'https://shop.example.com/login' },
      pages: {
        'https://shop.example.com/login': {
          headers: { 'set-cookie': 'sessionid=9f2c; Path=/; Secure; HttpOnly; SameSite=Lax' },
          body: page,
        },
      },
      expect: {
        scores: { 'security-headers': 100, overall: 100 },
        passes: ['cookie-secure-missing', 'cookie-httponly-missing', 'cookie-samesite-missing', 'cookie-samesite-none-without-secure', 'cookie-prefix-violation', 'cookie-domain-too-broad', 'cookie-long-expiry'],
      },
    },
    {
      title: 'A bare session cookie shared with every subdomain for ten years',
      input: { url: 'https://shop.example.com/login' },
      pages: {
        'https://shop.example.com/login': {
          headers: { 'set-cookie': 'auth_token=9f2c; Path=/; Domain=example.com; Max-Age=315360000' },
          body: page,
        },
      },
      expect: {
        fires: ['cookie-secure-missing', 'cookie-httponly-missing', 'cookie-samesite-missing', 'cookie-domain-too-broad', 'cookie-long-expiry'],
        passes: ['cookie-samesite-none-without-secure', 'cookie-prefix-violation'],
      },
    },
  ],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [cookieReportAnalyzer]),
});
