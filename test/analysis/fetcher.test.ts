// The fetcher against real servers on 127.0.0.1, reached as shop.test and other.test through the
// settings an operator would use: EGRESS_ALLOW=127.0.0.1/32 and EGRESS_RESOLVE pins.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { ServiceError } from '../../src/core/errors.ts';
import { fetchPage, type FetcherOptions } from '../../src/analysis/fetcher.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import { createTestCa, startHttpSite, startHttpsSite, type TestCa, type TestSite } from './support/test-sites.ts';
import { serviceErrorOf } from '../support/assertions.ts';

const config = loadConfig({
  DATA_DIR: '/tmp/unused-fetcher',
  EGRESS_ALLOW: '127.0.0.1/32',
  EGRESS_RESOLVE: 'shop.test:127.0.0.1,other.test:127.0.0.1',
});
const options: FetcherOptions = { policy: config.egress };

const failure = (promise: Promise<unknown>): Promise<ServiceError> => serviceErrorOf(promise, 'the fetch did not fail');

/** windows-1251 bytes of "Привет" (hand-encoded: Node has no encoder for it). */
const PRIVET_1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);

/** Streams zeros until the client goes away, honouring backpressure: 5 GB is never held in memory. */
function streamForever(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

describe('the egress-safe fetcher', () => {
  let site: TestSite;
  const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
  before(async () => {
    site = await startHttpSite((req, res) => {
      const url = new URL(req.url ?? '/', 'http://shop.test');
      const hops = /^\/r\/(\d+)$/.exec(url.pathname);
      if (hops?.[1] !== undefined) {
        const left = Number(hops[1]);
        // Alternate relative and absolute locations: both are resolved against the hop's URL.
        const next = left === 0 ? '/final' : left % 2 === 0 ? `/r/${left - 1}` : `http://shop.test:${site.port}/r/${left - 1}`;
        res.writeHead(left % 2 === 0 ? 302 : 301, { location: next }).end();
        return;
      }
      switch (url.pathname) {
        case '/final':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>final</title>');
          return;
        case '/headers':
          res.setHeader('content-type', 'text/html');
          res.setHeader('set-cookie', ['session=abc; HttpOnly; Secure; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'theme=dark; SameSite=Lax']);
          res.setHeader('x-frame-options', 'DENY');
          res.setHeader('vary', ['Accept-Encoding', 'Cookie']);
          res.end('<p>ok</p>');
          return;
        case '/cp1251-header':
          res.writeHead(200, { 'content-type': 'text/html; charset=windows-1251' }).end(Buffer.concat([Buffer.from('<p>'), PRIVET_1251]));
          return;
        case '/cp1251-meta':
          res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><p>'), PRIVET_1251]));
          return;
        case '/cp1251-http-equiv':
          res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>'), PRIVET_1251]));
          return;
        case '/latin':
          res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.from('<p>caf\xe9 cr\xe8me</p>', 'latin1'));
          return;
        case '/utf8-undeclared':
          res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.from('<p>café ✓</p>', 'utf8'));
          return;
        case '/invalid-utf8':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(Buffer.from([0x3c, 0x70, 0x3e, 0x6f, 0x6b, 0x20, 0xff, 0xfe, 0xc3, 0x20, 0x65, 0x6e, 0x64]));
          return;
        case '/gzip':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }).end(zlib.gzipSync('<h1>compressed page</h1>'));
          return;
        case '/never-ends':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write('<html><body>and then nothing more');
          return;
        case '/five-gb':
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          streamForever(res);
          return;
        case '/five-gb-declared':
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(5 * 1024 ** 3) });
          streamForever(res);
          return;
        case '/gzip-bomb':
          res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(bomb);
          return;
        case '/login':
          // a login redirect that sets the session cookie on the way
          res.writeHead(302, { location: '/final', 'set-cookie': ['sessionid=5e1f; Path=/', 'theme=dark'] }).end();
          return;
        case '/hold':
          // answered when the test says so (see the concurrency test)
          return;
        default:
          res.writeHead(404).end('not here');
      }
    });
  });
  after(() => site.close());
  const at = (path: string): string => `http://shop.test:${site.port}${path}`;

  it('follows redirects by hand and records the chain', async () => {
    const facts = await fetchPage(at('/r/3'), options);
    assert.equal(facts.requestedUrl, at('/r/3'));
    assert.equal(facts.finalUrl, at('/final'));
    assert.deepEqual(
      facts.redirects.map((r) => [r.url, r.status, r.location]),
      [
        [at('/r/3'), 301, at('/r/2')],
        [at('/r/2'), 302, '/r/1'],
        [at('/r/1'), 301, at('/r/0')],
        [at('/r/0'), 302, '/final'],
      ],
    );
    assert.equal(facts.status, 200);
    assert.equal(facts.text, '<title>final</title>');
  });

  it("keeps the cookies a redirect sets, with the hop that set them (a browser's jar keeps them)", async () => {
    const facts = await fetchPage(at('/login'), options);
    assert.deepEqual(facts.redirects.map((r) => [r.url, r.setCookies]), [[at('/login'), ['sessionid=5e1f; Path=/', 'theme=dark']]]);
    assert.deepEqual(facts.setCookies, []);
    const plain = await fetchPage(at('/r/1'), options);
    assert.ok(plain.redirects.every((r) => r.setCookies === undefined), 'no cookies, no field');
  });

  it('follows 10 redirects and refuses the 11th', async () => {
    // /r/N answers N + 1 redirects (N down to 0, then /final).
    const ten = await fetchPage(at('/r/9'), options);
    assert.equal(ten.redirects.length, 10);
    assert.equal(ten.finalUrl, at('/final'));
    const finalsBefore = site.paths.filter((p) => p === '/final').length;
    const error = await failure(fetchPage(at('/r/10'), options));
    assert.equal(error.status, 422);
    assert.equal(error.error, 'fetch_failed');
    assert.equal(error.extra.phase, 'redirects');
    assert.match(error.message, /more than 10 redirects/);
    assert.equal(site.paths.filter((p) => p === '/final').length, finalsBefore, 'the 11th redirect was not followed');
  });

  it('records status, headers, every Set-Cookie, the connected address and the timings', async () => {
    const facts = await fetchPage(at('/headers'), options);
    assert.equal(facts.status, 200);
    assert.equal(facts.headers['x-frame-options'], 'DENY');
    assert.equal(facts.headers['vary'], 'Accept-Encoding, Cookie');
    assert.deepEqual(facts.setCookies, ['session=abc; HttpOnly; Secure; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'theme=dark; SameSite=Lax']);
    assert.equal(facts.mediaType, 'text/html');
    assert.equal(facts.remoteAddress, '127.0.0.1');
    assert.equal(facts.tls, null);
    assert.equal(facts.timings.dnsMs, null, 'a pinned host asks no DNS');
    assert.equal(facts.timings.tlsMs, null);
    assert.equal(typeof facts.timings.connectMs, 'number');
    assert.equal(typeof facts.timings.ttfbMs, 'number');
    assert.ok(facts.timings.totalMs >= (facts.timings.ttfbMs ?? 0));
  });

  it('decodes by the charset in the header, in <meta charset>, in http-equiv, else sniffs', async () => {
    const header = await fetchPage(at('/cp1251-header'), options);
    assert.equal(header.charset, 'windows-1251');
    assert.equal(header.text, '<p>Привет');
    const meta = await fetchPage(at('/cp1251-meta'), options);
    assert.equal(meta.charset, 'windows-1251');
    assert.ok(meta.text.endsWith('<p>Привет'));
    const equiv = await fetchPage(at('/cp1251-http-equiv'), options);
    assert.equal(equiv.charset, 'windows-1251');
    assert.ok(equiv.text.endsWith('<p>Привет'));
    const latin = await fetchPage(at('/latin'), options);
    assert.equal(latin.charset, 'windows-1252');
    assert.equal(latin.text, '<p>café crème</p>');
    const utf8 = await fetchPage(at('/utf8-undeclared'), options);
    assert.equal(utf8.charset, 'utf-8');
    assert.equal(utf8.text, '<p>café ✓</p>');
  });

  it('invalid UTF-8 still decodes, with replacement characters', async () => {
    const facts = await fetchPage(at('/invalid-utf8'), options);
    assert.equal(facts.charset, 'utf-8');
    assert.ok(facts.text.startsWith('<p>ok '));
    assert.ok(facts.text.endsWith(' end'));
    assert.ok(facts.text.includes('\uFFFD'));
  });

  it('undoes gzip and records both sizes', async () => {
    const facts = await fetchPage(at('/gzip'), options);
    assert.equal(facts.contentEncoding, 'gzip');
    assert.equal(facts.text, '<h1>compressed page</h1>');
    assert.equal(facts.body.length, '<h1>compressed page</h1>'.length);
    assert.ok(facts.transferBytes > 0 && facts.transferBytes !== facts.body.length);
  });

  it('a response that never ends fails with phase timeout', async () => {
    const error = await failure(fetchPage(at('/never-ends'), { ...options, limits: { totalTimeoutMs: 400 } }));
    assert.equal(error.status, 422);
    assert.equal(error.error, 'fetch_failed');
    assert.equal(error.extra.phase, 'timeout');
    assert.match(error.message, /within 400 ms/);
  });

  it('a 5 GB response fails with phase size at the cap, streamed or declared', async () => {
    const streamed = await failure(fetchPage(at('/five-gb'), { ...options, limits: { maxBytes: 1024 * 1024 } }));
    assert.equal(streamed.extra.phase, 'size');
    assert.match(streamed.message, /over the 1048576-byte cap/);
    const declared = await failure(fetchPage(at('/five-gb-declared'), options));
    assert.equal(declared.extra.phase, 'size');
    assert.match(declared.message, /declares 5368709120 bytes/);
  });

  it('a gzip bomb fails with phase size on the decoded bytes', async () => {
    assert.ok(bomb.length < 100 * 1024, 'the bomb is small on the wire');
    const error = await failure(fetchPage(at('/gzip-bomb'), options));
    assert.equal(error.error, 'fetch_failed');
    assert.equal(error.extra.phase, 'size');
    assert.match(error.message, /gzip-decoded response is over the 5242880-byte cap/);
  });

  it('a name that does not resolve fails with phase dns', async () => {
    const error = await failure(fetchPage('http://nowhere.example/', { ...options, resolver: async () => { throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }); } }));
    assert.equal(error.status, 422);
    assert.equal(error.extra.phase, 'dns');
    assert.match(error.message, /nowhere\.example did not resolve/);
  });

  it('a closed port fails with phase connect', async () => {
    const closed = await startHttpSite(() => undefined);
    const port = closed.port;
    await closed.close();
    const error = await failure(fetchPage(`http://shop.test:${port}/`, options));
    assert.equal(error.extra.phase, 'connect');
  });

  it('a server that accepts but never completes the TLS handshake fails with phase tls at the connect limit', async () => {
    const silent = createServer();
    const sockets: Socket[] = [];
    silent.on('connection', (socket: Socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const port = (silent.address() as AddressInfo).port;
      const error = await failure(fetchPage(`https://shop.test:${port}/`, { ...options, limits: { connectTimeoutMs: 300 } }));
      assert.equal(error.extra.phase, 'tls');
      assert.match(error.message, /no TLS handshake within 300 ms/);
      // A plain HTTP server spoken to in TLS: the handshake itself fails.
      const wrong = await failure(fetchPage(`https://shop.test:${site.port}/final`, options));
      assert.equal(wrong.extra.phase, 'tls');
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('EGRESS_ALLOW and EGRESS_RESOLVE are checked at start', () => {
    assert.throws(() => loadConfig({ EGRESS_RESOLVE: 'shop.test' }), ConfigError);
    assert.throws(() => loadConfig({ EGRESS_RESOLVE: 'shop.test:not-an-address' }), ConfigError);
    assert.throws(() => loadConfig({ EGRESS_ALLOW: '10.0.0.0/99' }), ConfigError);
    const parsed = loadConfig({ EGRESS_ALLOW: ' intranet.example , 10.0.0.0/8,::1 ', EGRESS_RESOLVE: 'a.test:10.0.0.5,b.test:[::1]' });
    assert.deepEqual([...parsed.egress.allowHosts], ['intranet.example']);
    assert.equal(parsed.egress.allowRanges.length, 2);
    assert.deepEqual([...parsed.egress.pins], [['a.test', '10.0.0.5'], ['b.test', '::1']]);
    assert.deepEqual(parsed.fetch, { maxBytes: 5 * 1024 * 1024, connectTimeoutMs: 5000, totalTimeoutMs: 15_000, concurrency: 16, perAccount: 4, maxQueued: 32 });
  });

  it('runs at most N fetches per account, queues the next and answers 429 fetch_busy beyond the queue', async () => {
    const fetcher = createEgressFetcher(options, { concurrency: 4, perAccount: 1, maxQueued: 4, maxQueuedPerAccount: 1 });
    const held = site.nextRequest('/hold');
    const first = fetcher.fetch(at('/hold'), { account: 'acct-a' });
    const firstRequest = await held;
    const second = fetcher.fetch(at('/final'), { account: 'acct-a' });
    assert.deepEqual({ queued: fetcher.status().queued, running: fetcher.status().running }, { queued: 1, running: 1 });
    const busy = await failure(fetcher.fetch(at('/final'), { account: 'acct-a' }));
    assert.equal(busy.status, 429);
    assert.equal(busy.error, 'fetch_busy');
    assert.equal(busy.headers['Retry-After'], '2');
    // Another account is not held up by the first one's queue.
    const other = await fetcher.fetch(at('/final'), { account: 'acct-b' });
    assert.equal(other.status, 200);
    assert.equal(fetcher.status().queued, 1, 'acct-a\'s second fetch still waits for its first');
    firstRequest.socket.end('HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nheld');
    assert.equal((await first).text, 'held');
    assert.equal((await second).text, '<title>final</title>');
    assert.deepEqual({ queued: fetcher.status().queued, running: fetcher.status().running, name: fetcher.status().name }, { queued: 0, running: 0, name: 'fetcher' });
  });
});

describe('the egress-safe fetcher over HTTPS with a test CA', () => {
  let ca: TestCa;
  let site: TestSite;
  before(async () => {
    ca = createTestCa();
    site = await startHttpsSite((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>secure shop</h1>'), ca.issue(['shop.test', 'www.shop.test'], 20));
  });
  after(async () => {
    await site.close();
    ca.dispose();
  });

  it('records protocol, cipher, the chain, days left and a matching, trusted certificate', async () => {
    const facts = await fetchPage(`https://shop.test:${site.port}/`, { ...options, extraCa: [ca.caPem] });
    assert.equal(facts.text, '<h1>secure shop</h1>');
    const tls = facts.tls;
    assert.ok(tls !== null);
    assert.equal(tls.protocol, 'TLSv1.3');
    assert.match(tls.cipher ?? '', /^TLS_(AES|CHACHA20)_/);
    assert.equal(tls.chain.length, 2);
    assert.match(tls.chain[0]?.subject ?? '', /CN=shop\.test/);
    assert.deepEqual(tls.chain[0]?.altNames, ['shop.test', 'www.shop.test']);
    assert.match(tls.chain[0]?.issuer ?? '', /CN=Fetcher Test CA/);
    assert.match(tls.chain[1]?.subject ?? '', /CN=Fetcher Test CA/);
    assert.match(tls.chain[0]?.validTo ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.ok(tls.daysLeft === 19 || tls.daysLeft === 20, `daysLeft ${tls.daysLeft}`);
    assert.equal(tls.hostnameMatches, true);
    assert.equal(tls.authorized, true);
    assert.equal(tls.authorizationError, null);
    assert.equal(typeof facts.timings.tlsMs, 'number');
  });

  it('a certificate for another name is reported, not trusted: hostnameMatches and authorized false', async () => {
    const facts = await fetchPage(`https://other.test:${site.port}/`, { ...options, extraCa: [ca.caPem] });
    assert.equal(facts.status, 200);
    assert.equal(facts.text, '<h1>secure shop</h1>');
    assert.equal(facts.tls?.hostnameMatches, false);
    assert.equal(facts.tls?.authorized, false);
    assert.equal(facts.tls?.authorizationError, 'ERR_TLS_CERT_ALTNAME_INVALID');
    assert.deepEqual(facts.tls?.chain[0]?.altNames, ['shop.test', 'www.shop.test']);
  });

  it('a chain from an unknown CA is reported with the reason', async () => {
    const facts = await fetchPage(`https://shop.test:${site.port}/`, options);
    assert.equal(facts.tls?.hostnameMatches, true);
    assert.equal(facts.tls?.authorized, false);
    assert.match(facts.tls?.authorizationError ?? '', /CERT|ISSUER|SIGNATURE/);
  });
});
