// A job's pages (src/analysis/page-memo.ts): through the real egress-safe fetcher, a plain GET a
// job has fetched is not fetched again, each use gets a body of its own (an analysis worker may
// take one's memory), and anything but a plain GET, another URL, other limits or a call outside
// the job is fetched as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_PAGES, PageMemo } from '../../src/analysis/page-memo.ts';
import type { PageFacts } from '../../src/analysis/page-facts.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

// Larger than Node's buffer pool uses: its body owns its memory, as a real page's does.
const PAGE = `<!doctype html><html><head><title>Memo</title></head><body><h1>Once</h1><!-- ${'x'.repeat(20_000)} --></body></html>`;

describe("a job's pages", () => {
  let web: ExampleWeb;
  before(async () => {
    web = await startExampleWeb();
  });
  after(async () => {
    await (web as ExampleWeb | undefined)?.close();
  });

  const publish = (...urls: string[]) => web.serve(Object.fromEntries(urls.map((u) => [u, { body: PAGE }])));
  type Options = { method?: 'GET' | 'HEAD'; limits?: { maxBytes?: number; totalTimeoutMs?: number } };
  const read = (url: string, memo: PageMemo | undefined, options: Options = {}) =>
    web.fetcher.fetchAndUse(web.rewrite(url), async (facts: PageFacts) => facts, { ...options, ...(memo === undefined ? {} : { memo }) });
  const fetchOnly = (url: string, memo: PageMemo, options: Options = {}) => web.fetcher.fetch(web.rewrite(url), { ...options, memo });

  it('fetches a page once for the job, and gives each use a body of its own', async () => {
    const url = 'https://shop.example.com/memo/a';
    publish(url);
    const memo = new PageMemo();
    const first = await read(url, memo);
    first.body.fill(0);
    const second = await read(url, memo);
    assert.equal(web.requests(url), 1);
    assert.equal(memo.hits, 1);
    assert.equal(second.body.toString('utf8'), PAGE, 'what the first use did to its body is its own');
    assert.equal(second.text, PAGE);
    assert.equal(second.status, 200);
    // What an analysis worker does with a body that owns its memory (analysis-pool.ts): takes it.
    assert.equal(second.body.byteLength, second.body.buffer.byteLength, 'a kept page is handed out in memory of its own');
    structuredClone(second.body.buffer, { transfer: [second.body.buffer as ArrayBuffer] });
    assert.equal(second.body.byteLength, 0, 'the second use gave its body away');
    const third = await read(url, memo);
    assert.equal(third.body.toString('utf8'), PAGE);
    assert.equal(web.requests(url), 1);
  });

  it('fetches again outside the job, for another method, other limits or another URL', async () => {
    const url = 'https://shop.example.com/memo/b';
    const other = 'https://shop.example.com/memo/c';
    publish(url, other);
    const memo = new PageMemo();
    await read(url, memo);
    await read(url, undefined);
    await read(url, new PageMemo());
    await read(url, memo, { method: 'HEAD' });
    await read(url, memo, { limits: { maxBytes: 100_000 } });
    await read(other, memo);
    assert.equal(web.requests(url), 5);
    assert.equal(web.requests(other), 1);
    assert.equal(memo.hits, 0);
  });

  it("a tool's own fetch reads a page the job has read, with any timeout, and keeps nothing it fetches", async () => {
    const url = 'https://shop.example.com/memo/d';
    const side = 'https://shop.example.com/memo/e';
    publish(url, side);
    const memo = new PageMemo();
    await read(url, memo);
    const again = await fetchOnly(url, memo, { limits: { totalTimeoutMs: 5000 } });
    assert.equal(again.text, PAGE);
    await fetchOnly(side, memo);
    await fetchOnly(side, memo);
    assert.equal(web.requests(url), 1);
    assert.equal(web.requests(side), 2, 'a side fetch is not kept');
    assert.equal(memo.hits, 1);
  });

  it(`keeps at most ${MAX_PAGES} pages a job`, async () => {
    const urls = Array.from({ length: MAX_PAGES + 1 }, (_, i) => `https://shop.example.com/memo/many-${i}`);
    publish(...urls);
    const memo = new PageMemo();
    for (const url of urls) await read(url, memo);
    for (const url of urls) await read(url, memo);
    assert.deepEqual(urls.map((u) => web.requests(u)), [...urls.slice(0, MAX_PAGES).map(() => 1), 2]);
    assert.equal(memo.hits, MAX_PAGES);
  });
});
