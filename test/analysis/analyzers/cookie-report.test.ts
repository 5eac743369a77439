import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, rules, type CookieDetails } from '../../../src/analysis/analyzers/cookie-report.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.example.test/';
const DATE = 'Sun, 01 Mar 2026 00:00:00 GMT';
const GOOD = ['sessionid=s3cr3t; Path=/; Secure; HttpOnly; SameSite=Lax', '__Host-prefs=dark; Path=/; Secure; SameSite=Strict; Max-Age=2592000'];

const run = (setCookies: string[], url = URL, extra: Parameters<typeof factsFor>[1] = {}) =>
  analyze('', factsFor(url, { headers: { date: DATE }, setCookies, ...extra }), url);

describe('cookie-report analyzer', () => {
  it('well-flagged cookies pass every rule and details list their parsed flags', () => {
    const report = run(GOOD);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    for (const r of rules) assert.equal(checkResult(report, r.id), 'pass', r.id);
    assert.deepEqual(report.scores, { 'security-headers': 100, overall: 100 });
    const cookies = report.details['cookies'] as CookieDetails[];
    assert.deepEqual(cookies.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite, c.session, c.path, c.lifetimeDays]), [
      ['sessionid', true, true, 'lax', true, '/', null],
      ['__Host-prefs', true, false, 'strict', false, '/', 30],
    ]);
    assert.equal(report.incomplete, false);
  });

  it('a bare session cookie: Secure (high), HttpOnly (high) and SameSite (low) missing; the value is never echoed', () => {
    const report = run(['sessionid=s3cr3t; Path=/']);
    assert.deepEqual(firedRules(report), ['cookie-httponly-missing', 'cookie-samesite-missing', 'cookie-secure-missing']);
    assert.equal(onlyFinding(report, 'cookie-secure-missing').severity, 'high');
    assert.equal(onlyFinding(report, 'cookie-httponly-missing').severity, 'high');
    assert.equal(onlyFinding(report, 'cookie-samesite-missing').severity, 'low');
    const evidence = onlyFinding(report, 'cookie-secure-missing').evidence;
    assert.deepEqual(evidence, { header: 'set-cookie', value: 'sessionid=…; Path=/' });
    assert.ok(!JSON.stringify(report).includes('s3cr3t'));
  });

  it('a non-session cookie without Secure is medium, and HttpOnly is not asked of it', () => {
    const report = run(['theme=dark; Path=/; SameSite=Lax']);
    assert.deepEqual(firedRules(report), ['cookie-secure-missing']);
    assert.equal(onlyFinding(report, 'cookie-secure-missing').severity, 'medium');
    assert.equal(checkResult(report, 'cookie-httponly-missing'), 'not_applicable');
  });

  it('cookies set over plain http fail Secure whatever their flags', () => {
    const report = run(['theme=dark; Secure; SameSite=Lax'], 'http://shop.example.test/');
    assert.deepEqual(firedRules(report), ['cookie-secure-missing']);
    assert.match(onlyFinding(report, 'cookie-secure-missing').detail, /plain http/);
  });

  it('SameSite=None without Secure, and an invalid SameSite value', () => {
    const report = run(['track=1; SameSite=None', 'ui=1; Secure; SameSite=Sometimes']);
    assert.deepEqual(firedRules(report), ['cookie-samesite-missing', 'cookie-samesite-none-without-secure', 'cookie-secure-missing']);
    assert.equal(onlyFinding(report, 'cookie-samesite-none-without-secure').severity, 'medium');
    assert.match(onlyFinding(report, 'cookie-samesite-missing').detail, /SameSite=sometimes/);
  });

  it('prefix rules: __Secure- needs Secure; __Host- needs Secure, Path=/ and no Domain', () => {
    const report = run(['__Secure-id=1; SameSite=Lax', '__Host-id=1; Secure; Path=/app; Domain=shop.example.test; SameSite=Lax']);
    // both cookies are one finding of the rule, each cookie's problem said
    const found = onlyFinding(report, 'cookie-prefix-violation');
    assert.equal(found.count, 2);
    assert.match(found.detail, /__Secure-id/);
    assert.match(found.detail, /lacks Path=\/, no Domain attribute/);
    assert.equal(checkResult(run(GOOD), 'cookie-prefix-violation'), 'pass');
  });

  it('a Domain wider than the host is shared with every subdomain; the host itself is fine', () => {
    const report = run(['sid=1; Secure; HttpOnly; SameSite=Lax; Domain=.example.test', 'ui=1; Secure; SameSite=Lax; Domain=shop.example.test']);
    const f = onlyFinding(report, 'cookie-domain-too-broad');
    assert.equal(f.severity, 'medium');
    assert.match(f.detail, /every host under example\.test/);
    assert.equal(f.findingId, onlyFinding(run(['sid=2; Secure; HttpOnly; SameSite=Lax; Domain=example.test']), 'cookie-domain-too-broad').findingId);
  });

  it('lifetimes past 400 days, by Max-Age or by Expires against the response Date; deletions are not judged', () => {
    const report = run(['ui=1; Secure; SameSite=Lax; Max-Age=63072000', 'ab=1; Secure; SameSite=Lax; Expires=Wed, 01 Mar 2028 00:00:00 GMT', 'sessionid=; Max-Age=0']);
    const found = onlyFinding(report, 'cookie-long-expiry');
    assert.equal(found.count, 2);
    assert.equal(found.title, 'A cookie lives longer than browsers allow (2 instances)');
    assert.deepEqual(firedRules(report), ['cookie-long-expiry']);
    const cookies = report.details['cookies'] as CookieDetails[];
    assert.deepEqual(cookies.map((c) => [c.name, c.lifetimeDays, c.deletion]), [['ui', 730, false], ['ab', 731, false], ['sessionid', 0, true]]);
    assert.deepEqual(firedRules(run(['ui=1; Secure; SameSite=Lax; Max-Age=31536000'])), []);
  });

  it('no cookies: every rule not applicable, nothing noted; a cookie set by a redirect is judged with the final ones', () => {
    const none = run([]);
    assert.ok(none.checks.every((c) => c.result === 'not_applicable'));
    assert.deepEqual(none.notes, []);
    assert.deepEqual(none.statuses, { 'security-headers': 'unknown', overall: 'unknown' });
    // The login redirect sets the session cookie without HttpOnly: a browser keeps it, so it is judged.
    const redirected = run(GOOD, URL, { requestedUrl: 'https://shop.example.test/login', redirects: [{ url: 'https://shop.example.test/login', status: 302, location: '/', setCookies: ['sessionid=abc; Secure; SameSite=Lax; Path=/'] }] });
    assert.deepEqual(redirected.notes, []);
    assert.ok(redirected.findings.some((f) => f.title.includes('sessionid')), JSON.stringify(redirected.findings.map((f) => f.title)));
  });

  it('without facts every rule is unknown', () => {
    const report = analyze('<p>x</p>', null, URL);
    assertValid(report);
    assert.ok(report.checks.every((c) => c.result === 'unknown'));
    assert.equal(report.incomplete, true);
  });
});
