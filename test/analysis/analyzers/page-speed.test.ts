import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import {
  PROXY_NOTE,
  analyze,
  rules,
} from '../../../src/analysis/analyzers/page-speed.ts';
import { mediaMatchesScreen } from '../../../src/analysis/analyzers/page-speed-resources.ts';
import { buildEgressPolicy } from '../../../src/analysis/egress-policy.ts';
import { fetchPage } from '../../../src/analysis/fetcher.ts';
import type { PageFacts } from '../../../src/analysis/page-facts.ts';
import { startHttpSite, type TestSite } from '../support/test-sites.ts';
import { assertValid, checkResult, factsFor, findingIds, firedRules, instancesOf, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/deals';
const page = (head: string, body: string) => `<!doctype html><html lang="en"><head><title>Deals</title>${head}</head><body>${body}</body></html>`;
const sized = (n: number, extra = '') => `<img src="/p${n}.jpg" alt="Product ${n}" width="300" height="200"${extra}>`;

/** Facts of a fetched page whose body is `html`, sent as given (uncompressed unless said). */
function factsOf(html: string, options: { headers?: Record<string, string>; ttfbMs?: number | null; transferBytes?: number; contentEncoding?: string | null } = {}): PageFacts {
  const base = factsFor(URL, { headers: { 'cache-control': 'max-age=60', ...options.headers } });
  const body = Buffer.from(html);
  return {
    ...base,
    body,
    text: html,
    transferBytes: options.transferBytes ?? body.length,
    contentEncoding: options.contentEncoding ?? null,
    timings: { ...base.timings, ttfbMs: options.ttfbMs === undefined ? 120 : options.ttfbMs },
  };
}
const run = (html: string, options: Parameters<typeof factsOf>[1] = {}) => analyze(html, factsOf(html, options), URL);

const CLEAN = page(
  '<script src="/app.js" defer></script><script type="module" src="/ui.js"></script><script src="/a.js" async></script>' +
    '<script type="application/ld+json">{}</script><link rel="stylesheet" href="/print.css" media="print">',
  `<h1>Deals</h1>${[1, 2, 3].map((n) => sized(n)).join('')}${sized(4, ' loading="lazy"')}${sized(5, ' loading="lazy"')}`,
);
const ALL_RULES = rules.map((r) => r.id);

describe('page-speed analyzer (proxy)', () => {
  it('a lean page passes every rule, scores 100, and is labelled a proxy', () => {
    const report = run(CLEAN);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    // no image size was fetched, so image weight cannot be judged; every other rule passes
    for (const rule of ALL_RULES) assert.equal(checkResult(report, rule), rule === 'page-speed-image-weight' ? 'not_applicable' : 'pass', rule);
    assert.deepEqual(report.scores, { performance: 100, overall: 100 });
    assert.equal(report.statuses.performance, 'good');
    assert.equal(report.details.method, 'proxy');
    assert.deepEqual(report.notes, [PROXY_NOTE]);
    assert.equal(report.incomplete, false, 'the proxy label alone does not make the report incomplete');
    assert.deepEqual(report.details.images, { count: 5, eagerBudget: 3, unsized: [], notLazy: [] });
  });

  it('render-blocking: each sync head script, screen stylesheet and @import, and nothing else', () => {
    const html = page(
      '<script src="/jquery.js"></script><script type="text/javascript" src="https://cdn.test/lib.js"></script>' +
        '<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="/wide.css" media="screen and (min-width: 900px)">' +
        '<link rel="stylesheet" href="/print.css" media="print"><link rel="alternate stylesheet" href="/alt.css">' +
        '<style>@import url("/fonts.css"); body{margin:0}</style><noscript><link rel="stylesheet" href="/nojs.css"></noscript>',
      '<h1>Deals</h1><script src="/late.js"></script>',
    );
    const report = run(html);
    assertValid(report);
    // five blocking resources, one finding of the rule listing each, the costliest first (sizes
    // unknown: the script on another origin pays a handshake, scripts pay their run, then page order)
    assert.deepEqual(firedRules(report), ['page-speed-render-blocking']);
    const blocking = onlyFinding(report, 'page-speed-render-blocking');
    assert.equal(blocking.count, 5);
    assert.equal(blocking.title, '5 resources block the first render');
    assert.deepEqual(blocking.instances?.map((e) => e.url), [
      'https://cdn.test/lib.js',
      'https://shop.test/jquery.js',
      'https://shop.test/site.css',
      'https://shop.test/wide.css',
      'https://shop.test/fonts.css',
    ]);
    // five small resources (sizes assumed), one on a new https origin (DNS, TCP, TLS): about 280 ms
    // before the first paint on desktop, medium
    assert.equal(blocking.severity, 'medium');
    assert.deepEqual(blocking.evidence, { selector: 'script[src="https://cdn.test/lib.js"]', snippet: '<script type="text/javascript" src="https://cdn.test/lib.js">', line: 1, url: 'https://cdn.test/lib.js', value: 'about 260 ms' });
    assert.match(blocking.detail, /It blocks render for about 260 ms: 30 KB assumed \(its size was not fetched\) at 10 Mbps, then about 20 ms to run/);
    assert.equal(blocking.fix.patchType, 'html');
    assert.equal(blocking.fix.roleHint, 'edit');
    assert.match(blocking.fix.change, /^Make each of the 5 render-blocking resources non-blocking, the costliest \(listed first\) first: .* Each is listed in instances \(selector, line, value, url\)\. Each: Add defer to the <script> at script\[src="https:\/\/cdn\.test\/lib\.js"\]/);
    assert.equal(blocking.fix.acceptance, 'No script or stylesheet blocks the first render (each has async, defer, type=module, a non-screen media, or is gone).');
    const details = report.details.renderBlocking as { kind: string; url: string }[];
    assert.deepEqual(details.map((d) => d.kind), ['script', 'script', 'stylesheet', 'stylesheet', 'css-import']);
    assert.equal(checkResult(report, 'page-speed-unsized-images'), 'not_applicable');
    // graded by the delay, not pass/fail, and the category scored on Lighthouse's curves
    const check = report.checks.find((c) => c.rule === 'page-speed-render-blocking');
    assert.ok(check !== undefined && check.result === 'fail' && check.score !== null && check.score > 0.5 && check.score < 0.9, JSON.stringify(check));
    const estimates = report.details.estimates as { fcpMs: number; renderBlockingMs: number; score: number };
    assert.ok(estimates.renderBlockingMs > 150 && estimates.renderBlockingMs < 300, JSON.stringify(estimates));
    assert.equal(report.scores.performance, estimates.score);
  });

  it('media attributes: only those that exclude screens unblock a stylesheet', () => {
    assert.equal(mediaMatchesScreen(undefined), true);
    assert.equal(mediaMatchesScreen('all'), true);
    assert.equal(mediaMatchesScreen('(min-width: 600px)'), true);
    assert.equal(mediaMatchesScreen('only screen and (max-width: 400px)'), true);
    assert.equal(mediaMatchesScreen('not print'), true);
    assert.equal(mediaMatchesScreen('print'), false);
    assert.equal(mediaMatchesScreen('speech, print'), false);
    assert.equal(mediaMatchesScreen('not screen'), false);
  });

  it('a head written before <body> without a <head> tag still blocks', () => {
    const report = run('<!doctype html><title>x</title><script src="/x.js"></script><body><p>hi</p></body>');
    assert.equal(onlyFinding(report, 'page-speed-render-blocking').evidence.url, 'https://shop.test/x.js');
  });

  it('unsized images: each <img> without numeric width and height, unless the inline style sizes it', () => {
    const html = page(
      '',
      '<img src="/a.jpg" alt="a"><img src="/b.jpg" alt="b" width="300"><img src="/c.jpg" alt="c" width="auto" height="auto">' +
        '<img src="/d.jpg" alt="d" style="width: 100%; height: 240px"><img src="/e.jpg" alt="e" style="width:100%;aspect-ratio:4/3">' +
        '<img src="/f.jpg" alt="f" width="10" height="10" loading="lazy"><img alt="no source">',
    );
    const report = run(html);
    assertValid(report);
    assert.deepEqual(instancesOf(report, 'page-speed-unsized-images').map((e) => e.url), ['https://shop.test/a.jpg', 'https://shop.test/b.jpg', 'https://shop.test/c.jpg']);
    const unsized = onlyFinding(report, 'page-speed-unsized-images');
    assert.equal(unsized.count, 3);
    assert.equal(unsized.severity, 'medium');
    assert.equal(unsized.evidence.selector, 'img[src="/a.jpg"]');
    assert.match(unsized.detail, /CLS/);
    assert.equal(checkResult(run(page('', '<p>no images</p>')), 'page-speed-unsized-images'), 'not_applicable');
  });

  it('offscreen images: past the first three, each image without loading="lazy" or fetchpriority="high"', () => {
    const html = page(
      '',
      [1, 2, 3].map((n) => sized(n)).join('') +
        sized(4) +
        sized(5, ' loading="lazy"') +
        sized(6, ' fetchpriority="high"') +
        sized(7, ' loading="eager"') +
        '<noscript><img src="/fallback.jpg" alt="x" width="1" height="1"></noscript>',
    );
    const report = run(html);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['page-speed-offscreen-images']);
    assert.deepEqual(instancesOf(report, 'page-speed-offscreen-images').map((e) => e.url), ['https://shop.test/p4.jpg', 'https://shop.test/p7.jpg']);
    const offscreen = onlyFinding(report, 'page-speed-offscreen-images');
    assert.equal(offscreen.severity, 'low');
    assert.equal(offscreen.title, '2 images below the fold are not lazy-loaded');
    assert.match(offscreen.detail, /The image https:\/\/shop\.test\/p4\.jpg is image 4 of 7; past the first 3 it is presumed below the fold, yet it loads with the page \(the 2 such images take about 20 ms of bandwidth at 10 Mbps/);
    assert.match(offscreen.fix.change, /Each: Add loading="lazy" to the <img> at img\[src="\/p4\.jpg"\] \(keep the first images of the page eager\)\. Add loading="lazy" to the <img> at img\[src="\/p7\.jpg"\]/);
    assert.equal(offscreen.fix.acceptance, 'No image past the first 3 loads eagerly.');
    // three images or fewer: nothing can be below the presumed fold
    assert.equal(checkResult(run(page('', [1, 2, 3].map((n) => sized(n)).join(''))), 'page-speed-offscreen-images'), 'not_applicable');
  });

  it('DOM size: above 800 elements is half a check (low), above 1,400 a failure (medium)', () => {
    const list = (n: number) => page('', `<ul>${'<li>x</li>'.repeat(n)}</ul>`);
    // html, head, title, body, ul: 5 elements besides the items
    assert.equal(checkResult(run(list(795)), 'page-speed-dom-size'), 'pass');
    const gzipped = { contentEncoding: 'gzip', headers: { 'content-encoding': 'gzip' } };
    const warn = run(list(900), gzipped);
    assert.deepEqual(firedRules(warn), ['page-speed-dom-size']);
    const warning = onlyFinding(warn, 'page-speed-dom-size');
    assert.equal(warning.severity, 'low');
    assert.equal(warning.evidence.value, '905 elements');
    assert.equal(warn.checks.find((c) => c.rule === 'page-speed-dom-size')?.score, 0.5);
    const fail = run(list(1500));
    assert.equal(onlyFinding(fail, 'page-speed-dom-size').severity, 'medium');
    assert.equal(fail.checks.find((c) => c.rule === 'page-speed-dom-size')?.score, 0);
    assert.deepEqual((fail.details.dom as { elements: number; maxChildren: number }).elements, 1505);
    assert.deepEqual((fail.details.dom as { elements: number; maxChildren: number }).maxChildren, 1500);
  });

  it('DOM depth: nesting past 32 fires at the deepest element; 32 passes', () => {
    // html > body > 30 divs > span: depth 33 (html is 1)
    const deep = (divs: number) => page('', `${'<div>'.repeat(divs)}<span id="leaf">x</span>${'</div>'.repeat(divs)}`);
    assert.equal(checkResult(run(deep(29)), 'page-speed-dom-depth'), 'pass');
    const report = run(deep(30));
    const finding = onlyFinding(report, 'page-speed-dom-depth');
    assert.equal(finding.severity, 'low');
    assert.equal(finding.evidence.selector, 'span#leaf');
    assert.equal(finding.evidence.value, 'depth 33');
    assert.equal((report.details.dom as { maxDepth: number }).maxDepth, 33);
  });

  it('HTML bytes: over 100 KiB on the wire or 500 KiB decoded fires, with both sizes', () => {
    const big = page('', `<p>${'a'.repeat(120 * 1024)}</p>`);
    const heavy = onlyFinding(run(big, { contentEncoding: 'gzip', headers: { 'content-encoding': 'gzip' } }), 'page-speed-html-bytes');
    // 20 KiB over the budget cost a round trip or so: low
    assert.equal(heavy.severity, 'low');
    assert.match(heavy.evidence.value ?? '', /^120\.\d KiB on the wire, 120\.\d KiB decoded$/);
    // compressed to 20 KiB on the wire: under both budgets
    assert.equal(checkResult(run(big, { transferBytes: 20 * 1024, contentEncoding: 'gzip', headers: { 'content-encoding': 'gzip' } }), 'page-speed-html-bytes'), 'pass');
    const huge = page('', `<p>${'a'.repeat(600 * 1024)}</p>`);
    assert.equal(firedRules(run(huge, { transferBytes: 30 * 1024, contentEncoding: 'br', headers: { 'content-encoding': 'br' } })).join(), 'page-speed-html-bytes');
  });

  it('compression: text over 1,400 bytes sent without content-encoding fires with the gzip estimate; small or encoded passes', () => {
    const text = page('', `<p>${'Trail shoes on sale. '.repeat(200)}</p>`);
    const report = run(text);
    const finding = onlyFinding(report, 'page-speed-compression');
    // 4 KiB saved is a few milliseconds at 10 Mbps: low, and its check almost whole
    assert.equal(finding.severity, 'low');
    assert.ok((report.checks.find((c) => c.rule === 'page-speed-compression')?.score ?? 0) >= 0.99);
    assert.equal(finding.evidence.header, 'content-encoding');
    assert.equal(finding.fix.patchType, 'config');
    assert.equal(finding.fix.roleHint, 'config');
    const estimate = (report.details.bytes as { gzipEstimate: number }).gzipEstimate;
    assert.equal(estimate, zlib.gzipSync(Buffer.from(text), { level: 6 }).length);
    assert.ok(finding.detail.includes('sent uncompressed; gzip makes it'));
    assert.equal(checkResult(run(page('', '<p>small</p>')), 'page-speed-compression'), 'pass');
    assert.equal(checkResult(run(text, { contentEncoding: 'gzip', headers: { 'content-encoding': 'gzip' } }), 'page-speed-compression'), 'pass');
    // a response that is not text (an image served at the URL) is not judged
    const image = { ...factsOf(text), mediaType: 'image/png' };
    assert.equal(checkResult(analyze(text, image, URL), 'page-speed-compression'), 'not_applicable');
  });

  it('caching headers: none of Cache-Control, ETag, Last-Modified or Expires fires; any one passes', () => {
    const html = page('', '<p>hi</p>');
    const facts = { ...factsOf(html), headers: { 'content-type': 'text/html' } };
    const finding = onlyFinding(analyze(html, facts, URL), 'page-speed-caching-headers');
    assert.equal(finding.severity, 'low');
    assert.equal(finding.fix.patchType, 'http-header');
    assert.equal(finding.evidence.header, 'cache-control');
    for (const header of ['cache-control', 'etag', 'last-modified', 'expires']) {
      const withOne = { ...facts, headers: { 'content-type': 'text/html', [header]: header === 'etag' ? '"v1"' : 'max-age=0' } };
      assert.equal(checkResult(analyze(html, withOne, URL), 'page-speed-caching-headers'), 'pass', header);
    }
  });

  it('TTFB: above 600 ms fires (high); 600 passes; an unmeasured TTFB is unknown', () => {
    const html = page('', '<p>hi</p>');
    const slow = run(html, { ttfbMs: 1250.4 });
    const finding = onlyFinding(slow, 'page-speed-ttfb');
    assert.equal(finding.severity, 'high');
    assert.equal(finding.evidence.value, '1250 ms');
    assert.equal(finding.fix.patchType, 'investigate');
    assert.equal(slow.details.ttfbMs, 1250.4);
    // every paint waits for the first byte: the estimated FCP includes it
    assert.ok((slow.details.estimates as { fcpMs: number }).fcpMs > 1250);
    assert.equal(onlyFinding(run(html, { ttfbMs: 800 }), 'page-speed-ttfb').severity, 'medium');
    assert.equal(checkResult(run(html, { ttfbMs: 600 }), 'page-speed-ttfb'), 'pass');
    assert.equal(checkResult(run(html, { ttfbMs: null }), 'page-speed-ttfb'), 'unknown');
  });

  it('request count: more than 50 distinct referenced resources fires; duplicates and data: URLs do not count', () => {
    const images = (n: number) => Array.from({ length: n }, (_, i) => sized(i + 1, ' loading="lazy"')).join('');
    const fifty = page('<link rel="icon" href="/favicon.ico">', `${images(49)}${sized(1, ' loading="lazy"')}<img src="data:image/png;base64,AA==" width="1" height="1" alt="">`);
    const ok = run(fifty);
    assert.equal(checkResult(ok, 'page-speed-request-count'), 'pass');
    assert.deepEqual((ok.details.requests as { count: number; byKind: Record<string, number> }).byKind, { icon: 1, image: 49 });
    const many = run(page('<link rel="icon" href="/favicon.ico"><script src="/app.js" defer></script>', images(50)));
    const finding = onlyFinding(many, 'page-speed-request-count');
    assert.equal(finding.evidence.value, '52 resources');
    assert.equal(finding.severity, 'low');
  });

  it('without response facts, the response rules are unknown and the HTML rules still judged', () => {
    const report = analyze(CLEAN, null, URL);
    assertValid(report);
    for (const rule of ['page-speed-html-bytes', 'page-speed-compression', 'page-speed-caching-headers', 'page-speed-ttfb']) {
      assert.equal(checkResult(report, rule), 'unknown', rule);
    }
    assert.equal(checkResult(report, 'page-speed-render-blocking'), 'pass');
    assert.equal(report.incomplete, true);
    assert.equal(report.details.ttfbMs, null);
    assert.deepEqual(report.scores, { performance: 100, overall: 100 });
  });

  it('findingIds are stable across runs and unrelated edits', () => {
    const html = page('<script src="/jquery.js"></script>', `<h1>x</h1>${[1, 2, 3, 4].map((n) => `<img src="/p${n}.jpg" alt="">`).join('')}`);
    const first = findingIds(run(html));
    // one finding per rule: render-blocking, unsized images, offscreen images
    assert.equal(first.length, 3);
    assert.deepEqual(findingIds(run(html)), first);
    const edited = html.replace('<h1>x</h1>', '<header><nav><a href="/">Home</a></nav></header><h1>Deals of the week</h1>');
    assert.deepEqual(findingIds(run(edited)), first);
  });

  it('per-element rules count every element and list the first 20 in document order, the report complete', () => {
    const html = page(Array.from({ length: 30 }, (_, i) => `<script src="/s${i + 1}.js"></script>`).join(''), Array.from({ length: 120 }, (_, i) => `<img src="/u${i + 1}.jpg" alt="">`).join(''));
    const report = run(html);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['page-speed-compression', 'page-speed-offscreen-images', 'page-speed-render-blocking', 'page-speed-request-count', 'page-speed-unsized-images']);
    const unsized = onlyFinding(report, 'page-speed-unsized-images');
    assert.equal(unsized.count, 120);
    assert.deepEqual(unsized.instances?.map((e) => e.url), Array.from({ length: 20 }, (_, i) => `https://shop.test/u${i + 1}.jpg`));
    assert.equal(onlyFinding(report, 'page-speed-offscreen-images').count, 117);
    assert.equal(onlyFinding(report, 'page-speed-render-blocking').count, 30);
    assert.equal(onlyFinding(report, 'page-speed-render-blocking').title, '30 resources block the first render');
    assert.equal(report.incomplete, false);
    assert.deepEqual(report.notes, [PROXY_NOTE]);
    // details list as many as instances do, beside exact counts
    const images = report.details.images as { count: number; unsized: unknown[]; notLazy: unknown[] };
    assert.deepEqual([images.count, images.unsized.length, images.notLazy.length], [120, 20, 20]);
    assert.ok(JSON.stringify(report).length < 24_000, `the report is ${JSON.stringify(report).length} characters`);
  });

  it('a page of 100,000 nested elements is analysed within the parse limits, with a note', () => {
    const html = `<!doctype html><html><body>${'<div>'.repeat(100_000)}</body></html>`;
    const report = run(html);
    assertValid(report);
    const depth = (report.details.dom as { maxDepth: number }).maxDepth;
    assert.ok(depth > 512 && depth < 100_000, `depth ${depth}: parsing stopped past the limit`);
    assert.equal(onlyFinding(report, 'page-speed-dom-depth').evidence.value, `depth ${depth}`);
    assert.ok(report.notes.some((n) => n.startsWith('elements nested deeper than 512')), report.notes.join('; '));
    assert.equal(report.incomplete, true);
  });
});

describe('page-speed analyzer on real responses through the fetcher', () => {
  let site: TestSite;
  const html = page('', `<p>${'Trail shoes on sale this week. '.repeat(300)}</p>`);
  before(async () => {
    site = await startHttpSite((req, res) => {
      if (req.url === '/gzip') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', etag: '"v1"' }).end(zlib.gzipSync(html));
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
  });
  after(() => site.close());
  const options = () => ({ policy: buildEgressPolicy('127.0.0.1/32', 'shop.test:127.0.0.1') });

  it('a gzipped page with an ETag passes compression and caching, and records both sizes', async () => {
    const facts = await fetchPage(`http://shop.test:${site.port}/gzip`, options());
    const report = analyze(facts.text, facts, facts.finalUrl);
    assert.equal(checkResult(report, 'page-speed-compression'), 'pass');
    assert.equal(checkResult(report, 'page-speed-caching-headers'), 'pass');
    const bytes = report.details.bytes as { transfer: number; decoded: number; contentEncoding: string };
    assert.equal(bytes.decoded, Buffer.byteLength(html));
    assert.equal(bytes.transfer, zlib.gzipSync(html).length);
    assert.equal(bytes.contentEncoding, 'gzip');
  });

  it('the same page sent plain fires compression and caching', async () => {
    const facts = await fetchPage(`http://shop.test:${site.port}/plain`, options());
    const report = analyze(facts.text, facts, facts.finalUrl);
    // TTFB is left out: a loopback server's first byte time is not this test's to fix
    assert.deepEqual(firedRules(report).filter((r) => r !== 'page-speed-ttfb'), ['page-speed-caching-headers', 'page-speed-compression']);
    assert.equal((report.details.bytes as { transfer: number }).transfer, Buffer.byteLength(html));
  });
});
