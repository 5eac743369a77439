// The page-speed proxy ranked by what each finding costs (issue 19, item 7): pages served on
// loopback with their resources, read by the real fetcher, the sizes the analysis asks for fetched
// as the tool fetches them (page-speed-subresources.ts), then analysed with those sizes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../../src/analysis/analyzers/page-speed.ts';
import { MAX_SUBRESOURCE_FETCHES, roundTrips, scoreForCostMs, severityForCostMs } from '../../../src/analysis/analyzers/page-speed-costs.ts';
import { buildEgressPolicy } from '../../../src/analysis/egress-policy.ts';
import { fetchPage } from '../../../src/analysis/fetcher.ts';
import type { Report } from '../../../src/analysis/findings.ts';
import { fetchAndAnalyzeWithSizes, fetchSize, fetchSizes, sizePlanOf } from '../../../src/analysis/page-speed-subresources.ts';
import { ServiceError } from '../../../src/core/errors.ts';
import type { FetchPageOptions } from '../../../src/analysis/url-report.ts';
import { startHttpSite, type TestSite } from '../support/test-sites.ts';
import { assertValid, checkResult, onlyFinding } from './report-helpers.ts';

const KB = 1024;
/** A script of `bytes` bytes of plain statements. */
const script = (bytes: number): string => 'var x=0;x++;\n'.repeat(Math.ceil(bytes / 13)).slice(0, bytes);
const css = (bytes: number): string => '.a{margin:0}\n'.repeat(Math.ceil(bytes / 13)).slice(0, bytes);
const page = (head: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes</title>${head}</head><body><h1>Trail shoes</h1>${body}<p>Grippy soles and light uppers for every season.</p></body></html>`;
const BUNDLES = Array.from({ length: 7 }, (_, i) => `<script src="/js/bundle-${i + 1}.js"></script>`).join('');

const PAGES: Record<string, string> = {
  '/bundles': page(BUNDLES, ''),
  '/one-stylesheet': page('<link rel="stylesheet" href="/css/small.css">', ''),
  '/both': page(`<link rel="stylesheet" href="/css/small.css">${BUNDLES}`, ''),
  // 3.5 KiB of HTML sent plain, and one 220 KB bundle in the head
  '/bundle-and-plain-html': page('<script src="/js/big.js"></script>', `<p>${'Trail shoes on sale this week only. '.repeat(90)}</p>`),
  '/lazy-hero': page('', '<img src="/img/hero-small.jpg" alt="A ridge at dawn" width="1600" height="1000" loading="lazy">'),
  '/heavy-hero': page('', '<img src="/img/hero.jpg" alt="A ridge at dawn" width="1200" height="750"><img src="/img/logo.png" alt="" width="60" height="60">'),
  '/thirty': page(Array.from({ length: 30 }, (_, i) => `<script src="/js/w-${i + 1}.js"></script>`).join(''), ''),
  '/unreachable': page('<script src="http://app.localhost/app.js"></script>', ''),
  '/late-banner': page('', `<script>addEventListener('load', () => setTimeout(() => { const b = document.createElement('div'); b.textContent = 'Sale'; document.body.prepend(b); }, 1000));</script>`),
  '/big-script': page('<script src="/js/huge.js" defer></script>', ''),
};
const ASSETS: Record<string, { type: string; body: Buffer }> = {
  '/css/small.css': { type: 'text/css', body: Buffer.from(css(10 * KB)) },
  '/js/big.js': { type: 'text/javascript', body: Buffer.from(script(220 * KB)) },
  '/js/huge.js': { type: 'text/javascript', body: Buffer.from(script(600 * KB)) },
  '/img/hero-small.jpg': { type: 'image/jpeg', body: Buffer.alloc(150 * KB, 7) },
  '/img/hero.jpg': { type: 'image/jpeg', body: Buffer.alloc(2 * KB * KB, 7) },
  '/img/logo.png': { type: 'image/png', body: Buffer.alloc(2 * KB, 7) },
};
for (let i = 1; i <= 7; i++) ASSETS[`/js/bundle-${i}.js`] = { type: 'text/javascript', body: Buffer.from(script(200 * KB)) };
for (let i = 1; i <= 30; i++) ASSETS[`/js/w-${i}.js`] = { type: 'text/javascript', body: Buffer.from(script(4 * KB)) };

describe('page-speed proxy: findings ranked by their estimated cost', () => {
  let site: TestSite;
  before(async () => {
    site = await startHttpSite((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const html = PAGES[path];
      if (html !== undefined) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'max-age=60' }).end(html);
      const asset = ASSETS[path];
      if (asset !== undefined) return void res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'max-age=31536000' }).end(asset.body);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
  });
  after(() => site.close());

  const policy = () => buildEgressPolicy('127.0.0.1/32', 'shop.test:127.0.0.1');
  const fetcher = (url: string, options: FetchPageOptions = {}) => fetchPage(url, { policy: policy(), ...(options.limits ? { limits: options.limits } : {}) });
  const urlOf = (path: string) => `http://shop.test:${site.port}${path}`;

  /** What the tool does in proxy mode, on this thread: analyse, fetch the sizes asked for, analyse again. */
  async function report(path: string): Promise<Report> {
    const facts = await fetcher(urlOf(path));
    const plan = sizePlanOf(analyze(facts.text, facts, facts.finalUrl));
    const subresources = await fetchSizes(fetcher, plan);
    const result = analyze(facts.text, { ...facts, subresources } as typeof facts, facts.finalUrl);
    assertValid(result);
    return result;
  }
  const estimates = (r: Report) => r.details.estimates as { fcpMs: number; lcpMs: number; tbtMs: number; cls: number; renderBlockingMs: number; score: number };
  const checkScore = (r: Report, rule: string) => r.checks.find((c) => c.rule === rule)?.score ?? null;

  it('seven 200 KB blocking bundles cost far more than one 10 KB stylesheet, and say so', async () => {
    const bundles = await report('/bundles');
    const sheet = await report('/one-stylesheet');
    const heavy = onlyFinding(bundles, 'page-speed-render-blocking');
    const light = onlyFinding(sheet, 'page-speed-render-blocking');
    assert.equal(heavy.count, 7);
    assert.equal(heavy.severity, 'high');
    assert.equal(light.severity, 'low');
    // 1.4 MB through a 10 Mbps link is over a second before the first paint; 10 KB is a round trip or two
    assert.ok(estimates(bundles).renderBlockingMs > 1000, JSON.stringify(estimates(bundles)));
    assert.ok(estimates(sheet).renderBlockingMs < 150, JSON.stringify(estimates(sheet)));
    assert.ok(estimates(bundles).renderBlockingMs > 8 * estimates(sheet).renderBlockingMs);
    assert.match(heavy.detail, /It blocks render for about \d+ ms: 200 KB at 10 Mbps, then about \d+ ms to run/);
    assert.match(light.detail, /It blocks render for about \d+ ms: 10 KB at 10 Mbps/);
    // the check is graded by the delay, not pass/fail: the bundles' is near 0, the stylesheet's near 1
    assert.ok((checkScore(bundles, 'page-speed-render-blocking') ?? 1) < 0.3);
    assert.ok((checkScore(sheet, 'page-speed-render-blocking') ?? 0) > 0.9);
    // the bundles lead the report; on Lighthouse's desktop curves the page is not good (Lighthouse
    // scores a page with 1.1 MB of blocking bundles 86), the other is
    assert.equal(bundles.findings[0]?.rule, 'page-speed-render-blocking');
    assert.ok((bundles.scores.performance ?? 100) < 90, String(bundles.scores.performance));
    assert.ok((sheet.scores.performance ?? 0) >= 90, String(sheet.scores.performance));
    // a blocking bundle's run is before the first paint: charged to render-blocking, not to blocking time
    assert.equal(checkResult(bundles, 'page-speed-script-work'), 'pass');
    assert.equal(estimates(bundles).tbtMs, 0);
  });

  it('on one page, the bundles are listed before the stylesheet whatever the page order', async () => {
    const both = onlyFinding(await report('/both'), 'page-speed-render-blocking');
    assert.equal(both.count, 8);
    assert.match(both.instances?.[0]?.url ?? '', /\/js\/bundle-\d\.js$/);
    assert.match(both.instances?.at(-1)?.url ?? '', /\/css\/small\.css$/);
    assert.match(both.evidence.url ?? '', /bundle/);
  });

  it('3.5 KiB of uncompressed HTML ranks below a 220 KB blocking bundle', async () => {
    const r = await report('/bundle-and-plain-html');
    const blocking = onlyFinding(r, 'page-speed-render-blocking');
    const compression = onlyFinding(r, 'page-speed-compression');
    assert.equal(blocking.severity, 'medium');
    assert.equal(compression.severity, 'low');
    const rules = r.findings.map((f) => f.rule);
    assert.ok(rules.indexOf('page-speed-render-blocking') < rules.indexOf('page-speed-compression'), rules.join());
    // the fix ranking's gain follows the graded checks: the bundle's check has far more to gain
    assert.ok((checkScore(r, 'page-speed-render-blocking') ?? 1) < (checkScore(r, 'page-speed-compression') ?? 0) - 0.2);
    assert.match(compression.detail, /saving [\d.]+ KiB: about [1-9]\d* ms at 10 Mbps/);
    assert.equal(compression.fix.patchType, 'config');
    assert.match(blocking.detail, /It blocks render for about \d+ ms: 220 KB at 10 Mbps/);
  });

  it('a lazy-loaded hero image, the likely LCP element, is reported', async () => {
    const r = await report('/lazy-hero');
    const lazy = onlyFinding(r, 'page-speed-lcp-lazy');
    assert.match(lazy.evidence.url ?? '', /\/img\/hero-small\.jpg$/);
    assert.equal(lazy.evidence.selector, 'img[src="/img/hero-small.jpg"]');
    assert.match(lazy.detail, /presumably its Largest Contentful Paint, and has loading="lazy"/);
    assert.match(lazy.fix.change, /Remove loading="lazy"/);
    assert.equal(estimates(r).lcpMs > estimates(r).fcpMs, true);
    // the same image eager passes
    assert.equal(checkResult(analyze(PAGES['/lazy-hero']!.replace(' loading="lazy"', ''), null, urlOf('/x')), 'page-speed-lcp-lazy'), 'pass');
  });

  it('a 2 MB hero image is reported with its weight, and holds LCP back', async () => {
    const r = await report('/heavy-hero');
    const heavy = onlyFinding(r, 'page-speed-image-weight');
    assert.equal(heavy.evidence.value, '2.0 MB');
    assert.match(heavy.evidence.url ?? '', /\/img\/hero\.jpg$/);
    assert.match(heavy.detail, /weighs 2\.0 MB shown at 1200x750: about 1\.6 s to download at 10 Mbps, and as the likely LCP image it holds LCP back/);
    assert.equal(heavy.severity, 'high');
    assert.ok(estimates(r).lcpMs > 1600, JSON.stringify(estimates(r)));
    assert.equal((r.details.sizes as { fetched: { url: string; bytes: number }[] }).fetched[0]?.bytes, 2 * KB * KB);
  });

  it('fetches a handful of subresources at most; the rest are assumed at the fetched ones\' average, and said so', async () => {
    const before = site.paths.length;
    const r = await report('/thirty');
    const fetched = site.paths.slice(before).filter((p) => p.startsWith('/js/'));
    assert.equal(fetched.length, MAX_SUBRESOURCE_FETCHES);
    const finding = onlyFinding(r, 'page-speed-render-blocking');
    assert.equal(finding.count, 30);
    // equal sizes (fetched or assumed at their average) keep page order
    assert.match(finding.instances?.[0]?.url ?? '', /\/js\/w-1\.js$/);
    assert.equal((r.details.sizes as { assumed: string[] }).assumed.length, 20);
    const listed = r.details.renderBlocking as { url: string; bytes: number | null }[];
    assert.equal(listed[0]?.bytes, 4 * KB);
    assert.equal(listed[19]?.bytes, null, 'the twentieth was not fetched');
    assert.match(finding.detail, /It blocks render for about 40 ms: 4 KB at 10 Mbps \(an estimate/);
  });

  it('a resource that cannot be fetched keeps an assumed size, named as such', async () => {
    const r = await report('/unreachable');
    assert.match(onlyFinding(r, 'page-speed-render-blocking').detail, /30 KB assumed \(its size was not fetched\)/);
    assert.deepEqual((r.details.sizes as { assumed: string[] }).assumed, ['http://app.localhost/app.js']);
  });

  it('a large script is estimated blocking time; a banner inserted after load is a layout shift', async () => {
    const big = await report('/big-script');
    const work = onlyFinding(big, 'page-speed-script-work');
    assert.match(work.detail, /600 KB of JavaScript: about \d+ ms of main-thread work at CPU 1x/);
    assert.ok(estimates(big).tbtMs > 200, JSON.stringify(estimates(big)));
    const banner = await report('/late-banner');
    assert.match(onlyFinding(banner, 'page-speed-late-content').detail, /inserts or resizes content after the page painted/);
    assert.ok(estimates(banner).cls >= 0.1);
    assert.equal(checkResult(big, 'page-speed-late-content'), 'pass');
  });

  it('the tool\'s path: the page held once, sizes fetched, analysed on a worker', async () => {
    const ctx = {
      fetchPage: fetcher,
      withPage: async <T>(url: string, use: (facts: Awaited<ReturnType<typeof fetcher>>) => Promise<T>) => use(await fetcher(url)),
      signal: new AbortController().signal,
    };
    const result = await fetchAndAnalyzeWithSizes(ctx, urlOf('/heavy-hero'), [(await import('../../../src/analysis/analyzers/page-speed.ts')).pageSpeedAnalyzer]);
    assert.equal(result.status, 200);
    assert.equal(onlyFinding(result.report, 'page-speed-image-weight').evidence.value, '2.0 MB');
    assert.equal(result.report.details.method, 'proxy');
  });
});

describe('page-speed subresource sizes', () => {
  it('a busy fetcher or a refused URL leaves the size unknown; a cap reached is "at least"; an abort stops the call', async () => {
    const busy = async () => {
      throw new ServiceError(429, 'fetch_busy', 'the fetch queue is full');
    };
    assert.deepEqual(await fetchSize(busy, { url: 'https://shop.test/a.js', kind: 'script' }), { url: 'https://shop.test/a.js', kind: 'script', transferBytes: null, decodedBytes: null });
    const capped = async () => {
      throw new ServiceError(422, 'fetch_failed', 'over the cap', { extra: { phase: 'size' } });
    };
    const big = await fetchSize(capped, { url: 'https://shop.test/hero.jpg', kind: 'image' });
    assert.equal(big.atLeast, true);
    assert.equal(big.transferBytes, 4 * KB * KB);
    const aborted = async () => {
      throw new DOMException('aborted', 'AbortError');
    };
    await assert.rejects(fetchSize(aborted, { url: 'https://shop.test/a.js', kind: 'script' }), { name: 'AbortError' });
  });
});

describe('page-speed cost model', () => {
  it('the estimates are labelled so, and unsized images in view are CLS risk', () => {
    const sized = page('', '<img src="/a.jpg" alt="a" width="400" height="300"><p>x</p>');
    const unsized = page('', '<img src="/a.jpg" alt="a"><p>x</p>');
    const low = analyze(unsized.replace('<img', `${'<img src="/s.jpg" alt="" width="10" height="10">'.repeat(3)}<img`), null, 'https://shop.test/');
    const first = analyze(unsized, null, 'https://shop.test/');
    const details = (r: Report) => r.details.estimates as { basis: string; cls: number };
    assert.match(details(first).basis, /^estimated, not measured/);
    assert.match(first.notes[0] ?? '', /FCP, LCP, TBT and CLS are estimates/);
    assert.equal(details(analyze(sized, null, 'https://shop.test/')).cls, 0);
    assert.ok(details(first).cls > 0);
    // past the first three images it is presumed below the fold: no shift in view
    assert.equal(details(low).cls, 0);
  });

  it('slow start: 14.6 KB in one round trip, then doubling up to the link\'s 52 KB', () => {
    assert.equal(roundTrips(10 * KB), 1);
    assert.equal(roundTrips(40 * KB), 2);
    assert.equal(roundTrips(200 * KB), 6);
  });
  it('grades and severities follow the milliseconds', () => {
    assert.equal(scoreForCostMs(0), 1);
    assert.ok(Math.abs(scoreForCostMs(150) - 0.9) < 0.011);
    assert.ok(Math.abs(scoreForCostMs(600) - 0.5) < 0.011);
    assert.ok(scoreForCostMs(2000) < 0.2);
    assert.deepEqual([50, 250, 1200].map(severityForCostMs), ['low', 'medium', 'high']);
  });
});
