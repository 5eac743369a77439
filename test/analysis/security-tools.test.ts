// The security tools through the whole app on real TLS: certificates that are expired, name
// another host, lack their intermediate, or are good for a year, each served by its own HTTPS
// site on loopback and fetched by the real egress-safe fetcher trusting a throwaway root; a CORS
// server that really reflects the Origin it is sent; several Set-Cookie headers on one response;
// and the 400s for an origin the tool will not probe with.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildEgressPolicy } from '../../src/analysis/egress-policy.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import type { Report } from '../../src/analysis/findings.ts';
import type { TlsDetails } from '../../src/analysis/analyzers/tls-certificate.ts';
import type { CookieDetails } from '../../src/analysis/analyzers/cookie-report.ts';
import type { CorsAnswer } from '../../src/analysis/analyzers/cors.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startHttpsSite, type TestSite } from './support/test-sites.ts';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const CA_CONFIG = `[ca]\ndefault_ca = local\n[local]\ndir = .\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\nunique_subject = no\n[any]\ncommonName = supplied\n`;

/** A root, an intermediate under it, and leaves with chosen validity dates (openssl ca takes explicit dates). */
function createPki() {
  const dir = mkdtempSync(join(tmpdir(), 'security-tools-pki-'));
  const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  ssl(['req', '-x509', ...EC, '-keyout', 'root.key', '-out', 'root.pem', '-days', '30', '-subj', '/CN=Security Tools Test Root', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  writeFileSync(join(dir, 'inter.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  ssl(['req', ...EC, '-keyout', 'inter.key', '-out', 'inter.csr', '-subj', '/CN=Security Tools Test Intermediate']);
  ssl(['x509', '-req', '-in', 'inter.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-set_serial', '99', '-days', '30', '-extfile', 'inter.ext', '-out', 'inter.pem']);
  let n = 0;
  const stamp = (date: Date) => `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  return {
    rootPem: readFileSync(join(dir, 'root.pem'), 'utf8'),
    /** key and chain PEM: the leaf, then the intermediate when `sendIntermediate` */
    leaf(names: string[], notBefore: Date, notAfter: Date, sendIntermediate = true): { key: string; cert: string } {
      const id = `leaf${++n}`;
      writeFileSync(join(dir, `${id}.ext`), `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
      ssl(['req', ...EC, '-keyout', `${id}.key`, '-out', `${id}.csr`, '-subj', `/CN=${names[0]}`]);
      ssl(['ca', '-batch', '-config', 'ca.cnf', '-cert', 'inter.pem', '-keyfile', 'inter.key', '-startdate', stamp(notBefore), '-enddate', stamp(notAfter), '-in', `${id}.csr`, '-out', `${id}.pem`, '-extfile', `${id}.ext`, '-notext']);
      const leafPem = readFileSync(join(dir, `${id}.pem`), 'utf8');
      return { key: readFileSync(join(dir, `${id}.key`), 'utf8'), cert: sendIntermediate ? leafPem + readFileSync(join(dir, 'inter.pem'), 'utf8') : leafPem };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const DAY = 86_400_000;
const HSTS = 'max-age=63072000; includeSubDomains';
const page = (res: ServerResponse, headers: Record<string, string | string[]> = {}) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'strict-transport-security': HSTS, ...headers });
  res.end('<!doctype html><title>t</title><h1>t</h1>');
};

describe('security tools through the app on real TLS', () => {
  let pki: ReturnType<typeof createPki>;
  let t: TestApp;
  let apiKey: string;
  const sites: Record<string, TestSite> = {};
  const requests: IncomingMessage[] = [];

  before(async () => {
    pki = createPki();
    const now = Date.now();
    sites['good'] = await startHttpsSite((_req, res) => page(res), pki.leaf(['example.com'], new Date(now - DAY), new Date(now + 365 * DAY)));
    sites['expired'] = await startHttpsSite((_req, res) => page(res), pki.leaf(['example.com'], new Date(now - 60 * DAY), new Date(now - 5 * DAY)));
    sites['wrongHost'] = await startHttpsSite((_req, res) => page(res), pki.leaf(['other.test'], new Date(now - DAY), new Date(now + 365 * DAY)));
    sites['noIntermediate'] = await startHttpsSite((_req, res) => page(res), pki.leaf(['example.com'], new Date(now - DAY), new Date(now + 365 * DAY), false));
    sites['soon'] = await startHttpsSite((_req, res) => page(res), pki.leaf(['example.com'], new Date(now - DAY), new Date(now + 10 * DAY + 3_600_000)));
    // A real reflecting CORS server: whatever Origin comes is allowed, with credentials.
    sites['cors'] = await startHttpsSite((req, res) => {
      requests.push(req);
      const origin = req.headers.origin;
      const cors: Record<string, string> = origin === undefined ? {} : { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' };
      if (req.method === 'OPTIONS') {
        Object.assign(cors, { 'access-control-allow-methods': String(req.headers['access-control-request-method']), 'access-control-allow-headers': String(req.headers['access-control-request-headers']) });
      }
      page(res, cors);
    }, pki.leaf(['example.com'], new Date(now - DAY), new Date(now + 365 * DAY)));
    sites['cookies'] = await startHttpsSite((_req, res) => page(res, { 'set-cookie': ['sessionid=abc; Path=/', 'theme=dark; Secure; SameSite=Lax', '__Host-csrf=x; Secure; Path=/; SameSite=Strict'] }), pki.leaf(['example.com'], new Date(now - DAY), new Date(now + 365 * DAY)));
    const fetcher = createEgressFetcher(
      { policy: buildEgressPolicy('127.0.0.1/32', 'example.com:127.0.0.1'), extraCa: [pki.rootPem], limits: { totalTimeoutMs: 10_000 } },
      { concurrency: 8, perAccount: 8, maxQueued: 32 },
    );
    t = await startTestApp({ fetcher });
    ({ apiKey } = await t.account({ plan: 'business', quota: 1_000_000 }));
  });
  after(async () => {
    await t.close();
    await Promise.all(Object.values(sites).map((s) => s.close()));
    pki.dispose();
  });

  const url = (site: string, path = '/') => `https://example.com:${sites[site]?.port}${path}`;
  async function get(tool: string, query: Record<string, string>) {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/security-apis/${tool}`, query, headers: { 'x-api-key': apiKey } });
    return { status: response.statusCode, body: response.json() };
  }
  async function report(tool: string, query: Record<string, string>): Promise<Report> {
    const { status, body } = await get(tool, query);
    assert.equal(status, 200, JSON.stringify(body).slice(0, 1000));
    return body.result.report as Report;
  }
  const fired = (r: Report) => [...new Set(r.findings.map((f) => f.rule))].sort();
  const tls = (r: Report) => r.details['tls'] as TlsDetails;

  it('tls: a trusted, year-long certificate with HSTS passes everything; the chain is leaf then intermediate', async () => {
    const r = await report('tls-certificate-checker', { url: url('good') });
    assert.deepEqual(fired(r), []);
    assert.deepEqual(r.scores, { tls: 100, overall: 100 });
    const d = tls(r);
    assert.equal(d.authorized, true);
    assert.ok(d.protocol === 'TLSv1.3' || d.protocol === 'TLSv1.2', String(d.protocol));
    assert.ok(d.daysLeft !== null && d.daysLeft >= 363 && d.daysLeft <= 365, String(d.daysLeft));
    assert.deepEqual(d.chain.slice(0, 2).map((c) => c.subject), ['CN=example.com', 'CN=Security Tools Test Intermediate']);
  });

  it('tls: an expired certificate is tls-certificate-expired (high) and nothing else', async () => {
    const r = await report('tls-certificate-checker', { url: url('expired') });
    assert.deepEqual(fired(r), ['tls-certificate-expired']);
    assert.equal(r.findings[0]?.severity, 'high');
    assert.equal(tls(r).authorizationError, 'CERT_HAS_EXPIRED');
    assert.ok((tls(r).daysLeft ?? 0) < 0);
  });

  it('tls: a certificate for another host is tls-hostname-mismatch, naming the names it has', async () => {
    const r = await report('tls-certificate-checker', { url: url('wrongHost') });
    assert.deepEqual(fired(r), ['tls-hostname-mismatch']);
    assert.equal(r.findings[0]?.evidence.value, 'other.test');
    assert.equal(tls(r).authorizationError, 'ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('tls: a leaf served without its intermediate is tls-missing-intermediate', async () => {
    const r = await report('tls-certificate-checker', { url: url('noIntermediate') });
    assert.deepEqual(fired(r), ['tls-missing-intermediate']);
    assert.equal(tls(r).authorizationError, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('tls: ten days left is tls-certificate-expiring at high severity', async () => {
    const r = await report('tls-certificate-checker', { url: url('soon') });
    assert.deepEqual(fired(r), ['tls-certificate-expiring']);
    assert.equal(r.findings[0]?.severity, 'high');
    assert.equal(tls(r).daysLeft, 10);
  });

  it('security headers: HSTS counts on a trusted https page and not behind an expired certificate', async () => {
    type Observatory = { score: number; grade: string; tests: { rule: string; result: string }[] };
    const good = await report('security-headers-grader', { url: url('good') });
    const o = good.details['observatory'] as Observatory;
    // No CSP (-25), no framing protection (-20), no nosniff (-5): 50, a C.
    assert.deepEqual([o.score, o.grade], [50, 'C']);
    assert.equal(good.checks.find((c) => c.rule === 'security-hsts')?.result, 'pass');
    assert.deepEqual(fired(good), ['security-coop', 'security-csp', 'security-x-content-type-options', 'security-x-frame-options']);
    const expired = await report('security-headers-grader', { url: url('expired') });
    const hsts = (expired.details['observatory'] as Observatory).tests.find((x) => x.rule === 'security-hsts');
    assert.equal(hsts?.result, 'hsts-invalid-cert');
  });

  it('cookies: three Set-Cookie headers on one response, each judged and listed', async () => {
    const r = await report('cookie-flags-checker', { url: url('cookies') });
    assert.deepEqual(fired(r), ['cookie-httponly-missing', 'cookie-samesite-missing', 'cookie-secure-missing']);
    assert.ok(r.findings.every((f) => f.title.endsWith(': sessionid')));
    assert.deepEqual((r.details['cookies'] as CookieDetails[]).map((c) => [c.name, c.secure, c.httpOnly, c.sameSite]), [
      ['sessionid', false, false, null],
      ['theme', true, false, 'lax'],
      ['__Host-csrf', true, false, 'strict'],
    ]);
  });

  it('cors: a server that reflects any Origin with credentials; the server saw the three probes as sent', async () => {
    requests.length = 0;
    const r = await report('cors-checker', { url: url('cors', '/api') });
    // It reflects Origin: null too, with credentials.
    assert.deepEqual(fired(r), ['cors-null-origin-allowed', 'cors-preflight-permissive', 'cors-reflects-origin', 'cors-vary-origin-missing']);
    assert.ok(r.findings.filter((f) => f.rule !== 'cors-vary-origin-missing').every((f) => f.severity === 'high'));
    const seen = requests.map((q) => [q.method, q.headers.origin, q.headers['access-control-request-method'], q.headers['access-control-request-headers']]).sort();
    assert.deepEqual(seen, [
      ['GET', 'https://cors-probe.example', undefined, undefined],
      ['GET', 'null', undefined, undefined],
      ['OPTIONS', 'https://cors-probe.example', 'PUT', 'authorization'],
    ]);
    assert.deepEqual((r.details['answers'] as CorsAnswer[]).map((a) => [a.request, a.status, a.allowOrigin, a.allowCredentials]), [
      ['origin', 200, 'https://cors-probe.example', 'true'],
      ['null-origin', 200, 'null', 'true'],
      ['preflight', 200, 'https://cors-probe.example', 'true'],
    ]);
  });

  it('cors: a chosen origin is sent instead; a bad or same-site origin is a 400 naming the field', async () => {
    requests.length = 0;
    await report('cors-checker', { url: url('cors', '/api'), origin: 'https://partner.test' });
    assert.ok(requests.some((q) => q.headers.origin === 'https://partner.test'));
    const bad = await get('cors-checker', { url: url('cors', '/api'), origin: 'https://x.test/path\r\nx: y' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'validation_error');
    assert.match(JSON.stringify(bad.body), /origin/);
    const own = await get('cors-checker', { url: url('cors', '/api'), origin: `https://example.com:${sites['cors']?.port}` });
    assert.equal(own.status, 400);
    assert.equal(own.body.error, 'validation_error');
    assert.match(JSON.stringify(own.body), /not its own/);
  });
});
