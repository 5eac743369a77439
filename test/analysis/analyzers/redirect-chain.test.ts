import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRedirects, redirectChainAnalyzer, redirectFailure, type HopDetail } from '../../../src/analysis/analyzers/redirect-chain.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const ALL = ['redirect-chain', 'redirect-final-status', 'redirect-https-downgrade', 'redirect-loop', 'redirect-mixed-hosts', 'redirect-temporary'];

describe('redirect-chain analyzer', () => {
  it('no redirect, or one permanent hop to www, passes every rule', () => {
    const direct = analyzeRedirects({ requestedUrl: 'https://shop.test/a', facts: factsFor('https://shop.test/a'), failure: null });
    assertValid(direct);
    assert.deepEqual(direct.findings, []);
    assert.deepEqual(direct.scores, { 'http-status': 100, 'best-practices': 100, overall: 100 });
    const www = analyzeRedirects({
      requestedUrl: 'http://shop.test/a',
      facts: factsFor('https://www.shop.test/a', { requestedUrl: 'http://shop.test/a', redirects: [{ url: 'http://shop.test/a', status: 301, location: 'https://www.shop.test/a' }] }),
      failure: null,
    });
    assert.deepEqual(www.findings, []);
    for (const rule of ALL) assert.equal(checkResult(www, rule), 'pass', rule);
    assert.equal(www.details.hopCount, 1);
  });

  it('a long temporary chain across hosts ending in a 404 fires each rule, with the hops in details', () => {
    const redirects = [
      { url: 'https://shop.test/a', status: 302, location: '/b' },
      { url: 'https://shop.test/b', status: 307, location: 'http://tracker.test/go?to=shop' },
      { url: 'http://tracker.test/go?to=shop', status: 301, location: 'http://shop.test/a' },
      { url: 'http://shop.test/a', status: 301, location: 'https://shop.test/a' },
      { url: 'https://shop.test/a', status: 301, location: 'https://shop.test/c' },
    ];
    const report = analyzeRedirects({ requestedUrl: 'https://shop.test/a', facts: factsFor('https://shop.test/c', { status: 404, requestedUrl: 'https://shop.test/a', redirects }), failure: null });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['redirect-chain', 'redirect-final-status', 'redirect-https-downgrade', 'redirect-loop', 'redirect-mixed-hosts', 'redirect-temporary']);
    assert.equal(onlyFinding(report, 'redirect-temporary').count, 2);
    const downgrade = onlyFinding(report, 'redirect-https-downgrade');
    assert.equal(downgrade.severity, 'high');
    assert.equal(downgrade.evidence.url, 'https://shop.test/b');
    assert.equal(downgrade.evidence.header, 'location');
    assert.equal(onlyFinding(report, 'redirect-loop').evidence.url, 'https://shop.test/a');
    assert.equal(onlyFinding(report, 'redirect-final-status').evidence.value, '404');
    assert.match(onlyFinding(report, 'redirect-mixed-hosts').detail, /2 hosts \(shop\.test, tracker\.test\)/);
    assert.equal((report.details.hops as HopDetail[])[0]?.target, 'https://shop.test/b');
    assert.equal(report.statuses['http-status'], 'poor');
    assert.equal(report.scores['best-practices'], 0);
  });

  it('the fetcher refusing an 11th hop is a loop finding with the URL it stopped at', () => {
    const failure = redirectFailure('more than 10 redirects (stopped at https://shop.test/b)');
    assert.deepEqual(failure, { kind: 'too-many', message: 'more than 10 redirects (stopped at https://shop.test/b)', stoppedAt: 'https://shop.test/b' });
    const report = analyzeRedirects({ requestedUrl: 'https://shop.test/a', facts: null, failure });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['redirect-chain', 'redirect-loop']);
    assert.equal(onlyFinding(report, 'redirect-loop').evidence.url, 'https://shop.test/b');
    assert.equal(checkResult(report, 'redirect-final-status'), 'unknown');
    assert.equal(report.incomplete, true);
  });

  it('a Location that is not a URL ends the chain without a 200', () => {
    const failure = redirectFailure('the redirect from https://shop.test/a points to an invalid URL "http://["');
    assert.equal(failure.kind, 'invalid-location');
    const report = analyzeRedirects({ requestedUrl: 'https://shop.test/a', facts: null, failure });
    assert.deepEqual(firedRules(report), ['redirect-final-status']);
    assert.equal(checkResult(report, 'redirect-loop'), 'unknown');
  });

  it('without facts every rule is unknown; findingIds are stable', () => {
    const report = redirectChainAnalyzer.analyze('<p>hi</p>', null, 'https://shop.test/');
    for (const rule of ALL) assert.equal(checkResult(report, rule), 'unknown', rule);
    assert.deepEqual(report.statuses, { 'http-status': 'unknown', 'best-practices': 'unknown', overall: 'unknown' });
    const facts = factsFor('https://shop.test/b', { redirects: [{ url: 'https://shop.test/a', status: 302, location: '/b' }] });
    const ids = () => analyzeRedirects({ requestedUrl: 'https://shop.test/a', facts, failure: null }).findings.map((f) => f.findingId);
    assert.deepEqual(ids(), ids());
  });
});
