// Security headers graded the MDN HTTP Observatory way: start at 100, one modifier per test
// (CSP, cookies, CORS, redirection, Referrer-Policy, HSTS, SRI, X-Content-Type-Options,
// X-Frame-Options, CORP; modifiers and grades from MDN's "Tests & Scoring" page), penalties
// first and bonuses only when the score is still 90 or more. COOP is checked beside them with no
// modifier (the Observatory does not grade it). Everything but SRI reads the response, so without
// facts (HTML passed directly) every test is unknown rather than guessed.
import { getDomain } from 'tldts';
import { makeFinding, type Evidence, type Finding, type Fix, type Report, type Severity } from '../findings.ts';
import { attr, parseHtml, resolveUrl, snippetOf, type HtmlDocument } from '../html-document.ts';
import { allSetCookies, type PageFacts } from '../page-facts.ts';
import {
  buildReport,
  failed,
  notApplicable,
  observatoryGrade,
  observatoryScore,
  passed,
  unknown,
  type Analyzer,
  type RuleDefinition,
} from '../scoring.ts';
import { evaluateCsp, parseCsp } from './csp-policy.ts';
import { cookieFailures, evaluateCookie, evaluateCookies, parseSetCookie } from './cookie-flags.ts';
import { corsOutcome, headerFix, redirectionOutcome, rules, SECURITY_RULES, type Outcome, type ProbedFacts } from './observatory-tests.ts';

export { OBSERVATORY_PROBE_ORIGIN, rules, SECURITY_RULES, type ObservatoryProbes, type ProbedFacts } from './observatory-tests.ts';

/**
 * The Observatory's HSTS threshold (src/analyzer/tests/strict-transport-security.js): six months
 * would be 15,768,000 s, but it takes 15,552,000 (180 days) because many sites send that, and its
 * grade is what this one must agree with.
 */
export const SIX_MONTHS = 15_552_000;
const HSTS_PASS = 'hsts-implemented-max-age-at-least-six-months';
const PRIVATE_REFERRER = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const UNSAFE_REFERRER = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade']);

export interface TestResult {
  rule: string;
  result: string;
  modifier: number;
  pass: boolean;
  description: string;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  if (facts === null) {
    return buildReport({
      categories: ['security-headers'],
      checks: rules.map(unknown),
      findings: [],
      notes: ['security headers need the response: HTML passed directly has no headers, cookies or redirects to grade'],
      details: { observatory: null },
    });
  }
  const pageUrl = resolveUrl(facts.finalUrl || url, null);
  const https = pageUrl?.protocol === 'https:';
  const h = facts.headers;
  const probes = (facts as ProbedFacts).observatoryProbes;
  const findings: Finding[] = [];
  const hsts = hstsOutcome(h['strict-transport-security'], https, facts.tls?.authorized ?? true);
  // The cookie test counts HSTS only when the HSTS test passes (max-age of at least six months), as the Observatory's does.
  const hstsValid = hsts.result === HSTS_PASS;

  // Cookies set by a redirect on the way count too, as the Observatory's cookie jar counts them.
  const setCookies = allSetCookies(facts);
  const cookieFlags = setCookies.map(parseSetCookie);
  const cookieOutcomes = cookieFlags.map((c) => evaluateCookie(c, https, hstsValid));
  cookieFlags.forEach((cookie, i) => {
    const outcome = cookieOutcomes[i];
    if (!outcome || outcome.modifier >= 0) return;
    // Every result the cookie reaches is said, worst first: fixing Secure alone must not look like enough.
    const failures = cookieFailures(cookie, https, hstsValid);
    const httpOnly = cookie.gradedSession || cookie.session;
    findings.push(
      makeFinding({
        rule: SECURITY_RULES.cookies.id,
        category: 'security-headers',
        severity: severityOf(Math.min(...failures.map((f) => f.modifier))),
        location: `cookie:${cookie.name}`,
        title: `Cookie ${cookie.name}: ${outcome.result}`,
        detail: failures.map((f) => `${f.description} (${f.modifier})`).join(' '),
        evidence: { header: 'set-cookie', value: truncate(setCookies[i] ?? '') },
        fix: {
          patchType: 'http-header',
          change: `Set the cookie ${cookie.name} with Secure${httpOnly ? '; HttpOnly' : ''}; SameSite=Lax (or Strict).`,
          acceptance: `Every Set-Cookie for ${cookie.name} carries Secure${httpOnly ? ', HttpOnly' : ''} and SameSite=Lax or Strict.`,
          roleHint: 'config',
        },
      }),
    );
  });
  const cookies = evaluateCookies(cookieOutcomes);

  const sri = sriOutcome(doc, pageUrl, findings);
  const outcomes: Outcome[] = [
    cspOutcome(cspValue(h, doc), https),
    { rule: SECURITY_RULES.cookies, ...cookies, applicable: cookieFlags.length > 0 },
    // The page GET sends no Origin, so no answer to it can be an echo: universal access needs the probe that sends one.
    probes?.cors ? corsOutcome(probes.cors.headers, probes.cors.origin) : corsOutcome(h, null),
    redirectionOutcome(facts, probes),
    referrerOutcome(h['referrer-policy']),
    hsts,
    sri,
    nosniffOutcome(h['x-content-type-options']),
    framesOutcome(h),
    corpOutcome(h['cross-origin-resource-policy']),
    coopOutcome(h['cross-origin-opener-policy']),
  ];
  for (const o of outcomes) {
    if (!o.finding) continue;
    const evidence: Evidence = { header: o.finding.header };
    if (o.finding.value !== undefined) evidence.value = truncate(o.finding.value);
    findings.push(
      makeFinding({
        rule: o.rule.id,
        category: 'security-headers',
        severity: severityOf(o.modifier),
        location: `header:${o.finding.header}`,
        title: `${o.rule.title}: ${o.result}`,
        detail: o.description,
        evidence,
        fix: o.finding.fix,
      }),
    );
  }

  const modifiers = outcomes.map((o) => o.modifier);
  const score = observatoryScore(modifiers);
  const tests: TestResult[] = outcomes.map((o) => ({
    rule: o.rule.id,
    result: o.result,
    modifier: o.modifier,
    pass: o.modifier >= 0 && o.finding === undefined,
    description: o.description,
  }));
  return buildReport({
    categories: ['security-headers'],
    checks: outcomes.map((o) => (o.applicable === false ? notApplicable(o.rule) : o.modifier >= 0 && !o.finding ? passed(o.rule) : failed(o.rule))),
    findings,
    rules,
    notes: doc.notes,
    scoreOverrides: { 'security-headers': score },
    details: { observatory: { score, grade: observatoryGrade(score), tests } },
  });
}

function severityOf(modifier: number): Severity {
  if (modifier <= -20) return 'high';
  if (modifier <= -10) return 'medium';
  if (modifier < 0) return 'low';
  return 'info';
}

function truncate(value: string): string {
  return value.length > 300 ? `${value.slice(0, 299)}…` : value;
}

/** The header's policy, or the page's <meta http-equiv> one (which the Observatory also reads). */
function cspValue(h: Record<string, string>, doc: HtmlDocument): string | undefined {
  if (h['content-security-policy'] !== undefined) return h['content-security-policy'];
  const meta = doc.byTag('meta').find((m) => attr(m, 'http-equiv')?.toLowerCase() === 'content-security-policy');
  return meta ? attr(meta, 'content') : undefined;
}

function cspOutcome(value: string | undefined, https: boolean): Outcome {
  const fix = headerFix(
    'Content-Security-Policy',
    "default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'",
    "The response has a Content-Security-Policy without 'unsafe-inline' or 'unsafe-eval' in script-src and with object-src restricted.",
  );
  if (value === undefined) {
    return { rule: SECURITY_RULES.csp, result: 'csp-not-implemented', modifier: -25, description: 'No Content-Security-Policy is sent.', finding: { header: 'content-security-policy', fix } };
  }
  const outcome = evaluateCsp(parseCsp(value), https);
  return {
    rule: SECURITY_RULES.csp,
    ...outcome,
    ...(outcome.modifier < 0 ? { finding: { header: 'content-security-policy', value, fix } } : {}),
  };
}

function hstsOutcome(value: string | undefined, https: boolean, certValid: boolean): Outcome {
  const fix = headerFix(
    'Strict-Transport-Security',
    'max-age=63072000; includeSubDomains',
    `The https response has Strict-Transport-Security with max-age of at least ${SIX_MONTHS}.`,
  );
  const finding = (v?: string) => ({ header: 'strict-transport-security', ...(v === undefined ? {} : { value: v }), fix });
  const base = { rule: SECURITY_RULES.hsts };
  if (!https) return { ...base, result: 'hsts-not-implemented-no-https', modifier: -20, description: 'HSTS cannot be set on a page served over http.', finding: finding(value) };
  if (!certValid) return { ...base, result: 'hsts-invalid-cert', modifier: -20, description: 'HSTS cannot take effect with an invalid certificate chain.', finding: finding(value) };
  if (value === undefined) return { ...base, result: 'hsts-not-implemented', modifier: -20, description: 'No Strict-Transport-Security header is sent.', finding: finding() };
  // A comma means the header was sent twice (joined); the Observatory refuses such a header as invalid.
  if (value.includes(',')) return { ...base, result: 'hsts-header-invalid', modifier: -20, description: 'Strict-Transport-Security is sent more than once.', finding: finding(value) };
  const maxAge = /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?\s*(?:;|$)/i.exec(value)?.[1];
  if (maxAge === undefined) return { ...base, result: 'hsts-header-invalid', modifier: -20, description: 'The Strict-Transport-Security header has no valid max-age.', finding: finding(value) };
  if (Number(maxAge) < SIX_MONTHS) {
    return { ...base, result: 'hsts-implemented-max-age-less-than-six-months', modifier: -10, description: `max-age is ${maxAge} seconds, under six months (${SIX_MONTHS}).`, finding: finding(value) };
  }
  return { ...base, result: HSTS_PASS, modifier: 0, description: `max-age is ${maxAge} seconds.` };
}

function nosniffOutcome(value: string | undefined): Outcome {
  const fix = headerFix('X-Content-Type-Options', 'nosniff', 'The response has X-Content-Type-Options: nosniff.');
  const base = { rule: SECURITY_RULES.nosniff };
  if (value === undefined) return { ...base, result: 'x-content-type-options-not-implemented', modifier: -5, description: 'No X-Content-Type-Options header is sent.', finding: { header: 'x-content-type-options', fix } };
  if (value.trim().toLowerCase() !== 'nosniff') {
    return { ...base, result: 'x-content-type-options-header-invalid', modifier: -5, description: 'X-Content-Type-Options is not nosniff.', finding: { header: 'x-content-type-options', value, fix } };
  }
  return { ...base, result: 'x-content-type-options-nosniff', modifier: 0, description: 'X-Content-Type-Options is nosniff.' };
}

function framesOutcome(h: Record<string, string>): Outcome {
  const base = { rule: SECURITY_RULES.frames };
  const csp = h['content-security-policy'];
  const policy = csp === undefined ? null : parseCsp(csp);
  if (policy?.has('frame-ancestors')) {
    return { ...base, result: 'x-frame-options-implemented-via-csp', modifier: 5, description: 'Framing is restricted by CSP frame-ancestors.' };
  }
  const value = h['x-frame-options'];
  const fix = headerFix('Content-Security-Policy', "frame-ancestors 'self' (or X-Frame-Options: SAMEORIGIN)", 'The response restricts framing with CSP frame-ancestors or X-Frame-Options DENY/SAMEORIGIN.');
  if (value === undefined) return { ...base, result: 'x-frame-options-not-implemented', modifier: -20, description: 'Any site can frame the page (clickjacking).', finding: { header: 'x-frame-options', fix } };
  const v = value.trim().toLowerCase();
  if (v === 'deny' || v === 'sameorigin') return { ...base, result: 'x-frame-options-sameorigin-or-deny', modifier: 0, description: `X-Frame-Options is ${value.trim()}.` };
  if (v.startsWith('allow-from ')) return { ...base, result: 'x-frame-options-allow-from-origin', modifier: 0, description: 'X-Frame-Options uses ALLOW-FROM.' };
  return { ...base, result: 'x-frame-options-header-invalid', modifier: -20, description: 'X-Frame-Options cannot be recognised.', finding: { header: 'x-frame-options', value, fix } };
}

function referrerOutcome(value: string | undefined): Outcome {
  const base = { rule: SECURITY_RULES.referrer };
  if (value === undefined) return { ...base, result: 'referrer-policy-not-implemented', modifier: 0, description: 'No Referrer-Policy header: browsers default to strict-origin-when-cross-origin.' };
  // The last policy the browser recognises wins.
  const known = value.split(',').map((v) => v.trim().toLowerCase()).filter((v) => PRIVATE_REFERRER.has(v) || UNSAFE_REFERRER.has(v));
  const last = known.at(-1);
  const fix = headerFix('Referrer-Policy', 'strict-origin-when-cross-origin', 'Referrer-Policy is no-referrer, same-origin, strict-origin or strict-origin-when-cross-origin.');
  if (last === undefined) return { ...base, result: 'referrer-policy-header-invalid', modifier: -5, description: 'Referrer-Policy cannot be recognised.', finding: { header: 'referrer-policy', value, fix } };
  if (UNSAFE_REFERRER.has(last)) return { ...base, result: 'referrer-policy-unsafe', modifier: -5, description: `Referrer-Policy ${last} leaks full URLs to other origins.`, finding: { header: 'referrer-policy', value, fix } };
  return { ...base, result: 'referrer-policy-private', modifier: 5, description: `Referrer-Policy is ${last}.` };
}

function corpOutcome(value: string | undefined): Outcome {
  const base = { rule: SECURITY_RULES.corp };
  if (value === undefined) return { ...base, result: 'corp-not-implemented', modifier: 0, description: 'No Cross-Origin-Resource-Policy (defaults to cross-origin).' };
  const v = value.trim().toLowerCase();
  if (v === 'same-origin') return { ...base, result: 'corp-implemented-with-same-origin', modifier: 10, description: 'CORP same-origin.' };
  if (v === 'same-site') return { ...base, result: 'corp-implemented-with-same-site', modifier: 10, description: 'CORP same-site.' };
  if (v === 'cross-origin') return { ...base, result: 'corp-implemented-with-cross-origin', modifier: 0, description: 'CORP cross-origin.' };
  const fix = headerFix('Cross-Origin-Resource-Policy', 'same-origin', 'Cross-Origin-Resource-Policy is same-origin, same-site or cross-origin.');
  return { ...base, result: 'corp-header-invalid', modifier: -5, description: 'Cross-Origin-Resource-Policy cannot be recognised.', finding: { header: 'cross-origin-resource-policy', value, fix } };
}

function coopOutcome(value: string | undefined): Outcome {
  const base = { rule: SECURITY_RULES.coop, modifier: 0 };
  const v = value?.trim().toLowerCase().split(';')[0]?.trim();
  if (v === 'same-origin' || v === 'same-origin-allow-popups') return { ...base, result: 'coop-implemented', description: `COOP ${v}.` };
  const fix = headerFix('Cross-Origin-Opener-Policy', 'same-origin', 'Cross-Origin-Opener-Policy is same-origin or same-origin-allow-popups.');
  return {
    ...base,
    result: value === undefined ? 'coop-not-implemented' : 'coop-unsafe-none',
    description: 'Pages this page opens, or that open it, share its browsing context group (no Observatory modifier).',
    finding: { header: 'cross-origin-opener-policy', ...(value === undefined ? {} : { value }), fix },
  };
}

// The Observatory's SRI results from best to worst (its `goodness` list): a later script only
// ever makes the result worse. Note its order puts "https without integrity" below "integrity
// over http", and we keep it, since the grade is its grade.
const SRI_ORDER = [
  'sri-implemented-and-all-scripts-loaded-securely',
  'sri-implemented-and-external-scripts-loaded-securely',
  'sri-implemented-but-external-scripts-not-loaded-securely',
  'sri-not-implemented-but-external-scripts-loaded-securely',
  'sri-not-implemented-and-external-scripts-not-loaded-securely',
] as const;
type SriResult = (typeof SRI_ORDER)[number];
const SRI_OUTCOMES: Record<SriResult, { modifier: number; description: string }> = {
  'sri-implemented-and-all-scripts-loaded-securely': { modifier: 5, description: 'Scripts carry integrity and load over https.' },
  'sri-implemented-and-external-scripts-loaded-securely': { modifier: 5, description: 'External scripts load over https with integrity.' },
  'sri-implemented-but-external-scripts-not-loaded-securely': { modifier: -20, description: 'External scripts have integrity but load over http or protocol-relative URLs.' },
  'sri-not-implemented-but-external-scripts-loaded-securely': { modifier: -5, description: 'External scripts load over https without integrity.' },
  'sri-not-implemented-and-external-scripts-not-loaded-securely': { modifier: -50, description: 'External scripts load over http or protocol-relative URLs without integrity.' },
};

/**
 * External scripts: loaded over https, and pinned with integrity, judged as the Observatory's
 * subresource-integrity test does: a script on the page's registrable domain (cdn.example.com
 * for www.example.com, by the public suffix list) is the site's own, whatever its scheme; a
 * protocol-relative src is foreign and not secure. Findings are per foreign script.
 */
function sriOutcome(doc: HtmlDocument, pageUrl: URL | null, findings: Finding[]): Outcome {
  const base = { rule: SECURITY_RULES.sri };
  const scripts = doc.byTag('script');
  if (scripts.length === 0) return { ...base, result: 'sri-not-implemented-but-no-scripts-loaded', modifier: 0, description: 'No script tags.' };
  const pageDomain = pageUrl ? getDomain(pageUrl.hostname) : null;
  let result: SriResult | null = null;
  let foreign = false;
  const worse = (next: SriResult) => {
    if (result === null || SRI_ORDER.indexOf(next) > SRI_ORDER.indexOf(result)) result = next;
  };
  for (const script of scripts) {
    const src = (attr(script, 'src') ?? '').trim();
    if (src === '') continue;
    const relativeProtocol = /^\/\/[^/]/.test(src);
    const fullUrl = /^https?:\/\//i.test(src);
    const target = resolveUrl(src, doc.baseUrl);
    const sameSite = relativeProtocol || !fullUrl || (target !== null && getDomain(target.hostname) === pageDomain);
    const ownOrigin = !fullUrl && !relativeProtocol ? true : sameSite && !relativeProtocol;
    const secureScheme = fullUrl ? target?.protocol === 'https:' : !relativeProtocol && pageUrl?.protocol === 'https:';
    const pinned = (attr(script, 'integrity') ?? '').trim() !== '';
    if (ownOrigin) {
      if (pinned && secureScheme && result === null) result = 'sri-implemented-and-all-scripts-loaded-securely';
      continue;
    }
    foreign = true;
    if (pinned && secureScheme) continue;
    worse(pinned ? 'sri-implemented-but-external-scripts-not-loaded-securely' : secureScheme ? 'sri-not-implemented-but-external-scripts-loaded-securely' : 'sri-not-implemented-and-external-scripts-not-loaded-securely');
    const location = doc.locate(script);
    const shown = target?.href ?? src;
    findings.push(
      makeFinding({
        rule: SECURITY_RULES.sri.id,
        category: 'security-headers',
        severity: secureScheme ? 'low' : 'high',
        location,
        title: secureScheme ? 'External script without integrity' : 'External script loaded without https',
        detail: `The script from ${target?.origin ?? src} ${secureScheme ? 'has no integrity attribute' : 'is not loaded over https'}; whoever controls it controls the page.`,
        evidence: { selector: location, snippet: snippetOf(script), line: doc.lineOf(script), url: shown },
        fix: {
          patchType: 'html',
          change: `Load ${shown.replace(/^http:/, 'https:').replace(/^\/\//, 'https://')} over https with integrity="sha384-…" and crossorigin="anonymous".`,
          acceptance: `The script at ${location} has an https src and an integrity attribute.`,
          roleHint: 'edit',
        },
      }),
    );
  }
  const final: SriResult | 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin' =
    result ?? (foreign ? 'sri-implemented-and-external-scripts-loaded-securely' : 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin');
  if (final === 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin') return { ...base, result: final, modifier: 0, description: 'All scripts come from the site itself.' };
  return { ...base, result: final, ...SRI_OUTCOMES[final] };
}

export const securityHeadersAnalyzer: Analyzer = {
  id: 'security-headers',
  categories: ['security-headers'],
  rules,
  analyze,
  analyzeDocument,
};
