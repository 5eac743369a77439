// The security-apis family's POST tools: csp-evaluator (a report on a policy sent as text),
// jwt-decoder (decode, never verify) and password-strength (zxcvbn; the password never echoed).
// Rules and decoders are checked directly; inputs and errors through the whole app.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CSP_RULES, cspEvaluationRules, evaluateCspPolicy } from '../../src/analysis/analyzers/csp-evaluation.ts';
import { cspEvaluatorTool } from '../../src/catalog/security-apis/csp-evaluator.ts';
import { decodeJwt, jwtDecoder, NOT_VERIFIED } from '../../src/catalog/security-apis/jwt-decoder.ts';
import { estimatePasswordStrength, passwordStrength } from '../../src/catalog/security-apis/password-strength.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertValid, checkResult, firedRules, instancesOf, onlyFinding } from '../analysis/analyzers/report-helpers.ts';

const STRICT = "script-src 'nonce-r4nd0mBase64Value22ch' 'strict-dynamic'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'; report-to csp";

describe('csp-evaluator rules', () => {
  it('a strict nonce policy passes every rule and scores 100', () => {
    const report = evaluateCspPolicy(STRICT, { pageUrl: 'https://example.com/' });
    assertValid(report);
    assert.deepEqual(firedRules(report), []);
    for (const rule of cspEvaluationRules) assert.equal(checkResult(report, rule.id), 'pass', rule.id);
    assert.equal(report.scores['security-headers'], 100);
    assert.equal(report.statuses['security-headers'], 'good');
    assert.deepEqual(report.details['directives'], [
      { name: 'script-src', sources: ["'nonce-r4nd0mBase64Value22ch'", "'strict-dynamic'"] },
      { name: 'object-src', sources: ["'none'"] },
      { name: 'base-uri', sources: ["'none'"] },
      { name: 'frame-ancestors', sources: ["'self'"] },
      { name: 'report-to', sources: ['csp'] },
    ]);
  });

  it('a policy with only img-src fires the missing-directive rules with header fixes', () => {
    const report = evaluateCspPolicy('img-src https:');
    assertValid(report);
    assert.deepEqual(firedRules(report), ['csp-missing-base-uri', 'csp-missing-frame-ancestors', 'csp-missing-object-src', 'csp-missing-script-src', 'csp-no-reporting']);
    const script = onlyFinding(report, CSP_RULES.missingScriptSrc.id);
    assert.equal(script.severity, 'high');
    assert.equal(script.category, 'security-headers');
    assert.deepEqual(script.evidence, { header: 'content-security-policy' });
    assert.equal(script.fix.patchType, 'http-header');
    assert.equal(script.fix.roleHint, 'config');
    assert.equal(onlyFinding(report, CSP_RULES.missingObjectSrc.id).fix.change, "Add object-src 'none'.");
    assert.equal(onlyFinding(report, CSP_RULES.missingBaseUri.id).severity, 'medium');
    assert.equal(onlyFinding(report, CSP_RULES.noReporting.id).severity, 'info');
    // weights: script 3, object 2, base-uri 1, frame-ancestors 1 fail out of 29 (no-reporting weighs 0)
    assert.equal(cspEvaluationRules.reduce((sum, rule) => sum + rule.weight, 0), 29);
    assert.equal(report.scores['security-headers'], Math.round((100 * (29 - 7)) / 29));
  });

  it("'unsafe-inline' fires only without a nonce, hash or 'strict-dynamic'; 'unsafe-eval' always", () => {
    const bad = evaluateCspPolicy("default-src 'self' 'unsafe-inline' 'unsafe-eval'");
    const inline = onlyFinding(bad, CSP_RULES.unsafeInline.id);
    assert.equal(inline.severity, 'high');
    assert.deepEqual(inline.evidence, { header: 'content-security-policy', snippet: "'unsafe-inline'", value: "default-src 'self' 'unsafe-inline' 'unsafe-eval'" });
    assert.equal(onlyFinding(bad, CSP_RULES.unsafeEval.id).evidence.snippet, "'unsafe-eval'");
    const hashed = evaluateCspPolicy("script-src 'self' 'unsafe-inline' 'sha256-B2yPHKaXnvFWtRChIbabYmUBFZdVfKKXHbWtWidDVF8='");
    assert.equal(checkResult(hashed, CSP_RULES.unsafeInline.id), 'pass');
    // with a nonce, a missing base-uri lets relative nonced scripts move: high
    assert.equal(onlyFinding(hashed, CSP_RULES.missingBaseUri.id).severity, 'high');
  });

  it('wildcards, broad schemes and http sources in script-src and object-src', () => {
    const report = evaluateCspPolicy("script-src * data: http://cdn.example.com; object-src https:");
    assert.deepEqual(instancesOf(report, CSP_RULES.wildcard.id).map((e) => e.snippet), ['*']);
    // one finding per rule: both broad schemes are its instances
    assert.equal(onlyFinding(report, CSP_RULES.broadScheme.id).count, 2);
    assert.deepEqual(instancesOf(report, CSP_RULES.broadScheme.id).map((e) => e.snippet).sort(), ['data:', 'https:']);
    assert.equal(onlyFinding(report, CSP_RULES.insecureSource.id).fix.change, 'Change http://cdn.example.com to its https:// form.');
    // 'strict-dynamic' with a nonce makes CSP3 browsers ignore the allowlist, so it is not judged
    const dynamic = evaluateCspPolicy("script-src 'nonce-r4nd0mBase64Value22ch' 'strict-dynamic' https: *; object-src 'none'");
    assert.equal(checkResult(dynamic, CSP_RULES.wildcard.id), 'pass');
    assert.equal(checkResult(dynamic, CSP_RULES.broadScheme.id), 'pass');
  });

  it("'self' is an http source only on an http page", () => {
    const http = evaluateCspPolicy("script-src 'self'; object-src 'none'", { pageUrl: 'http://shop.example.com/cart' });
    const finding = onlyFinding(http, CSP_RULES.insecureSource.id);
    assert.match(finding.detail, /^'self' on this http page is http:\/\/shop\.example\.com, so scripts travel unencrypted/);
    assert.equal(checkResult(evaluateCspPolicy("script-src 'self'; object-src 'none'", { pageUrl: 'https://shop.example.com/' }), CSP_RULES.insecureSource.id), 'pass');
  });

  it('hosts that serve JSONP or AngularJS, exactly or through a wildcard', () => {
    const report = evaluateCspPolicy("script-src 'self' https://ajax.googleapis.com *.jsdelivr.net https://cdn.example.com; object-src 'none'");
    const gadgets = onlyFinding(report, CSP_RULES.gadgetHost.id);
    assert.deepEqual(instancesOf(report, CSP_RULES.gadgetHost.id).map((e) => e.snippet).sort(), ['*.jsdelivr.net', 'https://ajax.googleapis.com']);
    assert.deepEqual([gadgets.severity, gadgets.count], ['high', 2]);
  });

  it('report-only, deprecated, unknown (with did-you-mean), duplicate, unquoted keywords and short nonces', () => {
    const report = evaluateCspPolicy(
      "script-src 'nonce-abc123'; scirpt-src 'self'; object-src none; object-src 'self'; base-uri self; frame-ancestors 'none'; report-uri /csp; block-all-mixed-content; x-custom-thing 1",
      { reportOnly: true },
    );
    assertValid(report);
    assert.equal(onlyFinding(report, CSP_RULES.reportOnly.id).evidence.header, 'content-security-policy-report-only');
    assert.equal(checkResult(report, CSP_RULES.noReporting.id), 'pass');
    assert.deepEqual(instancesOf(report, CSP_RULES.deprecated.id).map((e) => e.value).sort(), ['block-all-mixed-content', 'report-uri /csp']);
    const unknown = onlyFinding(report, CSP_RULES.unknown.id);
    assert.equal(unknown.count, 2);
    assert.ok(unknown.detail.endsWith(
      '"scirpt-src" is not a CSP directive, so browsers ignore it; did you mean script-src? "x-custom-thing" is not a CSP directive, so browsers ignore it.',
    ), unknown.detail);
    assert.equal(onlyFinding(report, CSP_RULES.duplicate.id).evidence.value, "object-src 'self'");
    assert.deepEqual(instancesOf(report, CSP_RULES.missingQuotes.id).map((e) => e.snippet).sort(), ['none', 'self']);
    const nonce = onlyFinding(report, CSP_RULES.shortNonce.id);
    assert.equal(nonce.evidence.snippet, "'nonce-abc123'");
    assert.match(nonce.detail, /is 6 characters/);
    // report-uri beside report-to is the recommended pairing, not a deprecation
    assert.equal(checkResult(evaluateCspPolicy(`${STRICT}; report-uri /csp`), CSP_RULES.deprecated.id), 'pass');
  });

  it('finding ids are stable across runs and tied to the rule, not the text', () => {
    const a = evaluateCspPolicy("script-src 'unsafe-inline' http:");
    const b = evaluateCspPolicy("script-src   'unsafe-inline'   http:  ;");
    assert.deepEqual(a.findings.map((f) => f.findingId), b.findings.map((f) => f.findingId));
    // the rule still fails in the report-only header: the same finding, its evidence naming the header
    const ro = evaluateCspPolicy("script-src 'unsafe-inline' http:", { reportOnly: true });
    assert.equal(onlyFinding(ro, CSP_RULES.unsafeInline.id).findingId, onlyFinding(a, CSP_RULES.unsafeInline.id).findingId);
    assert.equal(onlyFinding(ro, CSP_RULES.unsafeInline.id).evidence.header, 'content-security-policy-report-only');
  });

  it('only the first of several policies is judged, and the notes say so', () => {
    const report = evaluateCspPolicy(`${STRICT}, script-src *`);
    assert.deepEqual(firedRules(report), []);
    assert.deepEqual(report.notes, ['2 policies were given (separated by commas); browsers enforce each, and this report judges the first.']);
    assert.equal(report.incomplete, true);
  });
});

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
function hs(header: unknown, payload: unknown, bits = 256): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(`sha${bits}`, 'test-secret').update(input).digest('base64url')}`;
}
function decodeError(token: string): ServiceError {
  try {
    decodeJwt(token, Date.UTC(2030, 0, 1));
  } catch (err) {
    assert.ok(isServiceError(err));
    return err;
  }
  assert.fail('expected a 400');
}

describe('jwt-decoder', () => {
  const now = Date.UTC(2030, 0, 1);
  it('judges exp and nbf against the given clock, and reports HS512 as symmetric', () => {
    const token = hs({ alg: 'HS512', typ: 'JWT' }, { sub: 'u1', nbf: Date.UTC(2031, 0, 1) / 1000, exp: Date.UTC(2032, 0, 1) / 1000 }, 512);
    const result = decodeJwt(token, now);
    assert.equal(result.verified, false);
    assert.equal(result.verification, NOT_VERIFIED);
    assert.deepEqual(result.times.nbf, { seconds: 1924992000, iso: '2031-01-01T00:00:00.000Z' });
    assert.equal(result.times.expired, false);
    assert.equal(result.times.notYetValid, true);
    assert.deepEqual(result.signature, { bytes: 64, expectedBytes: 64 });
    assert.deepEqual(result.notes.map((n) => `${n.level}:${n.code}`), ['warning:alg-symmetric', 'info:not-yet-valid']);
    assert.match(result.notes[0]?.message ?? '', /at least 64 bytes/);
    assert.equal(decodeJwt(token, Date.UTC(2033, 0, 1)).times.expired, true);
  });

  it('flags key-pointing headers, a missing signature, a non-numeric exp and exp before iat', () => {
    const token = `${b64({ alg: 'RS256', jku: 'https://rival.example.com/keys' })}.${b64({ exp: 'tomorrow', iat: 5 })}.`;
    const result = decodeJwt(token, now);
    assert.deepEqual(result.notes.map((n) => `${n.level}:${n.code}`), ['danger:signature-missing', 'warning:header-jku', 'warning:exp-not-numeric']);
    assert.equal(result.times.exp, null);
    assert.deepEqual(result.signature, { bytes: 0, expectedBytes: null });
    const early = decodeJwt(hs({ alg: 'HS256' }, { iat: 2000, exp: 1000 }), now);
    assert.ok(early.notes.some((n) => n.code === 'exp-before-iat' && n.level === 'warning'));
  });

  it('answers 400 naming the part that is wrong', () => {
    const header = b64({ alg: 'HS256' });
    const payload = b64({ sub: 'x' });
    const cases: Array<[string, string]> = [
      ['abc.def', "has 2 parts separated by '.'; a JWT has 3: header.payload.signature"],
      ['a.b.c.d.e', 'has 5 parts: it is an encrypted JWT (JWE), whose payload cannot be read without the key'],
      [`${header}.${payload}=.sig`, 'the payload (part 2) is not base64url: it holds "=" (JWTs use base64url without = padding)'],
      [`${header}.${b64('not json')}.sig`, 'the payload (part 2) is base64url but not JSON'],
      [`${b64('[1]')}.${payload}.sig`, 'the header (part 1) is JSON but not a JSON object'],
      [`${header}.${payload}.a+b`, 'the signature (part 3) is not base64url: it holds "+"'],
      [`${b64({ typ: 'JWT' })}.${payload}.sig`, 'the header (part 1) has no "alg" string naming the signing algorithm'],
      [`${header}..sig`, 'the payload (part 2) is empty'],
      [`${b64(Buffer.from([0xff, 0xfe]).toString('latin1'))}.${payload}.sig`, 'the header (part 1) is base64url but not JSON'],
    ];
    for (const [token, message] of cases) {
      const err = decodeError(token);
      assert.equal(err.status, 400, token);
      assert.deepEqual(err.extra['issues'], [{ field: 'token', message }], token);
    }
  });
});

describe('password-strength', () => {
  it('names each kind of pattern by position, never by its characters', () => {
    const kinds = (password: string, inputs: string[] = []) => estimatePasswordStrength(password, inputs).patterns.map((p) => p.kind);
    assert.deepEqual(kinds('abcdefgh'), ['sequence']);
    assert.deepEqual(kinds('zzzzzzzzzz'), ['repeat']);
    assert.deepEqual(kinds('qwertyuiop'), ['dictionary']);
    assert.deepEqual(kinds('zxcvfrtgbnhy'), ['keyboard']);
    assert.deepEqual(kinds('13.04.1987'), ['date']);
    assert.deepEqual(kinds('wallaceandgromit', ['wallaceandgromit']), ['user-input']);
    const leet = estimatePasswordStrength('P4$$w0rd').patterns[0];
    assert.equal(leet?.l33t, true);
    assert.equal(leet?.dictionary, 'passwords-common');
    const result = estimatePasswordStrength('zxcvfrtgbnhy');
    assert.deepEqual(result.patterns[0], { kind: 'keyboard', start: 0, end: 11, length: 12, guessesLog10: 9, keyboard: 'qwerty', turns: 6 });
    assert.equal(estimatePasswordStrength('abcdefgh').feedback.warning, 'Common character sequences like "abc" are easy to guess.');
  });

  it('scores more random passwords higher', () => {
    // no years: a year's guesses depend on the current year
    const scores = ['password', 'monkey77', 'tiger-lamp', 'correct horse battery staple'].map((p) => estimatePasswordStrength(p).score);
    assert.deepEqual(scores, [0, 1, 2, 4]);
  });
});

describe('security-apis through the whole app', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ plan: 'business', quota: 1_000_000 }));
  });
  after(() => t.close());

  it('password-strength never echoes the password, in a result or an error', async () => {
    const secret = 'Blue-Giraffe-Kettle-42!';
    const ok = await t.call(passwordStrength.path, { password: secret, userInputs: ['giraffe'] }, apiKey);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.ok(!ok.body.includes(secret));
    assert.ok(!ok.body.includes('Kettle'), 'no fragment of it either');
    assert.equal(ok.json().result.length, secret.length);
    const long = `${secret}${'x'.repeat(300)}`;
    const tooLong = await t.call(passwordStrength.path, { password: long }, apiKey);
    assert.equal(tooLong.statusCode, 400);
    assert.ok(!tooLong.body.includes(secret));
    assert.deepEqual(tooLong.json().issues, [{ field: 'password', message: 'must be at most 256 characters' }]);
  });

  it('password-strength bounds userInputs', async () => {
    const response = await t.call(passwordStrength.path, { password: 'a', userInputs: Array.from({ length: 21 }, (_, i) => `w${i}`) }, apiKey);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().issues[0].field, 'userInputs');
  });

  it('jwt-decoder answers 400 validation_error naming token', async () => {
    const response = await t.call(jwtDecoder.path, { token: 'only.two' }, apiKey);
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(body.error, 'validation_error');
    assert.deepEqual(body.issues, [{ field: 'token', message: "has 2 parts separated by '.'; a JWT has 3: header.payload.signature" }]);
  });

  it('csp-evaluator fetches nothing: a pageUrl that cannot resolve is still judged', async () => {
    const response = await t.call(cspEvaluatorTool.path, { csp: STRICT, pageUrl: 'https://nowhere.invalid/' }, apiKey);
    assert.equal(response.statusCode, 200, response.body);
    const result = response.json().result;
    assert.equal(result.url, 'https://nowhere.invalid/');
    assert.equal(result.status, null);
    assert.equal(result.report.scores['security-headers'], 100);
  });

  it('csp-evaluator as format=markdown without a pageUrl says none was given', async () => {
    const response = await t.app.inject({ method: 'POST', url: cspEvaluatorTool.path, query: { format: 'markdown' }, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: JSON.stringify({ csp: "script-src 'unsafe-inline'" }) });
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(response.body.startsWith('# CSP evaluator\n\nURL: `none given (the policy alone was judged)`'), response.body.slice(0, 200));
    assert.match(response.body, /csp-unsafe-inline/);
  });

  it('csp-evaluator answers 400 for a pageUrl that is not http(s), and for a policy over 16 KB', async () => {
    const ftp = await t.call(cspEvaluatorTool.path, { csp: STRICT, pageUrl: 'ftp://example.com/' }, apiKey);
    assert.equal(ftp.statusCode, 400);
    assert.deepEqual(ftp.json().issues, [{ field: 'pageUrl', message: 'must be an http or https URL, not ftp:' }]);
    const big = await t.call(cspEvaluatorTool.path, { csp: `script-src ${'a'.repeat(16 * 1024)}` }, apiKey);
    assert.equal(big.statusCode, 400);
    assert.equal(big.json().issues[0].field, 'csp');
  });
});
