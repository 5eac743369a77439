// The SSRF suite: EGRESS_ALLOW and EGRESS_RESOLVE empty, a real server on 127.0.0.1 counting its
// connections. Every refused form answers 400 url_not_allowed naming the rule, and none of them
// reaches the server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { ServiceError } from '../../src/core/errors.ts';
import { buildEgressPolicy } from '../../src/analysis/egress-policy.ts';
import { fetchPage, type Resolver } from '../../src/analysis/fetcher.ts';
import { startHttpSite, type TestSite } from './support/test-sites.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';
import { serviceErrorOf } from '../support/assertions.ts';

// In a network namespace with only loopback: a refusal that regressed could still reach nothing.
await runInIsolatedNetwork(import.meta.filename);

const config = loadConfig({ DATA_DIR: '/tmp/unused-ssrf', LOG_LEVEL: 'silent' });

const refusal = (promise: Promise<unknown>): Promise<ServiceError> => serviceErrorOf(promise, 'the fetch was not refused');

describe('SSRF: the address rules with EGRESS_ALLOW and EGRESS_RESOLVE empty', () => {
  let site: TestSite;
  before(async () => {
    site = await startHttpSite((req, res) => {
      if (req.url === '/to-loopback') res.writeHead(302, { location: `http://127.0.0.1:${site.port}/target` }).end();
      else if (req.url === '/to-mapped') res.writeHead(301, { location: `http://[::ffff:127.0.0.1]:${site.port}/target` }).end();
      else if (req.url === '/to-file') res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      else res.end('secret');
    });
  });
  after(() => site.close());

  it('the settings are empty by default', () => {
    assert.equal(config.egress.allowHosts.size, 0);
    assert.equal(config.egress.allowRanges.length, 0);
    assert.equal(config.egress.pins.size, 0);
  });

  it('refuses every private, local and special form, naming the rule, and opens no connection', async () => {
    const p = () => site.port;
    const cases: [string, string, RegExp][] = [
      [`http://127.0.0.1:${p()}/`, 'loopback', /the address 127\.0\.0\.1 is loopback/],
      [`http://127.9.9.9:${p()}/`, 'loopback', /127\.9\.9\.9 is loopback/],
      [`http://localhost:${p()}/`, 'local-name', /localhost is a local name/],
      [`http://LOCALHOST.:${p()}/`, 'local-name', /localhost is a local name/],
      [`http://api.localhost:${p()}/`, 'local-name', /api\.localhost/],
      [`http://db.internal:${p()}/`, 'local-name', /db\.internal/],
      [`http://printer.local:${p()}/`, 'local-name', /printer\.local/],
      [`http://intranet:${p()}/`, 'local-name', /single-label name intranet/],
      ['http://metadata.google.internal/computeMetadata/v1/', 'metadata', /metadata\.google\.internal is a cloud metadata endpoint/],
      ['http://169.254.169.254/latest/meta-data/', 'metadata', /169\.254\.169\.254 is a cloud metadata endpoint/],
      ['http://[fd00:ec2::254]/latest/meta-data/', 'metadata', /fd00:ec2::254 is a cloud metadata endpoint/],
      // Azure's WireServer is public unicast: only the metadata list refuses it.
      ['http://168.63.129.16/machine?comp=goalstate', 'metadata', /168\.63\.129\.16 is a cloud metadata endpoint/],
      ['http://100.100.100.200/latest/meta-data/', 'metadata', /100\.100\.100\.200 is a cloud metadata endpoint/],
      ['http://169.254.170.2/v2/credentials', 'metadata', /169\.254\.170\.2 is a cloud metadata endpoint/],
      ['http://[::ffff:168.63.129.16]/', 'metadata', /IPv6 form of 168\.63\.129\.16\) is a cloud metadata endpoint/],
      // Decimal, octal and hex spellings: WHATWG parsing turns them into the dotted quad the rule reads.
      [`http://2130706433:${p()}/`, 'loopback', /127\.0\.0\.1 is loopback/],
      [`http://0177.0.0.1:${p()}/`, 'loopback', /127\.0\.0\.1 is loopback/],
      [`http://0x7f.1:${p()}/`, 'loopback', /127\.0\.0\.1 is loopback/],
      [`http://127.1:${p()}/`, 'loopback', /127\.0\.0\.1 is loopback/],
      [`http://0x7f000001:${p()}/`, 'loopback', /127\.0\.0\.1 is loopback/],
      [`http://[::1]:${p()}/`, 'loopback', /::1 is loopback/],
      [`http://[::ffff:127.0.0.1]:${p()}/`, 'ipv4-embedded-loopback', /an IPv6 form of 127\.0\.0\.1\) is loopback/],
      [`http://[::ffff:7f00:1]:${p()}/`, 'ipv4-embedded-loopback', /IPv6 form of 127\.0\.0\.1/],
      [`http://[::127.0.0.1]:${p()}/`, 'ipv4-embedded-loopback', /IPv6 form of 127\.0\.0\.1/],
      [`http://[::ffff:0:127.0.0.1]:${p()}/`, 'ipv4-embedded-loopback', /IPv6 form of 127\.0\.0\.1/],
      [`http://[64:ff9b::7f00:1]:${p()}/`, 'rfc6052', /NAT64/],
      [`http://[2002:7f00:1::]:${p()}/`, '6to4', /6to4/],
      [`http://0.0.0.0:${p()}/`, 'unspecified', /0\.0\.0\.0 is unspecified/],
      [`http://0:${p()}/`, 'unspecified', /0\.0\.0\.0 is unspecified/],
      [`http://[::]:${p()}/`, 'unspecified', /:: is unspecified/],
      ['http://10.0.0.1/', 'private', /10\.0\.0\.1 is private/],
      ['http://172.16.5.4/', 'private', /private/],
      ['http://192.168.1.1/', 'private', /private/],
      ['http://[fc00::1]/', 'uniqueLocal', /unique local/],
      ['http://169.254.1.1/', 'linkLocal', /link-local/],
      ['http://[fe80::1]/', 'linkLocal', /link-local/],
      ['http://100.64.0.1/', 'carrierGradeNat', /carrier-grade NAT/],
      ['http://224.0.0.1/', 'multicast', /multicast/],
      ['http://[ff02::1]/', 'multicast', /multicast/],
      ['http://240.0.0.1/', 'reserved', /reserved/],
      ['http://192.0.2.1/', 'reserved', /reserved/],
      ['http://255.255.255.255/', 'broadcast', /broadcast/],
      ['file:///etc/passwd', 'scheme', /scheme file is not allowed/],
      ['ftp://example.com/', 'scheme', /scheme ftp/],
      ['gopher://example.com/', 'scheme', /scheme gopher/],
      ['data:text/html,hi', 'scheme', /scheme data/],
      ['http://user:pass@example.com/', 'userinfo', /user name or password/],
      [`http://admin@127.0.0.1:${p()}/`, 'userinfo', /user name or password/],
    ];
    for (const [url, rule, message] of cases) {
      const error = await refusal(fetchPage(url, { policy: config.egress }));
      assert.equal(error.status, 400, url);
      assert.equal(error.error, 'url_not_allowed', url);
      assert.equal(error.extra.rule, rule, `${url}: ${error.message}`);
      assert.match(error.message, message, url);
    }
    assert.equal(site.connections, 0);
  });

  it('a missing or malformed URL is 400 invalid_url', async () => {
    for (const input of [undefined, '', '   ', 'not a url', '//example.com/', 'http://']) {
      const error = await refusal(fetchPage(input as string, { policy: config.egress }));
      assert.equal(error.status, 400, String(input));
      assert.equal(error.error, 'invalid_url', String(input));
    }
  });

  it('a public-looking name pinned to 127.0.0.1 by EGRESS_RESOLVE but not in EGRESS_ALLOW is refused', async () => {
    const pinned = loadConfig({ DATA_DIR: '/tmp/unused-ssrf', EGRESS_RESOLVE: 'www.example.com:127.0.0.1' });
    const error = await refusal(fetchPage(`http://www.example.com:${site.port}/`, { policy: pinned.egress }));
    assert.equal(error.error, 'url_not_allowed');
    assert.match(error.message, /the address 127\.0\.0\.1 of www\.example\.com is loopback/);
    assert.equal(site.connections, 0);
  });

  it('a name DNS resolves to a private address is refused, also when only one of its addresses is', async () => {
    const answers: Record<string, string[]> = { 'evil.example': ['127.0.0.1'], 'mixed.example': ['93.184.215.14', '10.1.2.3'], 'v6.example': ['::ffff:127.0.0.1'] };
    const resolver: Resolver = async (host) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const evil = await refusal(fetchPage(`http://evil.example:${site.port}/`, { policy: config.egress, resolver }));
    assert.match(evil.message, /the address 127\.0\.0\.1 of evil\.example is loopback/);
    const mixed = await refusal(fetchPage(`http://mixed.example:${site.port}/`, { policy: config.egress, resolver }));
    assert.match(mixed.message, /10\.1\.2\.3 of mixed\.example is private/);
    const v6 = await refusal(fetchPage(`http://v6.example:${site.port}/`, { policy: config.egress, resolver }));
    assert.match(v6.message, /::ffff:127\.0\.0\.1 of v6\.example \(an IPv6 form of 127\.0\.0\.1\) is loopback/);
    assert.equal(site.connections, 0);
  });

  it('DNS rebinding: a public answer at the check and 127.0.0.1 at connect time is refused at connect', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: ++calls === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const error = await refusal(fetchPage(`http://rebind.example:${site.port}/`, { policy: config.egress, resolver: rebinding }));
    assert.equal(error.error, 'url_not_allowed');
    assert.match(error.message, /the address 127\.0\.0\.1 of rebind\.example is loopback/);
    assert.equal(calls, 2, 'the connect-time lookup asked again');
    assert.equal(site.connections, 0);
  });

  it('a redirect from an allowed host to 127.0.0.1, to ::ffff:127.0.0.1 or to file: is refused at the hop', async () => {
    const policy = buildEgressPolicy('shop.test', 'shop.test:127.0.0.1');
    const before = site.connections;
    const toLoopback = await refusal(fetchPage(`http://shop.test:${site.port}/to-loopback`, { policy }));
    assert.equal(toLoopback.error, 'url_not_allowed');
    assert.match(toLoopback.message, /the address 127\.0\.0\.1 is loopback/);
    assert.equal(toLoopback.extra.url, `http://127.0.0.1:${site.port}/target`);
    const toMapped = await refusal(fetchPage(`http://shop.test:${site.port}/to-mapped`, { policy }));
    assert.match(toMapped.message, /IPv6 form of 127\.0\.0\.1\) is loopback/);
    const toFile = await refusal(fetchPage(`http://shop.test:${site.port}/to-file`, { policy }));
    assert.equal(toFile.extra.rule, 'scheme');
    // One connection per first hop; the refused hops never connected and /target was never asked for.
    assert.equal(site.connections - before, 3);
    assert.ok(!site.paths.includes('/target'));
  });
});
