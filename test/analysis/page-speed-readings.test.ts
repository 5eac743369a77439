// The page-speed tool analyses a page twice: once to learn which subresource sizes matter, then
// with those sizes. The second analysis judges what the first read of the page (scoring.ts
// PageReading) instead of parsing it again; its report must be the very report a fresh parse with
// the sizes gives, byte for byte, in process and through the analysis workers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeOnWorker } from '../../src/analysis/analysis-pool.ts';
import { loadAnalyzers } from '../../src/analysis/analyzer-registry.ts';
import type { FactsWithSubresources } from '../../src/analysis/analyzers/page-speed-costs.ts';
import { MAX_KEPT_RESOURCES } from '../../src/analysis/analyzers/page-speed-read.ts';
import { pageSpeedAnalyzer } from '../../src/analysis/analyzers/page-speed.ts';
import { analyzeFetched, analyzeFetchedKeepingReadings, analyzeReadings } from '../../src/analysis/page-analysis.ts';
import type { PageFacts } from '../../src/analysis/page-facts.ts';
import { analyzeWithSizes, fetchSizes, sizePlanOf } from '../../src/analysis/page-speed-subresources.ts';
import type { Analyzer } from '../../src/analysis/scoring.ts';
import { ServiceError } from '../../src/core/errors.ts';

const KB = 1024;
const ORIGIN = 'https://shop.test';
const js = (bytes: number, late = false) => `${late ? "addEventListener('load', () => setTimeout(() => document.body.prepend(document.createElement('div')), 500));" : ''}${'var x=0;x++;\n'.repeat(Math.ceil(bytes / 13))}`;
const page = (head: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes</title>${head}</head><body><h1>Trail shoes</h1>${body}</body></html>`;

/** Subresources the stub fetcher serves; a missing one is refused, 'busy' answers 429, 'cap' passes the byte cap. */
const ASSETS: Record<string, { type: string; body: string | Buffer } | 'busy' | 'cap'> = {
  [`${ORIGIN}/js/app.js`]: { type: 'text/javascript', body: js(220 * KB) },
  [`${ORIGIN}/js/banner.js`]: { type: 'text/javascript', body: js(8 * KB, true) },
  [`${ORIGIN}/js/vendor.js`]: { type: 'text/javascript', body: js(600 * KB) },
  [`${ORIGIN}/css/site.css`]: { type: 'text/css', body: '.a{margin:0}\n'.repeat(2000) },
  [`${ORIGIN}/css/fonts.css`]: 'busy',
  [`${ORIGIN}/img/hero.jpg`]: { type: 'image/jpeg', body: Buffer.alloc(1500 * KB, 7) },
  [`${ORIGIN}/img/huge.jpg`]: 'cap',
};

const PAGES: Record<string, { html: string; facts?: Partial<PageFacts> }> = {
  'blocking scripts, a stylesheet and an @import, a lazy heavy hero': {
    html: page(
      '<script src="/js/app.js"></script><link rel="stylesheet" href="/css/site.css"><style>@import url("/css/fonts.css");</style><script src="/js/banner.js" defer></script><script src="https://cdn.test/lib.js"></script>',
      `<img src="/img/hero.jpg" alt="Hero" width="1600" height="900" loading="lazy">${Array.from({ length: 8 }, (_, i) => `<img src="/img/p${i}.jpg" alt="">`).join('')}`,
    ),
  },
  'an inline late banner, a deferred heavy script, a capped unsized hero, deep markup': {
    html: page(`<script>${js(120 * KB, true)}</script><script src="/js/vendor.js" async></script>`, `<img src="/img/huge.jpg" alt="Huge">${'<div>'.repeat(40)}deep${'</div>'.repeat(40)}`),
    facts: { timings: { dnsMs: null, connectMs: null, tlsMs: null, ttfbMs: 900, totalMs: 1000 }, headers: { 'content-type': 'text/html' } },
  },
  'a large page: over 1,400 elements and 500 KiB, sent uncompressed': {
    html: page('<script src="/js/app.js"></script>', Array.from({ length: 1600 }, (_, i) => `<p class="c${i}">Trail shoe ${i} ${'grippy soles '.repeat(30)}</p>`).join('')),
  },
  'an error page': { html: page('<script src="/js/app.js"></script>', '<p>Not found</p>'), facts: { status: 404 } },
  'no media type, HTML sniffed': { html: page('<script src="/js/app.js"></script>', '<img src="/img/hero.jpg" width="1200" height="800" alt="">'), facts: { mediaType: null, headers: {} } },
};

function factsOf(html: string, extra: Partial<PageFacts> = {}): PageFacts {
  const body = Buffer.from(html);
  return {
    requestedUrl: `${ORIGIN}/p`, finalUrl: `${ORIGIN}/p`, redirects: [], status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'max-age=60' }, setCookies: [], remoteAddress: null,
    timings: { dnsMs: 5, connectMs: 10, tlsMs: 20, ttfbMs: 150, totalMs: 250 }, tls: null,
    transferBytes: body.length, body, contentEncoding: null, mediaType: 'text/html', charset: 'utf-8', text: html,
    ...extra,
  };
}

async function stubFetch(url: string, options?: { limits?: { maxBytes?: number } }): Promise<PageFacts> {
  const asset = ASSETS[url];
  if (asset === undefined) throw new ServiceError(502, 'fetch_failed', 'refused');
  if (asset === 'busy') throw new ServiceError(429, 'fetch_busy', 'busy');
  if (asset === 'cap') throw new ServiceError(422, 'fetch_failed', 'over the cap', { extra: { phase: 'size' } });
  const body = Buffer.from(asset.body);
  if (body.length > (options?.limits?.maxBytes ?? Infinity)) throw new ServiceError(422, 'fetch_failed', 'over the cap', { extra: { phase: 'size' } });
  return { ...factsOf(body.toString('latin1'), { headers: { 'content-type': asset.type }, mediaType: asset.type }), finalUrl: url, body, transferBytes: Math.round(body.length * 0.7) };
}

/** The reference: the page parsed afresh with the sizes its first report asked for. */
async function withSizesParsedAgain(analyzers: readonly Analyzer[], html: string, extra?: Partial<PageFacts>): Promise<{ facts: FactsWithSubresources; json: string }> {
  const facts = factsOf(html, extra);
  const plan = sizePlanOf(analyzeFetched(analyzers, html, facts, facts.finalUrl));
  assert.ok(plan.length > 0, 'the page asks for sizes');
  const withSizes: FactsWithSubresources = { ...facts, subresources: await fetchSizes(stubFetch, plan) };
  return { facts: withSizes, json: JSON.stringify(analyzeFetched(analyzers, html, withSizes, facts.finalUrl)) };
}

describe('page speed: the second analysis judges the first one\'s reading of the page', () => {
  for (const [name, { html, facts: extra }] of Object.entries(PAGES)) {
    it(`${name}: the same report as a fresh parse, in process and through the workers`, async () => {
      const reference = await withSizesParsedAgain([pageSpeedAnalyzer], html, extra);
      const first = analyzeFetchedKeepingReadings([pageSpeedAnalyzer], html, factsOf(html, extra), `${ORIGIN}/p`);
      assert.equal(JSON.stringify(first.report), JSON.stringify(analyzeFetched([pageSpeedAnalyzer], html, factsOf(html, extra), `${ORIGIN}/p`)));
      assert.ok(first.readings !== null, 'the reading is kept');
      // The readings cross threads as a structured clone.
      assert.equal(JSON.stringify(analyzeReadings([pageSpeedAnalyzer], structuredClone(first.readings), reference.facts, `${ORIGIN}/p`)), reference.json);
      const ctx = { fetchPage: stubFetch, signal: new AbortController().signal };
      assert.equal(JSON.stringify(await analyzeWithSizes(ctx, factsOf(html, extra), [pageSpeedAnalyzer])), reference.json);
    });
  }

  it('the sizes change the report (the reading is judged again, not its first report returned)', async () => {
    const { html } = PAGES['blocking scripts, a stylesheet and an @import, a lazy heavy hero'] as { html: string };
    const plain = JSON.stringify(await analyzeOnWorker([pageSpeedAnalyzer], html, factsOf(html), `${ORIGIN}/p`));
    const sized = JSON.stringify(await analyzeWithSizes({ fetchPage: stubFetch, signal: new AbortController().signal }, factsOf(html), [pageSpeedAnalyzer]));
    assert.notEqual(sized, plain);
    assert.match(sized, /page-speed-image-weight/);
  });

  it('a page past the reading\'s bound, or an analyzer without a reading, is parsed again: the same report', async () => {
    const many = page(Array.from({ length: MAX_KEPT_RESOURCES + 1 }, (_, i) => `<script src="/js/m${i}.js" defer></script>`).join('') + '<script src="/js/app.js"></script>', '');
    assert.equal(analyzeFetchedKeepingReadings([pageSpeedAnalyzer], many, factsOf(many), `${ORIGIN}/p`).readings, null);
    const ctx = { fetchPage: stubFetch, signal: new AbortController().signal };
    assert.equal(JSON.stringify(await analyzeWithSizes(ctx, factsOf(many), [pageSpeedAnalyzer])), (await withSizesParsedAgain([pageSpeedAnalyzer], many)).json);

    const all = await loadAnalyzers();
    const several = ['meta-tags', 'page-speed'].map((id) => all.get(id)).filter((a): a is Analyzer => a !== undefined);
    assert.equal(several.length, 2);
    const { html } = PAGES['blocking scripts, a stylesheet and an @import, a lazy heavy hero'] as { html: string };
    assert.equal(analyzeFetchedKeepingReadings(several, html, factsOf(html), `${ORIGIN}/p`).readings, null);
    assert.equal(JSON.stringify(await analyzeWithSizes(ctx, factsOf(html), several)), (await withSizesParsedAgain(several, html)).json);
    assert.throws(() => analyzeReadings(several, [null, null], factsOf(html), `${ORIGIN}/p`), /not those of these analyzers/);
  });
});
