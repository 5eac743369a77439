// A fetched page is held in memory until its user (an analysis) is done with it, so the fetcher
// lets only a quarter of its slots hold pages: a burst waits before fetching, not page in hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildEgressPolicy } from '../../src/analysis/egress-policy.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import { startHttpSite, type TestSite } from './support/test-sites.ts';

describe('pages held by fetchAndUse', () => {
  let site: TestSite;
  before(async () => {
    site = await startHttpSite((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Page</title>'));
  });
  after(() => site.close());

  it('fetches no more pages than the page slots while their users hold them, and the next when one is done', async () => {
    // 8 fetch slots: 2 may hold a page (1 per account, so two accounts here).
    const fetcher = createEgressFetcher({ policy: buildEgressPolicy('127.0.0.1/32', 'pages.test:127.0.0.1') }, { concurrency: 8, perAccount: 2, maxQueued: 16 });
    const url = (n: number) => `http://pages.test:${site.port}/p${n}`;
    const releases = new Map<string, () => void>();
    const started: string[] = [];
    let startedOne: () => void = () => {};
    const use = (facts: { finalUrl: string }) =>
      new Promise<string>((resolve) => {
        const path = new URL(facts.finalUrl).pathname;
        started.push(path);
        releases.set(path, () => resolve(facts.finalUrl));
        startedOne();
      });
    const waitForUses = (n: number) =>
      new Promise<void>((resolve) => {
        startedOne = () => started.length >= n && resolve();
        startedOne();
      });
    const calls = [1, 2, 3, 4].map((n) => fetcher.fetchAndUse(url(n), use, { account: n % 2 === 0 ? 'b' : 'a' }));
    await waitForUses(2);
    // Both page slots are held: the other two calls wait unfetched.
    assert.deepEqual([...site.paths].sort(), ['/p1', '/p2']);
    // Account a's page is done: a's waiting call (p3) takes the slot; b's (p4) still waits behind p2.
    const third = site.nextRequest('/p3');
    releases.get('/p1')?.();
    await third;
    await waitForUses(3);
    assert.deepEqual([...site.paths].sort(), ['/p1', '/p2', '/p3']);
    releases.get('/p2')?.();
    await waitForUses(4);
    releases.get('/p3')?.();
    releases.get('/p4')?.();
    assert.deepEqual(await Promise.all(calls), [1, 2, 3, 4].map(url));
  });
});
