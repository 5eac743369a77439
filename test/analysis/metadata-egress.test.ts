// Cloud metadata endpoints, from the one list (egress-policy.ts's METADATA_ADDRESSES and
// METADATA_NAMES), against every spelling of an address and every egress path: the policy
// function itself for each form, then the fetcher, a redirect hop, an EGRESS_RESOLVE pin, lab
// mode's request route, a URL file source and a webhook, each with EGRESS_ALLOW opening every
// address and every name, which must not open these. The file runs in a network namespace with
// only loopback (runInIsolatedNetwork), so a regression could reach nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Route } from 'playwright-core';
import ipaddr from 'ipaddr.js';
import { onlyLoopback, runInIsolatedNetwork } from '../support/isolated-network.ts';
import { METADATA_ADDRESSES, METADATA_NAMES, addressRefusal, buildEgressPolicy, checkUrl, type EgressPolicy } from '../../src/analysis/egress-policy.ts';
import { fetchPage } from '../../src/analysis/fetcher.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import { LabNetwork, DEFAULT_LAB_NETWORK_LIMITS } from '../../src/analysis/lab/lab-network.ts';
import { receiveFileSource } from '../../src/core/file-sources.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import { checkWebhookUrl } from '../../src/runs/webhook-url.ts';
import type { FilePipeline } from '../../src/files/file-pipeline.ts';
import { startHttpSite, type TestSite } from './support/test-sites.ts';
import { ipv6Forms, urlSpellings } from './support/address-forms.ts';
import { serviceErrorOf } from '../support/assertions.ts';

await runInIsolatedNetwork(import.meta.filename);

const V4 = [...METADATA_ADDRESSES].filter((a) => !a.includes(':'));
const V6 = [...METADATA_ADDRESSES].filter((a) => a.includes(':'));
/** EGRESS_ALLOW opening every address and every metadata name: none of it may open metadata. */
const ALLOW_ALL = ['0.0.0.0/0', '::/0', ...METADATA_NAMES, 'meta.example'].join(',');

const refusal = (promise: Promise<unknown>): Promise<ServiceError> => serviceErrorOf(promise, 'not refused');

function assertMetadata(error: ServiceError, what: string): void {
  assert.equal(error.status, 400, what);
  assert.equal(error.error, 'url_not_allowed', what);
  assert.equal(error.extra.rule, 'metadata', `${what}: ${error.message}`);
  assert.match(error.message, /cloud metadata endpoint/, what);
}

describe('the policy function: every metadata address in every form, whatever EGRESS_ALLOW says', () => {
  const open = buildEgressPolicy(ALLOW_ALL, '');

  it('the list holds the endpoints of the clouds (Azure WireServer, AWS IMDS and ECS, GCP, Alibaba, Oracle, Tencent, IPv6 IMDS)', () => {
    for (const address of ['168.63.129.16', '169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', '169.254.0.23', 'fd00:ec2::254', 'fd20:ce::254']) assert.ok(METADATA_ADDRESSES.has(address), address);
    for (const name of ['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.com']) assert.ok(METADATA_NAMES.has(name), name);
    for (const address of METADATA_ADDRESSES) assert.ok(ipaddr.isValid(address), `${address} is an address`);
  });

  it('refuses each address as a literal URL host in every spelling, with EGRESS_ALLOW open to everything', () => {
    for (const address of V4) {
      for (const spelled of urlSpellings(address)) {
        const url = new URL(`http://${spelled}/latest/meta-data/`);
        const host = checkUrl(url, open);
        const verdict = addressRefusal(host, open);
        assert.equal(verdict?.rule, 'metadata', `${spelled} (${host}): ${JSON.stringify(verdict)}`);
      }
    }
  });

  it('refuses each IPv4 endpoint in every IPv6 form that carries it, and the IPv6 endpoints as written', () => {
    for (const address of V4) {
      for (const form of ipv6Forms(address)) {
        assert.ok(ipaddr.isValid(form), form);
        for (const policy of [open, buildEgressPolicy('', '')]) {
          const verdict = addressRefusal(form, policy);
          assert.notEqual(verdict, null, `${form} is refused`);
          if (policy === open) assert.equal(verdict?.rule, 'metadata', `${form}: ${verdict?.message}`);
        }
        // Bracketed in a URL, as a caller would write it.
        assert.equal(addressRefusal(checkUrl(new URL(`http://[${form}]/`), open), open)?.rule, 'metadata', form);
      }
    }
    for (const address of V6) {
      const expanded = ipaddr.parse(address).toNormalizedString();
      for (const form of [address, expanded, address.toUpperCase()]) assert.equal(addressRefusal(form, open)?.rule, 'metadata', form);
    }
  });

  it('refuses each metadata name, also when EGRESS_ALLOW names it, in any case and with a trailing dot', () => {
    for (const name of METADATA_NAMES) {
      for (const spelled of [name, name.toUpperCase(), `${name}.`]) {
        assert.throws(() => checkUrl(new URL(`http://${spelled}/computeMetadata/v1/`), open), (error: unknown) => isServiceError(error) && error.extra.rule === 'metadata', spelled);
      }
    }
  });

  it('an EGRESS_ALLOW range holding an endpoint opens its neighbours, not the endpoint', () => {
    const azure = buildEgressPolicy('168.63.0.0/16,169.254.0.0/16,100.64.0.0/10', '');
    assert.equal(addressRefusal('168.63.129.17', azure), null);
    assert.equal(addressRefusal('169.254.169.253', azure), null);
    for (const address of V4) assert.equal(addressRefusal(address, azure)?.rule, 'metadata', address);
    // A public address that merely ends in an endpoint's bits is not one.
    assert.equal(addressRefusal('2001:db8:1::a83f:8110', buildEgressPolicy('2001:db8::/32', '')), null);
  });
});

describe('every egress path refuses every metadata endpoint', () => {
  let site: TestSite;
  let policy: EgressPolicy;
  /** every endpoint as a URL: the addresses (IPv6 bracketed) and the names */
  let targets: string[];
  const dataDir = mkdtempSync(join(tmpdir(), 'metadata-egress-'));

  before(async () => {
    site = await startHttpSite((req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to !== null) res.writeHead(302, { location: to }).end();
      else res.end('fine');
    });
    // Everything open, and a loopback site reachable by name (meta.example pinned to 127.0.0.1) to redirect from.
    policy = buildEgressPolicy(`${ALLOW_ALL},127.0.0.1`, 'meta.example:127.0.0.1');
    targets = [...V4.map((a) => `http://${a}/latest/meta-data/`), ...V6.map((a) => `http://[${a}]/latest/meta-data/`), ...[...METADATA_NAMES].map((n) => `http://${n}/computeMetadata/v1/`)];
  });
  after(async () => {
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the fetcher (URL tools, webhooks deliveries, AI providers) refuses each before opening anything', async () => {
    for (const url of targets) assertMetadata(await refusal(fetchPage(url, { policy })), url);
    // The loopback site answers, so the policy really is open: only the metadata rule refuses.
    assert.equal((await fetchPage(`http://meta.example:${site.port}/`, { policy })).status, 200);
  });

  it('a redirect hop to each is refused; the site only ever sees the first hops', async () => {
    const before = site.connections;
    for (const url of targets) {
      const error = await refusal(fetchPage(`http://meta.example:${site.port}/r?to=${encodeURIComponent(url)}`, { policy }));
      assertMetadata(error, `redirect to ${url}`);
      assert.equal(error.extra.url, url);
    }
    assert.equal(site.connections - before, targets.length);
  });

  it('an EGRESS_RESOLVE pin of an allowed name to each address is refused', async () => {
    for (const address of METADATA_ADDRESSES) {
      const pinned = buildEgressPolicy(`${ALLOW_ALL},pinned.example`, `pinned.example:${address}`);
      const error = await refusal(fetchPage('http://pinned.example/latest/meta-data/', { policy: pinned }));
      assertMetadata(error, `pinned to ${address}`);
      assert.match(error.message, /of pinned\.example/);
    }
  });

  it('a name DNS answers with an endpoint (in any IPv6 form) is refused at the check', async () => {
    for (const address of [...V4, ...V4.flatMap(ipv6Forms).filter((f) => f.startsWith('::')), ...V6]) {
      const resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      assertMetadata(await refusal(fetchPage('http://rebound.example/', { policy, resolver })), `DNS answer ${address}`);
    }
  });

  it("lab mode's route aborts each request and lists it as blocked by the rules", async () => {
    const fetcher = createEgressFetcher({ policy }, { concurrency: 4, perAccount: 4, maxQueued: 256 });
    const network = new LabNetwork((url, options) => fetcher.fetch(url, options), DEFAULT_LAB_NETWORK_LIMITS);
    for (const url of targets) {
      const answered: string[] = [];
      const route = {
        request: () => ({ url: () => url, method: () => 'GET', resourceType: () => 'image' }),
        abort: async (reason: string) => void answered.push(`abort:${reason}`),
        fulfill: async () => void answered.push('fulfill'),
      } as unknown as Route;
      await network.handle(route);
      assert.deepEqual(answered, ['abort:failed'], url);
    }
    assert.equal(network.blocked.length, targets.length);
    for (const entry of network.blocked) assert.match(entry.reason, /url_not_allowed: .*cloud metadata endpoint/, entry.url);
    assert.equal(network.requests, 0);
  });

  it('a URL file source is refused before anything is written', async () => {
    const fetcher = createEgressFetcher({ policy }, { concurrency: 4, perAccount: 4, maxQueued: 256 });
    const files = {} as FilePipeline;
    for (const url of targets) {
      const error = await refusal(receiveFileSource({ kind: 'url', url }, { files, fetcher, uploadLimitBytes: 1024 * 1024 }, { workDir: dataDir, accountId: 'acct' }));
      assertMetadata(error, `file source ${url}`);
    }
  });

  it('a webhook URL naming each (https, as registration requires) is refused at registration', async () => {
    for (const url of targets.map((u) => u.replace(/^http:/, 'https:'))) {
      const error = await refusal(checkWebhookUrl(url, policy, async () => [{ address: '93.184.215.14', family: 4 }]));
      assertMetadata(error, `webhook ${url}`);
    }
  });

  it('the namespace has only loopback: a connect to anything else fails at once, not after a timeout', async () => {
    assert.ok(onlyLoopback());
    // TEST-NET-1 (never routed anywhere), opened by EGRESS_ALLOW so that only the network refuses it.
    const error = await fetchPage('http://192.0.2.1/', { policy: buildEgressPolicy('192.0.2.0/24', ''), limits: { connectTimeoutMs: 600_000, totalTimeoutMs: 600_000 } }).catch((e: unknown) => e);
    assert.ok(isServiceError(error), String(error));
    assert.equal(error.error, 'fetch_failed');
    assert.match(error.message + error.detail, /ENETUNREACH|unreachable/i);
  });
});
