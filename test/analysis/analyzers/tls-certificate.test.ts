import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, analyzeTls, rules, type TlsDetails } from '../../../src/analysis/analyzers/tls-certificate.ts';
import type { PageFacts, TlsFacts } from '../../../src/analysis/page-facts.ts';
import { assertValid, checkResult, factsFor, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/';
const NOW = Date.parse('2026-03-01T00:00:00Z');
const HSTS = { 'strict-transport-security': 'max-age=63072000; includeSubDomains' };
const LEAF = { subject: 'CN=shop.test', issuer: 'CN=Test Intermediate', validFrom: '2026-01-01T00:00:00.000Z', validTo: '2026-06-01T00:00:00.000Z', altNames: ['shop.test'] };
const INTERMEDIATE = { subject: 'CN=Test Intermediate', issuer: 'CN=Test Root', validFrom: '2025-01-01T00:00:00.000Z', validTo: '2030-01-01T00:00:00.000Z', altNames: [] };

/** An https fetch of shop.test with a good handshake, changed by `tls` and `headers`. */
function facts(tls: Partial<TlsFacts> = {}, headers: Record<string, string> = HSTS): PageFacts {
  const base = factsFor(URL, { headers });
  return { ...base, tls: { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', chain: [LEAF, INTERMEDIATE], daysLeft: 92, hostnameMatches: true, authorized: true, authorizationError: null, ...tls } };
}

describe('tls-certificate analyzer', () => {
  it('a good handshake with a two-year HSTS passes every rule: tls 100, details name the chain', () => {
    const report = analyzeTls(facts(), URL, NOW);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { tls: 100, overall: 100 });
    for (const r of rules) assert.equal(checkResult(report, r.id), 'pass', r.id);
    const details = report.details['tls'] as TlsDetails;
    assert.deepEqual({ protocol: details.protocol, cipher: details.cipher, daysLeft: details.daysLeft }, { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', daysLeft: 92 });
    assert.deepEqual(details.chain.map((c) => c.subject), ['CN=shop.test', 'CN=Test Intermediate']);
    assert.equal(report.incomplete, false);
  });

  it('a final response over http is tls-not-https alone; the handshake rules are not applicable; score 0', () => {
    const url = 'http://shop.test/';
    const report = analyzeTls(factsFor(url), url, NOW);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['tls-not-https']);
    const f = onlyFinding(report, 'tls-not-https');
    assert.equal(f.severity, 'high');
    assert.equal(f.evidence.url, url);
    assert.equal(checkResult(report, 'tls-chain-untrusted'), 'not_applicable');
    assert.deepEqual(report.scores, { tls: 0, overall: 0 });
  });

  it('an http URL that redirected to https is judged on the https hop', () => {
    const report = analyzeTls({ ...facts(), requestedUrl: 'http://shop.test/' }, 'http://shop.test/', NOW);
    assert.deepEqual(report.findings, []);
    assert.equal(checkResult(report, 'tls-not-https'), 'pass');
  });

  it('TLS 1.1 and an RC4 or 3DES cipher are high findings with the value as evidence', () => {
    const report = analyzeTls(facts({ protocol: 'TLSv1.1', cipher: 'ECDHE-RSA-DES-CBC3-SHA' }), URL, NOW);
    assert.deepEqual(firedRules(report), ['tls-protocol-outdated', 'tls-weak-cipher']);
    assert.equal(onlyFinding(report, 'tls-protocol-outdated').evidence.value, 'TLSv1.1');
    assert.equal(onlyFinding(report, 'tls-weak-cipher').severity, 'high');
    assert.deepEqual(firedRules(analyzeTls(facts({ cipher: 'RC4-SHA' }), URL, NOW)), ['tls-weak-cipher']);
    assert.deepEqual(firedRules(analyzeTls(facts({ protocol: 'TLSv1.2', cipher: 'ECDHE-RSA-AES128-GCM-SHA256' }), URL, NOW)), []);
  });

  it('a self-signed chain is untrusted; an expired leaf is only expired; a wrong name only a hostname mismatch', () => {
    const selfSigned = analyzeTls(facts({ authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT', chain: [{ ...LEAF, issuer: LEAF.subject }] }), URL, NOW);
    assert.deepEqual(firedRules(selfSigned), ['tls-chain-untrusted']);
    assert.match(onlyFinding(selfSigned, 'tls-chain-untrusted').detail, /DEPTH_ZERO_SELF_SIGNED_CERT/);

    const expired = analyzeTls(facts({ authorized: false, authorizationError: 'CERT_HAS_EXPIRED', daysLeft: -3 }), URL, NOW);
    assert.deepEqual(firedRules(expired), ['tls-certificate-expired']);
    assert.match(onlyFinding(expired, 'tls-certificate-expired').detail, /3 days ago/);
    assert.equal(checkResult(expired, 'tls-certificate-expiring'), 'not_applicable');

    const wrongName = analyzeTls(facts({ authorized: false, hostnameMatches: false, authorizationError: 'ERR_TLS_CERT_ALTNAME_INVALID', chain: [{ ...LEAF, altNames: ['other.test'] }, INTERMEDIATE] }), URL, NOW);
    assert.deepEqual(firedRules(wrongName), ['tls-hostname-mismatch']);
    assert.equal(onlyFinding(wrongName, 'tls-hostname-mismatch').evidence.value, 'other.test');
  });

  it('a leaf sent alone whose issuer is unknown is a missing intermediate, not a plain untrusted chain', () => {
    const report = analyzeTls(facts({ authorized: false, authorizationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', chain: [LEAF] }), URL, NOW);
    assert.deepEqual(firedRules(report), ['tls-missing-intermediate']);
    assert.match(onlyFinding(report, 'tls-missing-intermediate').detail, /CN=Test Intermediate/);
  });

  it('a certificate valid from a later date is not yet valid', () => {
    const later = { ...LEAF, validFrom: '2026-04-01T00:00:00.000Z' };
    assert.deepEqual(firedRules(analyzeTls(facts({ chain: [later, INTERMEDIATE] }), URL, NOW)), ['tls-certificate-not-yet-valid']);
    assert.deepEqual(firedRules(analyzeTls(facts({ authorized: false, authorizationError: 'CERT_NOT_YET_VALID' }), URL, NOW)), ['tls-certificate-not-yet-valid']);
  });

  it('expiry within 14 days is high, within 30 medium, 31 days is fine', () => {
    assert.equal(onlyFinding(analyzeTls(facts({ daysLeft: 14 }), URL, NOW), 'tls-certificate-expiring').severity, 'high');
    const medium = onlyFinding(analyzeTls(facts({ daysLeft: 30 }), URL, NOW), 'tls-certificate-expiring');
    assert.equal(medium.severity, 'medium');
    assert.match(medium.detail, /in 30 days/);
    assert.deepEqual(firedRules(analyzeTls(facts({ daysLeft: 31 }), URL, NOW)), []);
  });

  it('HSTS missing, without a max-age, or under six months', () => {
    const missing = analyzeTls(facts({}, {}), URL, NOW);
    assert.deepEqual(firedRules(missing), ['tls-hsts-missing']);
    assert.equal(onlyFinding(missing, 'tls-hsts-missing').evidence.header, 'strict-transport-security');
    assert.equal(checkResult(missing, 'tls-hsts-short-max-age'), 'not_applicable');
    assert.deepEqual(firedRules(analyzeTls(facts({}, { 'strict-transport-security': 'includeSubDomains' }), URL, NOW)), ['tls-hsts-missing']);
    const short = onlyFinding(analyzeTls(facts({}, { 'strict-transport-security': 'max-age=86400' }), URL, NOW), 'tls-hsts-short-max-age');
    assert.equal(short.severity, 'low');
    assert.equal(short.evidence.value, 'max-age=86400');
  });

  it('finding ids are stable across runs and independent of the detail text', () => {
    const a = analyzeTls(facts({ daysLeft: 20 }), URL, NOW);
    const b = analyzeTls(facts({ daysLeft: 10 }), URL, NOW);
    assert.equal(onlyFinding(a, 'tls-certificate-expiring').findingId, onlyFinding(b, 'tls-certificate-expiring').findingId);
  });

  it('without facts every rule is unknown and the report says why', () => {
    const report = analyze('<p>hi</p>', null, URL);
    assertValid(report);
    assert.ok(report.checks.every((c) => c.result === 'unknown'));
    assert.deepEqual(report.statuses, { tls: 'unknown', overall: 'unknown' });
    assert.equal(report.incomplete, true);
    assert.match(report.notes[0] ?? '', /no connection/);
  });
});
