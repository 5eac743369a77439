// Bad input for every URL tool that takes `url` (issue 9, section 6), through the whole app and
// the real egress-safe fetcher: a missing or malformed url, other schemes, private addresses
// (literal, mapped IPv6, metadata, behind a redirect, behind DNS), a response that never ends, a
// 5 GB response, a gzip bomb, invalid UTF-8 and 100,000 nested elements. Each answer is JSON and
// never a 5xx: a 4xx naming the problem, or a 200 report that says what it could not analyse;
// and no failure is charged. Tools are discovered from the catalog, so tools added later are
// covered without a change here.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { buildEgressPolicy } from '../../src/analysis/egress-policy.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import type { Resolver } from '../../src/analysis/fetcher.ts';
import { loadCatalog } from '../../src/core/catalog.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startHttpSite, type TestSite } from './support/test-sites.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';

// It tries refused addresses: in a network namespace with only loopback, a regression could reach nothing.
await runInIsolatedNetwork(import.meta.filename);

const catalog = await loadCatalog();
/** URL tools whose required `url` is the page they fetch (the CSP evaluator's optional url only labels its report). */
const urlTools = catalog.tools.filter((t) => t.kind === 'url' && t.input instanceof z.ZodObject && 'url' in t.input.shape && !(t.input.shape['url'] as z.ZodType).safeParse(undefined).success);
/**
 * Tools that read a response's headers, TLS or robots.txt, never the page's HTML: they answer the
 * nested page with a 200 report that has no parse to stop. Every other tool must say where its
 * parse stopped.
 */
const READS_NO_HTML = new Set([
  'security_apis_cookie_flags_checker',
  'security_apis_cors_checker',
  'security_apis_tls_certificate_checker',
  'seo_apis_redirect_chain_checker',
  'seo_apis_robots_sitemap_checker',
]);

/** The hosts of the misbehaving site: every path on a host behaves the same, robots.txt included. */
const HOSTS = ['redirect.test', 'never.test', 'huge.test', 'bomb.test', 'badutf8.test', 'nested.test'];
const MAX_BYTES = 2 * 1024 * 1024;
const TOTAL_TIMEOUT_MS = 1500;
const NESTED = 100_000;

/** Streams zeros until the client goes away, honouring backpressure: 5 GB is never held in memory. */
function streamForever(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  res.on('close', () => res.off('drain', pump));
  pump();
}

/** Fields of the tool's first example with `url` replaced (or removed), so other required fields are filled. */
function inputFor(tool: AnyTool, url: string | undefined): Record<string, unknown> {
  const base = { ...((tool.urlExamples?.[0]?.input ?? {}) as Record<string, unknown>) };
  if (url === undefined) delete base['url'];
  else base['url'] = url;
  return base;
}

function call(t: TestApp, tool: AnyTool, input: Record<string, unknown>, apiKey: string): Promise<LightMyRequestResponse> {
  if (tool.method === 'GET') {
    const query = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return t.app.inject({ method: 'GET', url: tool.path, query, headers: { 'x-api-key': apiKey } });
  }
  return t.app.inject({ method: 'POST', url: tool.path, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: JSON.stringify(input) });
}

/** The answer is JSON and not a 5xx; returns the parsed body. */
function jsonBody(response: LightMyRequestResponse, what: string): Record<string, unknown> {
  assert.ok(response.statusCode < 500, `${what}: ${response.statusCode} ${response.body.slice(0, 500)}`);
  assert.match(String(response.headers['content-type']), /^application\/json/, what);
  return response.json() as Record<string, unknown>;
}

function assertError(response: LightMyRequestResponse, what: string, status: number, codes: readonly string[], extra: (body: Record<string, unknown>) => void = () => {}): void {
  const body = jsonBody(response, what);
  assert.equal(response.statusCode, status, `${what}: ${response.body.slice(0, 500)}`);
  assert.ok(codes.includes(String(body['error'])), `${what}: error ${String(body['error'])}, expected ${codes.join(' or ')}`);
  assert.equal(typeof body['message'], 'string', `${what}: the error has a message`);
  extra(body);
}

/**
 * A fetch that could not complete: 422 fetch_failed in `phase`, or (for a tool that reports a
 * failed side fetch, such as robots.txt, as a finding) a 200 report whose findings or notes say so.
 * Returns whether it was a report (and so charged).
 */
function failedOrReported(tool: AnyTool, response: LightMyRequestResponse, what: string, phase: string, said: RegExp): boolean {
  const body = jsonBody(response, what);
  if (response.statusCode === 200) {
    assert.doesNotThrow(() => tool.output.parse(body['result']), `${what}: the output schema describes the result`);
    const report = (body['result'] as { report?: { findings?: { detail: string; title: string }[]; notes?: string[] } }).report;
    const told = [...(report?.notes ?? []), ...(report?.findings ?? []).flatMap((f) => [f.title, f.detail])];
    assert.ok(told.some((text) => said.test(text)), `${what}: a 200 report must say what it could not read (${said}): ${JSON.stringify(told).slice(0, 800)}`);
    return true;
  }
  assertError(response, what, 422, ['fetch_failed'], (b) => {
    assert.equal(b['phase'], phase, JSON.stringify(b));
    assert.match(String(b['message']), said);
  });
  return false;
}

/** A 200 whose result the output schema describes; returns the report's notes (if the result has a report). */
function reportNotes(tool: AnyTool, response: LightMyRequestResponse, what: string): string[] {
  const body = jsonBody(response, what);
  assert.equal(response.statusCode, 200, `${what}: ${response.body.slice(0, 500)}`);
  assert.doesNotThrow(() => tool.output.parse(body['result']), `${what}: the output schema describes the result`);
  const report = (body['result'] as { report?: { notes?: string[] } }).report;
  return report?.notes ?? [];
}

describe('URL tools: bad input answers a clear 4xx JSON or a report saying what it could not analyse, and failures are not charged', () => {
  let loopback: TestSite;
  let site: TestSite;
  let strict: TestApp;
  let web: TestApp;
  const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
  // Left open, as a hostile page would (and as HTML allows): 500 KB, under the tightest cap a tool sets (512 KB).
  const nested = `<!doctype html><html lang="en"><head><title>Deep</title></head><body>${'<div>'.repeat(NESTED)}deep`;
  const keys = new Map<string, string>();
  /** 200 reports each tool gave on the misbehaving site, beyond the two pages that are fine */
  const reported = new Map<string, number>();
  /** each tool's call of the page that never ends, started at once for all tools so their time limits run side by side */
  const neverEnding = new Map<string, Promise<LightMyRequestResponse>>();
  const at = (host: string, path = '/page'): string => `http://${host}:${site.port}${path}`;

  before(async () => {
    // The target of every refused URL: it must never see a connection.
    loopback = await startHttpSite((_req, res) => res.end('<title>secret</title>'));
    site = await startHttpSite((req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      switch (host) {
        case 'redirect.test':
          res.writeHead(302, { location: `http://127.0.0.1:${loopback.port}/target` }).end();
          return;
        case 'never.test':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.write('<!doctype html><html><head><title>Waiting</title></head><body>and then nothing more');
          return;
        case 'huge.test':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          streamForever(res);
          return;
        case 'bomb.test':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }).end(bomb);
          return;
        case 'badutf8.test':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(Buffer.concat([Buffer.from('<!doctype html><html lang="en"><head><title>Caf'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('</title></head><body><h1>Broken '), Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from(' bytes</h1></body></html>')]));
          return;
        case 'nested.test':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(nested);
          return;
        default:
          res.writeHead(404).end();
      }
    });
    // EGRESS_ALLOW and EGRESS_RESOLVE empty; DNS answers private addresses for two names.
    const answers: Record<string, string[]> = { 'intranet.example.com': ['10.0.0.7'], 'loop.example.com': ['93.184.215.14', '127.0.0.1'] };
    const resolver: Resolver = async (host) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const strictFetcher = createEgressFetcher({ policy: buildEgressPolicy('', ''), resolver }, { concurrency: 16, perAccount: 8, maxQueued: 64 });
    // The misbehaving hosts allowed by name and pinned to 127.0.0.1 (not 127.0.0.1 itself, so the redirect is refused).
    const webFetcher = createEgressFetcher(
      { policy: buildEgressPolicy(HOSTS.join(','), HOSTS.map((h) => `${h}:127.0.0.1`).join(',')), limits: { totalTimeoutMs: TOTAL_TIMEOUT_MS, maxBytes: MAX_BYTES } },
      { concurrency: 64, perAccount: 8, maxQueued: 256 },
    );
    strict = await startTestApp({ fetcher: strictFetcher });
    web = await startTestApp({ fetcher: webFetcher });
    for (const tool of urlTools) {
      // One account per tool and app, so each tool's usage is its own.
      keys.set(`strict:${tool.operationId}`, (await strict.account({ plan: 'business', quota: 10_000 })).apiKey);
      keys.set(`web:${tool.operationId}`, (await web.account({ plan: 'business', quota: 10_000 })).apiKey);
    }
    for (const tool of urlTools) neverEnding.set(tool.operationId, call(web, tool, inputFor(tool, at('never.test')), keys.get(`web:${tool.operationId}`)!));
  });
  after(async () => {
    await Promise.all([...neverEnding.values()]);
    await strict?.close();
    await web?.close();
    await Promise.all([loopback?.close(), site?.close()]);
  });

  it('finds the URL tools that take url', () => {
    assert.ok(urlTools.length >= 1);
    assert.ok(urlTools.some((t) => t.operationId === 'seo_apis_heading_structure_analyzer'));
  });

  for (const tool of urlTools) {
    const id = tool.operationId;
    describe(id, () => {
      const strictKey = () => keys.get(`strict:${id}`)!;
      const webKey = () => keys.get(`web:${id}`)!;

      it('a missing url is 400 validation_error naming url', async () => {
        const response = await call(strict, tool, inputFor(tool, undefined), strictKey());
        assertError(response, 'missing url', 400, ['validation_error'], (body) => {
          const issues = (body['issues'] as { field: string }[] | undefined) ?? [];
          assert.ok(issues.some((i) => i.field === 'url') || /\burl\b/.test(String(body['message'])), `names url: ${JSON.stringify(body)}`);
        });
      });

      it('a malformed url is 400', async () => {
        for (const url of ['not a url', 'http://', '//example.com/page', 'http://exa mple.com/']) {
          assertError(await call(strict, tool, inputFor(tool, url), strictKey()), url, 400, ['validation_error', 'invalid_url']);
        }
      });

      it('ftp:// and file:// are 400 invalid_url or url_not_allowed', async () => {
        for (const url of ['ftp://example.com/page', 'file:///etc/passwd']) {
          assertError(await call(strict, tool, inputFor(tool, url), strictKey()), url, 400, ['invalid_url', 'url_not_allowed', 'validation_error']);
        }
      });

      it('loopback, mapped IPv6 loopback and the metadata address are 400 url_not_allowed, and nothing connects', async () => {
        const cases: [string, RegExp][] = [
          [`http://127.0.0.1:${loopback.port}/`, /127\.0\.0\.1 is loopback/],
          [`http://[::ffff:127.0.0.1]:${loopback.port}/`, /IPv6 form of 127\.0\.0\.1\) is loopback/],
          ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata endpoint/],
        ];
        for (const [url, message] of cases) {
          assertError(await call(strict, tool, inputFor(tool, url), strictKey()), url, 400, ['url_not_allowed'], (body) => assert.match(String(body['message']), message, url));
        }
        assert.equal(loopback.connections, 0);
      });

      it('a DNS name that resolves to a private address is 400 url_not_allowed', async () => {
        assertError(await call(strict, tool, inputFor(tool, 'http://intranet.example.com/'), strictKey()), 'intranet', 400, ['url_not_allowed'], (body) =>
          assert.match(String(body['message']), /10\.0\.0\.7 of intranet\.example\.com is private/),
        );
        assertError(await call(strict, tool, inputFor(tool, `http://loop.example.com:${loopback.port}/`), strictKey()), 'loop', 400, ['url_not_allowed'], (body) =>
          assert.match(String(body['message']), /127\.0\.0\.1 of loop\.example\.com is loopback/),
        );
        assert.equal(loopback.connections, 0);
      });

      it('a redirect to a private address is 400 url_not_allowed at the hop', async () => {
        assertError(await call(web, tool, inputFor(tool, at('redirect.test')), webKey()), 'redirect', 400, ['url_not_allowed'], (body) =>
          assert.match(String(body['message']), /127\.0\.0\.1 is loopback/),
        );
        assert.equal(loopback.connections, 0);
        assert.ok(!loopback.paths.includes('/target'));
      });

      const count = (was: boolean): void => {
        if (was) reported.set(id, (reported.get(id) ?? 0) + 1);
      };

      it(`a response that never ends is 422 fetch_failed, phase timeout (limit ${TOTAL_TIMEOUT_MS} ms), or a report saying so`, async () => {
        count(failedOrReported(tool, await neverEnding.get(id)!, 'never ends', 'timeout', /within \d+ ms|timed out|time limit/));
      });

      it('a 5 GB response is 422 fetch_failed, phase size, at the cap, or a report saying so', async () => {
        count(failedOrReported(tool, await call(web, tool, inputFor(tool, at('huge.test')), webKey()), '5 GB', 'size', /over the \d+-byte cap|over \d+ (KB|bytes)/));
      });

      it('a gzip bomb is 422 fetch_failed, phase size, on the decoded bytes, or a report saying so', async () => {
        assert.ok(bomb.length < 100 * 1024);
        count(failedOrReported(tool, await call(web, tool, inputFor(tool, at('bomb.test')), webKey()), 'gzip bomb', 'size', /gzip-decoded response is over the|over \d+ (KB|bytes)/));
      });

      it('invalid UTF-8 is a 200 report', async () => {
        reportNotes(tool, await call(web, tool, inputFor(tool, at('badutf8.test')), webKey()), 'invalid UTF-8');
      });

      it(`${NESTED.toLocaleString('en')} nested elements: a 200 report whose notes say where parsing stopped`, async () => {
        const notes = reportNotes(tool, await call(web, tool, inputFor(tool, at('nested.test')), webKey()), 'nested');
        if (READS_NO_HTML.has(id)) return;
        assert.ok(notes.some((n) => /elements nested deeper than 512: the page was analysed up to line \d+ only/.test(n)), `notes: ${JSON.stringify(notes)}`);
      });

      it('charged only the reports: no refusal or failed fetch cost a credit', async () => {
        await neverEnding.get(id);
        for (const [t, key, reports] of [[strict, strictKey(), 0], [web, webKey(), 2 + (reported.get(id) ?? 0)]] as const) {
          const usage = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': key } })).json().result as { used: number; byTool: { operationId: string; credits: number; failures: number }[] };
          assert.equal(usage.used, reports * tool.credits, JSON.stringify(usage.byTool));
          const mine = usage.byTool.find((b) => b.operationId === id);
          assert.equal(mine?.credits ?? 0, reports * tool.credits);
        }
      });
    });
  }
});
