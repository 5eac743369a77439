import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type ObservatoryProbes, type ProbedFacts, type TestResult } from '../../../src/analysis/analyzers/security-headers.ts';
import type { Report } from '../../../src/analysis/findings.ts';
import { assertValid, factsFor, findingIds, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/';
const PAGE = '<!doctype html><html><head><script src="/app.js"></script></head><body><h1>Shop</h1></body></html>';

const STRONG_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

interface Observatory {
  score: number;
  grade: string;
  tests: TestResult[];
}

const observatory = (report: Report) => report.details.observatory as Observatory;
const test = (report: Report, rule: string) => {
  const found = observatory(report).tests.find((t) => t.rule === rule);
  assert.ok(found, rule);
  return `${found.result} ${found.modifier}`;
};

/** The strong setup with some headers replaced (undefined removes one). */
function withHeaders(changes: Record<string, string | undefined>, options: Parameters<typeof factsFor>[1] = {}) {
  const headers: Record<string, string> = { ...STRONG_HEADERS };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return factsFor(URL, { ...options, headers });
}

describe('security-headers analyzer', () => {
  it('without response facts every test is unknown, and nothing is guessed', () => {
    const report = analyze(PAGE, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, {});
    assert.deepEqual(report.statuses, { 'security-headers': 'unknown', overall: 'unknown' });
    assert.equal(report.incomplete, true);
    assert.ok(report.checks.every((c) => c.result === 'unknown'));
  });

  it('a strong setup earns every bonus: 135, A+, score 100, good, no findings', () => {
    const report = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: ['sessionid=abc; Path=/; Secure; HttpOnly; SameSite=Lax'] }), URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual({ score: observatory(report).score, grade: observatory(report).grade }, { score: 135, grade: 'A+' });
    assert.deepEqual(report.scores, { 'security-headers': 100, overall: 100 });
    assert.deepEqual(report.statuses, { 'security-headers': 'good', overall: 'good' });
    assert.equal(test(report, 'security-csp'), 'csp-implemented-with-no-unsafe-default-src-none 10');
    assert.equal(test(report, 'security-x-frame-options'), 'x-frame-options-implemented-via-csp 5');
    assert.equal(test(report, 'security-cookies'), 'cookies-secure-with-httponly-sessions-and-samesite 5');
    assert.equal(test(report, 'security-referrer-policy'), 'referrer-policy-private 5');
    assert.equal(test(report, 'security-corp'), 'corp-implemented-with-same-origin 10');
    assert.equal(test(report, 'security-sri'), 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin 0');
    assert.equal(report.checks.find((c) => c.rule === 'security-redirection')?.result, 'not_applicable');
  });

  it('a bare page scores 0, F, poor, with one finding per failed header at its severity', () => {
    const html = '<html><head><script src="http://cdn.test/lib.js"></script></head><body></body></html>';
    const report = analyze(html, factsFor(URL, { setCookies: ['sessionid=abc; Path=/'] }), URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), [
      'security-cookies',
      'security-coop',
      'security-csp',
      'security-hsts',
      'security-sri',
      'security-x-content-type-options',
      'security-x-frame-options',
    ]);
    const severities = Object.fromEntries(report.findings.map((f) => [f.rule, f.severity]));
    assert.deepEqual(severities, {
      'security-cookies': 'high',
      'security-coop': 'info',
      'security-csp': 'high',
      'security-hsts': 'high',
      'security-sri': 'high',
      'security-x-content-type-options': 'low',
      'security-x-frame-options': 'high',
    });
    assert.deepEqual({ score: observatory(report).score, grade: observatory(report).grade }, { score: 0, grade: 'F' });
    assert.deepEqual(report.statuses, { 'security-headers': 'poor', overall: 'poor' });
    const hsts = onlyFinding(report, 'security-hsts');
    assert.equal(hsts.evidence.header, 'strict-transport-security');
    assert.deepEqual({ patchType: hsts.fix.patchType, roleHint: hsts.fix.roleHint }, { patchType: 'http-header', roleHint: 'config' });
    assert.equal(onlyFinding(report, 'security-cookies').evidence.value, 'sessionid=abc; Path=/');
    assert.equal(onlyFinding(report, 'security-sri').evidence.url, 'http://cdn.test/lib.js');
  });

  it('grades CSP policies as the Observatory does', () => {
    const cases: Array<[string, string]> = [
      ["script-src 'self' 'unsafe-inline'; object-src 'none'", 'csp-implemented-with-unsafe-inline -20'],
      ["default-src 'self'; script-src https:", 'csp-implemented-with-unsafe-inline -20'],
      ["script-src 'self'", 'csp-implemented-with-unsafe-inline -20'],
      ["default-src 'self'; script-src 'self' 'unsafe-eval'", 'csp-implemented-with-unsafe-eval -10'],
      ["default-src 'self' http://cdn.test", 'csp-implemented-with-insecure-scheme -20'],
      ["default-src 'self'; img-src http:", 'csp-implemented-with-insecure-scheme-in-passive-content-only -10'],
      ["default-src 'self'; style-src 'self' 'unsafe-inline'", 'csp-implemented-with-unsafe-inline-in-style-src-only 0'],
      ["default-src 'self'", 'csp-implemented-with-no-unsafe 5'],
      ["script-src 'nonce-r4nd0m' 'unsafe-inline'; object-src 'none'; style-src 'self'", 'csp-implemented-with-no-unsafe 5'],
      ['def@ult-src x', 'csp-header-invalid -25'],
    ];
    for (const [policy, expected] of cases) {
      assert.equal(test(analyze(PAGE, withHeaders({ 'content-security-policy': policy }), URL), 'security-csp'), expected, policy);
    }
    const fromMeta = `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self'"></head></html>`;
    assert.equal(test(analyze(fromMeta, withHeaders({ 'content-security-policy': undefined }), URL), 'security-csp'), 'csp-implemented-with-no-unsafe 5');
  });

  it('grades HSTS, X-Content-Type-Options, framing, Referrer-Policy, CORP and CORS', () => {
    const cases: Array<[Record<string, string | undefined>, string, string]> = [
      [{ 'strict-transport-security': 'max-age=300' }, 'security-hsts', 'hsts-implemented-max-age-less-than-six-months -10'],
      [{ 'strict-transport-security': 'includeSubDomains' }, 'security-hsts', 'hsts-header-invalid -20'],
      [{ 'x-content-type-options': 'sniff' }, 'security-x-content-type-options', 'x-content-type-options-header-invalid -5'],
      [{ 'content-security-policy': "default-src 'self'", 'x-frame-options': 'DENY' }, 'security-x-frame-options', 'x-frame-options-sameorigin-or-deny 0'],
      [{ 'content-security-policy': "default-src 'self'", 'x-frame-options': 'bogus' }, 'security-x-frame-options', 'x-frame-options-header-invalid -20'],
      [{ 'referrer-policy': 'no-referrer, unsafe-url' }, 'security-referrer-policy', 'referrer-policy-unsafe -5'],
      [{ 'referrer-policy': 'unsafe-url, no-referrer' }, 'security-referrer-policy', 'referrer-policy-private 5'],
      [{ 'referrer-policy': 'sometimes' }, 'security-referrer-policy', 'referrer-policy-header-invalid -5'],
      [{ 'referrer-policy': undefined }, 'security-referrer-policy', 'referrer-policy-not-implemented 0'],
      [{ 'cross-origin-resource-policy': 'bogus' }, 'security-corp', 'corp-header-invalid -5'],
      [{ 'access-control-allow-origin': '*' }, 'security-cors', 'cross-origin-resource-sharing-implemented-with-public-access 0'],
      // Browsers refuse credentials beside *, so the Observatory calls it public access, not universal (-50).
      [{ 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }, 'security-cors', 'cross-origin-resource-sharing-implemented-with-public-access 0'],
      // The page GET sends no Origin, so null is not an echo of one: restricted, as the Observatory's own Origin would find it.
      [{ 'access-control-allow-origin': 'null', 'access-control-allow-credentials': 'true' }, 'security-cors', 'cross-origin-resource-sharing-implemented-with-restricted-access 0'],
      // The Observatory's threshold is 15,552,000 s (180 days), not 15,768,000.
      [{ 'strict-transport-security': 'max-age=15552000' }, 'security-hsts', 'hsts-implemented-max-age-at-least-six-months 0'],
      [{ 'strict-transport-security': 'max-age=15551999' }, 'security-hsts', 'hsts-implemented-max-age-less-than-six-months -10'],
      [{ 'strict-transport-security': 'max-age=63072000, max-age=63072000' }, 'security-hsts', 'hsts-header-invalid -20'],
    ];
    for (const [changes, rule, expected] of cases) {
      const report = analyze(PAGE, withHeaders(changes), URL);
      assert.equal(test(report, rule), expected, JSON.stringify(changes));
      const fired = report.findings.some((f) => f.rule === rule);
      assert.equal(fired, Number(expected.split(' ')[1]) < 0, `finding for ${JSON.stringify(changes)}`);
    }
    assert.equal(test(analyze(PAGE, factsFor('http://shop.test/', { headers: STRONG_HEADERS }), 'http://shop.test/'), 'security-hsts'), 'hsts-not-implemented-no-https -20');
  });

  it('grades cookies per cookie, with HSTS softening a missing Secure flag', () => {
    const cases: Array<[string, string]> = [
      ['csrftoken=x; Secure', 'cookies-anticsrf-without-samesite-flag -20'],
      ['sessionid=x; Secure; SameSite=Lax', 'cookies-session-without-httponly-flag -30'],
      ['theme=dark; Secure; SameSite=Bogus', 'cookies-samesite-flag-invalid -20'],
      ['theme=dark', 'cookies-without-secure-flag-but-protected-by-hsts -5'],
      ['sessionid=x; HttpOnly', 'cookies-session-without-secure-flag-but-protected-by-hsts -10'],
      ['theme=dark; Secure', 'cookies-secure-with-httponly-sessions 0'],
    ];
    for (const [cookie, expected] of cases) {
      const report = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: [cookie] }), URL);
      assert.equal(test(report, 'security-cookies'), expected, cookie);
    }
    const noHsts = analyze(PAGE, factsFor(URL, { setCookies: ['theme=dark'] }), URL);
    assert.equal(test(noHsts, 'security-cookies'), 'cookies-without-secure-flag -20');
    const two = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: ['theme=dark', 'sessionid=x; Secure'] }), URL);
    assert.equal(test(two, 'security-cookies'), 'cookies-session-without-httponly-flag -30');
    // one finding of the rule, as severe as its worst cookie, which leads; each cookie's change said
    assert.deepEqual(two.findings.map((f) => `${f.rule} ${f.severity} ${f.count}`), ['security-cookies high 2']);
    const cookies = two.findings[0];
    assert.deepEqual(cookies?.instances?.map((e) => e.value?.split('=')[0]), ['sessionid', 'theme']);
    assert.match(cookies?.detail ?? '', /^2 instances on the page\. Each is listed in instances \(header, value\)\. Session cookie set without the HttpOnly flag/);
    assert.equal(cookies?.fix.change.match(/Each: /g)?.length, 1);
  });

  it('grades cookies by the Observatory\'s rules: every result a cookie reaches counts, names as it reads them', () => {
    const cases: Array<[string, string]> = [
      // HSTS on: the missing Secure is softened, the missing HttpOnly is not (it was -10 when Secure returned first)
      ['sessionid=x', 'cookies-session-without-httponly-flag -30'],
      ['PHPSESSID=x; Path=/', 'cookies-session-without-httponly-flag -30'],
      ['login_user=x; HttpOnly', 'cookies-session-without-secure-flag-but-protected-by-hsts -10'],
      // SameSite=None without Secure is an invalid SameSite (-20), worse than the HSTS-softened Secure (-5)
      ['theme=dark; SameSite=None', 'cookies-samesite-flag-invalid -20'],
      ['theme=dark; Secure; SameSite=None', 'cookies-secure-with-httponly-sessions-and-samesite 5'],
      ['theme=dark; Secure; SameSite=', 'cookies-samesite-flag-invalid -20'],
      // "csrf" is the Observatory's anti-CSRF name; XSRF-TOKEN is a plain cookie to it
      ['XSRF-TOKEN=x; Secure', 'cookies-secure-with-httponly-sessions 0'],
      ['XSRF-TOKEN=x; Secure; SameSite=Lax', 'cookies-secure-with-httponly-sessions-and-samesite 5'],
      ['csrftoken=x; Secure; SameSite=Strict', 'cookies-secure-with-httponly-sessions-and-samesite 5'],
      // only "login" and "sess" make a session cookie: an auth token readable by scripts is not graded as one
      ['auth_token=x; Secure; SameSite=Lax', 'cookies-secure-with-httponly-sessions-and-samesite 5'],
    ];
    for (const [cookie, expected] of cases) {
      const report = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: [cookie] }), URL);
      assert.equal(test(report, 'security-cookies'), expected, cookie);
    }
    // HSTS under six months fails its test, so it protects no cookie: the session cookie is -40
    const shortHsts = analyze(PAGE, withHeaders({ 'strict-transport-security': 'max-age=300' }, { setCookies: ['sessionid=x; HttpOnly'] }), URL);
    assert.equal(test(shortHsts, 'security-cookies'), 'cookies-session-without-secure-flag -40');
    // the page takes the worst in the Observatory's order, and +5 only when every cookie has SameSite
    const mixed = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: ['a=1; Secure; SameSite=Lax', 'b=2; Secure'] }), URL);
    assert.equal(test(mixed, 'security-cookies'), 'cookies-secure-with-httponly-sessions 0');
  });

  it('a session cookie without HttpOnly behind HSTS costs the grade as the Observatory\'s does: 70, B', () => {
    const report = analyze(PAGE, factsFor(URL, { headers: STRONG_HEADERS, setCookies: ['sessionid=abc; Path=/'] }), URL);
    assert.deepEqual({ score: observatory(report).score, grade: observatory(report).grade }, { score: 70, grade: 'B' });
    const cookies = report.findings.find((f) => f.rule === 'security-cookies');
    assert.equal(cookies?.severity, 'high');
    // both the HttpOnly and the Secure result are said, worst first, and the fix asks for both
    assert.match(cookies?.detail ?? '', /^Session cookie set without the HttpOnly flag.*\(-30\).*without the Secure flag.*\(-10\)/);
    assert.match(cookies?.fix.change ?? '', /Secure; HttpOnly/);
    // a wildcard with credentials no longer costs 50: the same strong set stays A+
    const wildcard = analyze(PAGE, withHeaders({ 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }), URL);
    assert.deepEqual({ score: observatory(wildcard).score, grade: observatory(wildcard).grade }, { score: 130, grade: 'A+' });
  });

  it('counts a session cookie set by a redirect on the way, as the Observatory\'s cookie jar does: 70, B', () => {
    const facts = factsFor(URL, { headers: STRONG_HEADERS, requestedUrl: 'https://shop.test/login', redirects: [{ url: 'https://shop.test/login', status: 302, location: '/', setCookies: ['sessionid=5e1f; Path=/; Secure; SameSite=Lax'] }] });
    const report = analyze(PAGE, facts, URL);
    assert.deepEqual({ score: observatory(report).score, grade: observatory(report).grade }, { score: 70, grade: 'B' });
    const cookies = report.findings.find((f) => f.rule === 'security-cookies');
    assert.match(cookies?.evidence.value ?? '', /^sessionid=5e1f/);
  });

  it('grades an https URL with the Observatory\'s side requests: its http twin and a CORS preflight with an Origin', () => {
    const probed = (probes: ObservatoryProbes, changes: Record<string, string | undefined> = {}): ProbedFacts => ({ ...withHeaders(changes), observatoryProbes: probes });
    const noCors = { cors: null };
    // the http twin answers without redirecting: -20 as the Observatory gives, though the URL asked was https (A+ 130 -> 80 B+)
    const stays = analyze(PAGE, probed({ ...noCors, http: { requestedUrl: 'http://shop.test/', finalUrl: 'http://shop.test/', redirects: [] } }), URL);
    assert.equal(test(stays, 'security-redirection'), 'redirection-missing -20');
    assert.deepEqual({ score: observatory(stays).score, grade: observatory(stays).grade }, { score: 80, grade: 'B+' });
    assert.equal(stays.checks.find((c) => c.rule === 'security-redirection')?.result, 'fail');
    const redirects: ObservatoryProbes['http'] = { requestedUrl: 'http://shop.test/', finalUrl: URL, redirects: [{ url: 'http://shop.test/', status: 301, location: URL }] };
    assert.equal(test(analyze(PAGE, probed({ ...noCors, http: redirects }), URL), 'security-redirection'), 'redirection-to-https 0');
    // nothing answers on http: nothing to redirect, a pass
    const none = analyze(PAGE, probed({ ...noCors, http: null }), URL);
    assert.equal(test(none, 'security-redirection'), 'redirection-not-needed-no-http 0');
    assert.equal(none.checks.find((c) => c.rule === 'security-redirection')?.result, 'pass');
    // the preflight echoes the Origin it was sent, with credentials: universal access, -50
    const origin = 'https://http-observatory.example';
    const echo = analyze(PAGE, probed({ http: null, cors: { origin, headers: { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' } } }), URL);
    assert.equal(test(echo, 'security-cors'), 'cross-origin-resource-sharing-implemented-with-universal-access -50');
    assert.deepEqual({ score: observatory(echo).score, grade: observatory(echo).grade }, { score: 50, grade: 'C' });
    assert.ok(echo.findings.some((f) => f.rule === 'security-cors' && f.severity === 'high'));
    // the same echo without credentials, or a wildcard with them, is not
    const plain = analyze(PAGE, probed({ http: null, cors: { origin, headers: { 'access-control-allow-origin': origin } } }), URL);
    assert.equal(test(plain, 'security-cors'), 'cross-origin-resource-sharing-implemented-with-restricted-access 0');
    const wildcard = analyze(PAGE, probed({ http: null, cors: { origin, headers: { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' } } }), URL);
    assert.equal(test(wildcard, 'security-cors'), 'cross-origin-resource-sharing-implemented-with-public-access 0');
  });

  it('grades the redirect from http when the fetch started there, and external scripts', () => {
    const redirected = (location: string, final: string) =>
      factsFor(final, { headers: STRONG_HEADERS, requestedUrl: 'http://shop.test/', redirects: [{ url: 'http://shop.test/', status: 301, location }] });
    assert.equal(test(analyze(PAGE, redirected('https://shop.test/', URL), URL), 'security-redirection'), 'redirection-to-https 0');
    assert.equal(test(analyze(PAGE, redirected('https://www.shop.test/', 'https://www.shop.test/'), URL), 'security-redirection'), 'redirection-off-host-from-http -5');
    assert.equal(test(analyze(PAGE, factsFor('http://shop.test/', { requestedUrl: 'http://shop.test/' }), URL), 'security-redirection'), 'redirection-missing -20');

    const pinned = '<script src="https://cdn.test/a.js" integrity="sha384-abc" crossorigin="anonymous"></script>';
    assert.equal(test(analyze(pinned, withHeaders({}), URL), 'security-sri'), 'sri-implemented-and-external-scripts-loaded-securely 5');
    const unpinned = analyze('<script src="https://cdn.test/a.js"></script>', withHeaders({}), URL);
    assert.equal(test(unpinned, 'security-sri'), 'sri-not-implemented-but-external-scripts-loaded-securely -5');
    assert.equal(onlyFinding(unpinned, 'security-sri').severity, 'low');
    assert.equal(test(analyze('<script src="//cdn.test/a.js" integrity="sha384-abc"></script>', withHeaders({}), URL), 'security-sri'), 'sri-implemented-but-external-scripts-not-loaded-securely -20');
  });

  it('judges a script host by registrable domain as the Observatory does: the site\'s own CDN is not foreign, the worst result in its order wins', () => {
    // The agreement bench's sri-same-site-cdn header set: a shop on www.shop.co.uk loading its
    // own cdn.shop.co.uk without integrity. The Observatory takes nothing off for it (130 A+ with
    // these headers); an origin-only comparison took 5 (125).
    const page = 'https://www.shop.co.uk/';
    const own = analyze('<script src="https://cdn.shop.co.uk/app.js"></script><script src="http://img.shop.co.uk/legacy.js"></script>', factsFor(page, { headers: STRONG_HEADERS }), page);
    assert.equal(test(own, 'security-sri'), 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin 0');
    assert.deepEqual([observatory(own).score, observatory(own).grade], [130, 'A+']);
    assert.ok(!firedRules(own).includes('security-sri'));
    // Another registrable domain under the same public suffix is foreign: co.uk is a suffix, not a site.
    const other = analyze('<script src="https://cdn.other.co.uk/app.js"></script>', factsFor(page, { headers: STRONG_HEADERS }), page);
    assert.equal(test(other, 'security-sri'), 'sri-not-implemented-but-external-scripts-loaded-securely -5');
    assert.deepEqual([observatory(other).score, observatory(other).grade], [125, 'A+']);
    // A protocol-relative src is foreign and not secure even on the page's own host.
    assert.equal(test(analyze('<script src="//www.shop.co.uk/a.js"></script>', factsFor(page, { headers: STRONG_HEADERS }), page), 'security-sri'), 'sri-not-implemented-and-external-scripts-not-loaded-securely -50');
    // Its order ranks "https without integrity" (-5) worse than "integrity over http" (-20): the grade follows it.
    const both = analyze('<script src="http://cdn.other.test/a.js" integrity="sha384-abc"></script><script src="https://cdn.other.test/b.js"></script>', factsFor(page, { headers: STRONG_HEADERS }), page);
    assert.equal(test(both, 'security-sri'), 'sri-not-implemented-but-external-scripts-loaded-securely -5');
    // Integrity on the site's own https scripts earns the bonus; inline scripts alone are the site's own.
    assert.equal(test(analyze('<script src="/app.js" integrity="sha384-abc"></script>', factsFor(page, { headers: STRONG_HEADERS }), page), 'security-sri'), 'sri-implemented-and-all-scripts-loaded-securely 5');
    assert.equal(test(analyze('<script>window.x = 1</script>', factsFor(page, { headers: STRONG_HEADERS }), page), 'security-sri'), 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin 0');
  });

  it('findingIds are stable across runs, unrelated headers and page edits', () => {
    const html = '<html><head><script src="https://cdn.test/a.js"></script></head><body></body></html>';
    const facts = factsFor(URL, { setCookies: ['sessionid=abc'] });
    const first = findingIds(analyze(html, facts, URL));
    assert.deepEqual(findingIds(analyze(html, facts, URL)), first);
    const edited = html.replace('<body>', '<body><p>New text</p><img src="/x.png" alt="x">').replace('<head>', '<head><title>Shop</title>');
    const otherFacts = factsFor(URL, { setCookies: ['sessionid=zzz; Path=/app'], headers: { server: 'nginx', 'x-content-type-options': 'bogus' } });
    assert.deepEqual(findingIds(analyze(edited, otherFacts, URL)), first);
  });
});
