// One job's steps share one parse of its page (src/analysis/parse-reuse.ts): only for the same
// key, the same page and the same address; another key, page or address, or a fetched page, is
// parsed afresh; the kept parse goes when another call comes or when its time is up.
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { IDLE_MS, ParseReuse } from '../../src/analysis/parse-reuse.ts';
import type { PageFacts } from '../../src/analysis/page-facts.ts';

const URL = 'https://shop.test/';
const PAGE = '<!doctype html><html><head><title>Shop</title></head><body><h1>Shoes</h1><img src="/a.png"></body></html>';

describe('parse reuse', () => {
  afterEach(() => mock.timers.reset());

  it("hands a job's next step the parse it made, for the very same page and address", () => {
    const reuse = new ParseReuse();
    const first = reuse.parse('job-1', PAGE, null, URL);
    const second = reuse.parse('job-1', PAGE, null, URL);
    assert.equal(second, first);
    assert.deepEqual(reuse.counts, { parsed: 1, reused: 1 });
    assert.deepEqual(first.byTag('img').map((img) => img.attribs['src']), ['/a.png']);
  });

  it('parses afresh for another key, another page, another address, or no key', () => {
    const reuse = new ParseReuse();
    const first = reuse.parse('job-1', PAGE, null, URL);
    const otherJob = reuse.parse('job-2', PAGE, null, URL);
    assert.notEqual(otherJob, first);
    const otherPage = reuse.parse('job-2', PAGE.replace('/a.png', '/b.png'), null, URL);
    assert.deepEqual(otherPage.byTag('img').map((img) => img.attribs['src']), ['/b.png']);
    const otherUrl = reuse.parse('job-2', PAGE.replace('/a.png', '/b.png'), null, 'https://other.test/');
    assert.equal(otherUrl.baseUrl?.href, 'https://other.test/');
    assert.notEqual(otherUrl, otherPage);
    // No key: shared with nobody, and the kept parse is let go.
    reuse.parse(null, PAGE, null, URL);
    reuse.parse('job-2', PAGE.replace('/a.png', '/b.png'), null, 'https://other.test/');
    assert.deepEqual(reuse.counts, { parsed: 6, reused: 0 });
  });

  it("never keeps a fetched page's parse (it depends on the response)", () => {
    const reuse = new ParseReuse();
    const facts = { status: 200, finalUrl: URL, headers: { 'content-type': 'text/html' }, mediaType: 'text/html', body: Buffer.from(PAGE), text: PAGE } as unknown as PageFacts;
    reuse.parse('job-1', PAGE, facts, URL);
    reuse.parse('job-1', PAGE, facts, URL);
    assert.deepEqual(reuse.counts, { parsed: 2, reused: 0 });
  });

  it('lets a kept parse go once its job has not asked for it in IDLE_MS', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const reuse = new ParseReuse();
    reuse.parse('job-1', PAGE, null, URL);
    mock.timers.tick(IDLE_MS - 1);
    reuse.parse('job-1', PAGE, null, URL);
    // Each use keeps it another IDLE_MS; past that, the same call parses again.
    mock.timers.tick(IDLE_MS - 1);
    reuse.parse('job-1', PAGE, null, URL);
    mock.timers.tick(IDLE_MS);
    reuse.parse('job-1', PAGE, null, URL);
    assert.deepEqual(reuse.counts, { parsed: 2, reused: 2 });
  });
});
