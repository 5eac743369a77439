import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema } from '../../core/define-url-tool.ts';
import { tlsCertificateAnalyzer } from '../../analysis/analyzers/tls-certificate.ts';
import { fetchAndAnalyze } from '../../analysis/page-analysis.ts';

const page = '<!doctype html><html lang="en"><head><title>Checkout</title></head><body><h1>Checkout</h1></body></html>';

// The URL is fetched as given and redirects are followed: the rules judge the connection the
// visitor ends on. An http URL that redirects to https is judged on the https hop; one that stays
// on http is the finding tls-not-https (the tool does not guess an https:// form of its own).
export const tlsCertificateCheckerTool = defineUrlTool({
  family: 'security-apis',
  slug: 'tls-certificate-checker',
  title: 'TLS certificate checker',
  description:
    'Fetches a URL (following redirects) and judges the TLS connection of the final response: not https at all (tls-not-https), ' +
    'a protocol older than TLS 1.2, a weak cipher suite (RC4, DES/3DES, NULL, anonymous, MD5), a chain that does not verify, ' +
    'a missing intermediate certificate, a certificate that does not name the host, expired or not yet valid, expiring within ' +
    '14 days (high) or 30 days (medium), and Strict-Transport-Security missing or under six months on the https response. ' +
    'details.tls gives the protocol, cipher, chain (subject, issuer, validity, names), daysLeft and the verify error.',
  aliases: ['ssl checker', 'ssl certificate checker', 'certificate expiry checker', 'tls checker', 'https checker', 'hsts checker'],
  credits: 2,
  input: z.object({ url: urlField }),
  output: urlReportResultSchema,
  examples: [
    {
      // The example sites' certificate is a 30-day one, so tls-certificate-expiring fires (medium) even here.
      title: 'A trusted certificate, TLS 1.3 and a two-year HSTS',
      input: { url: 'https://shop.example.com/checkout' },
      pages: { 'https://shop.example.com/checkout': { headers: { 'strict-transport-security': 'max-age=63072000; includeSubDomains' }, body: page } },
      expect: {
        fires: ['tls-certificate-expiring'],
        passes: ['tls-not-https', 'tls-protocol-outdated', 'tls-weak-cipher', 'tls-chain-untrusted', 'tls-missing-intermediate', 'tls-hostname-mismatch', 'tls-certificate-expired', 'tls-certificate-not-yet-valid', 'tls-hsts-missing', 'tls-hsts-short-max-age'],
        result: { report: { details: { tls: { https: true, protocol: 'TLSv1.3', authorized: true, authorizationError: null } } } },
      },
    },
    {
      title: 'A page served over plain http',
      input: { url: 'http://shop.example.com/checkout' },
      pages: { 'http://shop.example.com/checkout': { body: page } },
      expect: { fires: ['tls-not-https'], scores: { tls: 0, overall: 0 }, result: { report: { details: { tls: { https: false, protocol: null } } } } },
    },
    {
      title: 'https with a one-day HSTS',
      input: { url: 'https://www.example.com/' },
      pages: { 'https://www.example.com/': { headers: { 'strict-transport-security': 'max-age=86400' }, body: page } },
      expect: { fires: ['tls-hsts-short-max-age'], passes: ['tls-hsts-missing', 'tls-hostname-mismatch', 'tls-chain-untrusted'] },
    },
  ],
  run: ({ url }, ctx) => fetchAndAnalyze(ctx, url, [tlsCertificateAnalyzer]),
});
