import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCors, rules, type CorsAnswer, type CorsProbe } from '../../../src/analysis/analyzers/cors.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://api.test/me';
const PROBE = 'https://cors-probe.example';

/** The three answers, each from its own headers (the same for all three unless given). */
function probe(simple: Record<string, string>, others: { nullOrigin?: Record<string, string> | string; preflight?: Record<string, string> | string } = {}): CorsProbe {
  const answer = (h: Record<string, string> | string | undefined) => (typeof h === 'string' ? h : factsFor(URL, { headers: h ?? simple }));
  return { url: URL, origin: PROBE, simple: factsFor(URL, { headers: simple }), nullOrigin: answer(others.nullOrigin), preflight: answer(others.preflight) };
}

describe('cors analyzer', () => {
  it('no CORS headers at all: every rule passes, details record the three requests', () => {
    const report = analyzeCors(probe({}));
    assertValid(report);
    assert.deepEqual(report.findings, []);
    for (const r of rules) assert.equal(checkResult(report, r.id), 'pass', r.id);
    const answers = report.details['answers'] as CorsAnswer[];
    assert.deepEqual(answers.map((a) => [a.request, a.method, a.sent['origin'], a.status, a.allowOrigin]), [
      ['origin', 'GET', PROBE, 200, null],
      ['null-origin', 'GET', 'null', 200, null],
      ['preflight', 'OPTIONS', PROBE, 200, null],
    ]);
    assert.equal(answers[2]?.sent['access-control-request-method'], 'PUT');
    assert.equal(answers[2]?.sent['access-control-request-headers'], 'authorization');
  });

  it('reflecting the probe origin with credentials is high, without is medium; Vary: Origin missing fires beside it', () => {
    const withCredentials = analyzeCors(probe({ 'access-control-allow-origin': PROBE, 'access-control-allow-credentials': 'true' }));
    assert.deepEqual(firedRules(withCredentials), ['cors-reflects-origin', 'cors-vary-origin-missing']);
    const f = onlyFinding(withCredentials, 'cors-reflects-origin');
    assert.equal(f.severity, 'high');
    assert.deepEqual(f.evidence, { header: 'access-control-allow-origin', value: PROBE, url: URL });
    assert.match(f.detail, /cookies/);
    const without = analyzeCors(probe({ 'access-control-allow-origin': PROBE, vary: 'Accept-Encoding, Origin' }));
    assert.deepEqual(firedRules(without), ['cors-reflects-origin']);
    assert.equal(onlyFinding(without, 'cors-reflects-origin').severity, 'medium');
    assert.equal(checkResult(without, 'cors-vary-origin-missing'), 'pass');
  });

  it('a wildcard with credentials is reported though browsers refuse it; a plain wildcard is fine', () => {
    const report = analyzeCors(probe({ 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }));
    assert.deepEqual(firedRules(report), ['cors-wildcard-with-credentials']);
    assert.equal(onlyFinding(report, 'cors-wildcard-with-credentials').severity, 'medium');
    assert.deepEqual(firedRules(analyzeCors(probe({ 'access-control-allow-origin': '*' }))), []);
  });

  it('Origin: null allowed is high with credentials; an answer that differs per origin without Vary fires too', () => {
    const report = analyzeCors(probe({}, { nullOrigin: { 'access-control-allow-origin': 'null', 'access-control-allow-credentials': 'true' } }));
    assert.deepEqual(firedRules(report), ['cors-null-origin-allowed']);
    assert.equal(onlyFinding(report, 'cors-null-origin-allowed').severity, 'high');
    const trusted = analyzeCors(probe({ 'access-control-allow-origin': 'https://app.test' }, { nullOrigin: { 'access-control-allow-origin': 'null' } }));
    assert.deepEqual(firedRules(trusted), ['cors-null-origin-allowed', 'cors-vary-origin-missing']);
    assert.equal(onlyFinding(trusted, 'cors-null-origin-allowed').severity, 'medium');
  });

  it('a preflight granting PUT and Authorization to the probe is high with credentials, medium without; a narrow one passes', () => {
    const wide = analyzeCors(probe({}, { preflight: { 'access-control-allow-origin': PROBE, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': '*', 'access-control-allow-headers': 'Authorization' } }));
    assert.deepEqual(firedRules(wide), ['cors-preflight-permissive', 'cors-reflects-origin']);
    assert.equal(onlyFinding(wide, 'cors-preflight-permissive').severity, 'high');
    const open = analyzeCors(probe({}, { preflight: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, PUT', 'access-control-allow-headers': '*' } }));
    assert.deepEqual(firedRules(open), ['cors-preflight-permissive']);
    assert.equal(onlyFinding(open, 'cors-preflight-permissive').severity, 'medium');
    const narrow = analyzeCors(probe({}, { preflight: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type' } }));
    assert.equal(checkResult(narrow, 'cors-preflight-permissive'), 'pass');
  });

  it('a failed secondary request leaves its rules unknown and says so in the notes', () => {
    const report = analyzeCors(probe({}, { preflight: 'fetch_failed: timeout', nullOrigin: 'fetch_failed: connect' }));
    assertValid(report);
    assert.equal(checkResult(report, 'cors-preflight-permissive'), 'unknown');
    assert.equal(checkResult(report, 'cors-null-origin-allowed'), 'unknown');
    assert.equal(checkResult(report, 'cors-reflects-origin'), 'pass');
    assert.equal(report.incomplete, true);
    assert.deepEqual(report.notes, [
      'the null-origin request could not be made (fetch_failed: connect): the rules that need it are unknown',
      'the preflight request could not be made (fetch_failed: timeout): the rules that need it are unknown',
    ]);
    const preflight = (report.details['answers'] as CorsAnswer[])[2];
    assert.deepEqual([preflight?.status, preflight?.error], [null, 'fetch_failed: timeout']);
  });
});
