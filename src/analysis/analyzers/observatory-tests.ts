// The security-headers grader's rules, and the two Observatory tests that read more than the
// page's own response: redirection (the http twin) and CORS (a preflight with an Origin), with the
// probes that feed them. Apart from security-headers.ts so each file stays a screenful of tests.
import type { Fix } from '../findings.ts';
import { resolveUrl } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import type { RuleDefinition } from '../scoring.ts';

const rule = (id: string, title: string): RuleDefinition => ({ id, category: 'security-headers', weight: 1, severity: 'high', title });

export const SECURITY_RULES = {
  csp: rule('security-csp', 'Content-Security-Policy'),
  cookies: rule('security-cookies', 'Cookie flags'),
  cors: rule('security-cors', 'Cross-origin resource sharing'),
  redirection: rule('security-redirection', 'Redirection to https'),
  referrer: rule('security-referrer-policy', 'Referrer-Policy'),
  hsts: rule('security-hsts', 'Strict-Transport-Security'),
  sri: rule('security-sri', 'Subresource integrity'),
  nosniff: rule('security-x-content-type-options', 'X-Content-Type-Options'),
  frames: rule('security-x-frame-options', 'X-Frame-Options / frame-ancestors'),
  corp: rule('security-corp', 'Cross-Origin-Resource-Policy'),
  coop: rule('security-coop', 'Cross-Origin-Opener-Policy'),
} as const;

export const rules: readonly RuleDefinition[] = Object.values(SECURITY_RULES);

/**
 * What the Observatory requests beside the page (src/retriever/retriever.js), fetched by the
 * grader tool and handed in with the facts: the same path on http (its redirection test always
 * starts there, so an https URL whose http twin does not redirect still loses 20) and an OPTIONS
 * with an Origin (its CORS test reads only that answer: an echoed Origin with credentials is -50).
 */
export interface ObservatoryProbes {
  /** the http request's redirect chain; null when http could not be fetched at all (nothing to redirect) */
  http: Pick<PageFacts, 'requestedUrl' | 'finalUrl' | 'redirects'> | null;
  /** the preflight's Origin and response headers; null when it failed (the page's own headers are read instead) */
  cors: { origin: string; headers: Record<string, string> } | null;
}

/** Facts with the probes riding along (plain data: they cross to the analysis worker as they are). */
export interface ProbedFacts extends PageFacts {
  observatoryProbes?: ObservatoryProbes;
}

/** The Origin the CORS probe sends: a reserved name no site has reason to trust. */
export const OBSERVATORY_PROBE_ORIGIN = 'https://http-observatory.example';

export interface Outcome {
  rule: RuleDefinition;
  result: string;
  modifier: number;
  description: string;
  /** null: the test does not apply to this page (it scores 0 and is left out of the checks) */
  applicable?: boolean;
  finding?: { header: string; value?: string; fix: Fix };
}

export const headerFix = (header: string, value: string, acceptance: string): Fix => ({
  patchType: 'http-header',
  change: `Send the response header ${header}: ${value}`,
  acceptance,
  roleHint: 'config',
});

/**
 * CORS the Observatory's way (src/analyzer/tests/cors.js): * is public access (0) whatever
 * Access-Control-Allow-Credentials says, since browsers refuse credentials with a wildcard; only
 * an Allow-Origin that echoes the Origin the request sent, with credentials true, is universal
 * access (-50); any other origin is restricted access (0). sentOrigin is the Origin this fetch
 * sent, null when it sent none (then nothing can be an echo).
 */
export function corsOutcome(h: Record<string, string>, sentOrigin: string | null): Outcome {
  const base = { rule: SECURITY_RULES.cors };
  const origin = h['access-control-allow-origin']?.trim();
  if (origin === undefined) return { ...base, result: 'cross-origin-resource-sharing-not-implemented', modifier: 0, description: 'No Access-Control-Allow-Origin header.' };
  const credentials = h['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
  if (origin === '*') {
    return {
      ...base,
      result: 'cross-origin-resource-sharing-implemented-with-public-access',
      modifier: 0,
      description: credentials
        ? 'Content is readable from any origin; Access-Control-Allow-Credentials: true is ignored beside *, browsers never send cookies to a wildcard.'
        : 'Content is readable from any origin.',
    };
  }
  if (credentials && sentOrigin !== null && origin === sentOrigin) {
    const fix = headerFix('Access-Control-Allow-Origin', 'a fixed list of trusted origins (never the request\'s Origin echoed back with credentials)', 'Credentials are allowed only for named trusted origins.');
    return { ...base, result: 'cross-origin-resource-sharing-implemented-with-universal-access', modifier: -50, description: `Access-Control-Allow-Origin echoes the request's Origin (${origin}) with credentials allowed: any site can read the page with the visitor's cookies.`, finding: { header: 'access-control-allow-origin', value: origin, fix } };
  }
  return { ...base, result: 'cross-origin-resource-sharing-implemented-with-restricted-access', modifier: 0, description: `Content is readable from ${origin}.` };
}

/**
 * Whether http is sent on to https, and how (src/analyzer/tests/redirection.js): read from the
 * fetch itself when it started on http, else from the http probe; without either, not tested.
 */
export function redirectionOutcome(pageFacts: PageFacts, probes: ObservatoryProbes | undefined): Outcome {
  const base = { rule: SECURITY_RULES.redirection };
  let facts: Pick<PageFacts, 'requestedUrl' | 'finalUrl' | 'redirects'> = pageFacts;
  if (resolveUrl(pageFacts.requestedUrl, null)?.protocol !== 'http:') {
    if (probes === undefined) {
      return { ...base, result: 'redirection-not-tested', modifier: 0, description: 'The fetch started on https; the http redirect was not requested.', applicable: false };
    }
    if (probes.http === null) return { ...base, result: 'redirection-not-needed-no-http', modifier: 0, description: 'Nothing answers on http, so there is nothing to redirect.' };
    facts = probes.http;
  }
  const start = resolveUrl(facts.requestedUrl, null);
  if (start?.protocol !== 'http:') {
    return { ...base, result: 'redirection-not-tested', modifier: 0, description: 'The http redirect was not requested.', applicable: false };
  }
  const fix: Fix = { patchType: 'config', change: `Redirect http://${start.host}/ straight to https://${start.host}/ with a 301.`, acceptance: 'The first redirect from http goes to https on the same host and the final URL is https.', roleHint: 'config' };
  const finding = { header: 'location', fix };
  const final = resolveUrl(facts.finalUrl, null);
  if (facts.redirects.length === 0) return { ...base, result: 'redirection-missing', modifier: -20, description: 'The http URL does not redirect to https.', finding };
  if (final?.protocol !== 'https:') return { ...base, result: 'redirection-not-to-https', modifier: -20, description: 'The redirects end on http.', finding };
  const first = resolveUrl(facts.redirects[0]?.location ?? '', start);
  if (first?.protocol !== 'https:') return { ...base, result: 'redirection-not-to-https-on-initial-redirection', modifier: -10, description: 'The first redirect goes to another http URL.', finding };
  if (first.hostname !== start.hostname) return { ...base, result: 'redirection-off-host-from-http', modifier: -5, description: `The first redirect goes to another host (${first.hostname}), so HSTS for ${start.hostname} is never set.`, finding };
  return { ...base, result: 'redirection-to-https', modifier: 0, description: 'http redirects to https on the same host.' };
}
