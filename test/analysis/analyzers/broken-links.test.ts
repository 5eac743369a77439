import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extractLinks, judgeLinks, outcomeFromError, type LinkOutcome, type LinkTarget } from '../../../src/analysis/analyzers/broken-links.ts';
import { parseHtml } from '../../../src/analysis/html-document.ts';
import { buildEgressPolicy } from '../../../src/analysis/egress-policy.ts';
import { createEgressFetcher, type EgressFetcher } from '../../../src/analysis/fetch-supervisor.ts';
import { fetchFailed } from '../../../src/analysis/fetch-errors.ts';
import { ServiceError } from '../../../src/core/errors.ts';
import { startHttpSite, type TestSite } from '../support/test-sites.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { assertValid, checkResult, findingIds, firedRules, onlyFinding } from './report-helpers.ts';
import { runInIsolatedNetwork } from '../../support/isolated-network.ts';

// It tries refused addresses: in a network namespace with only loopback, a regression could reach nothing.
await runInIsolatedNetwork(import.meta.filename);

const page = (body: string, head = '') => `<!doctype html>\n<html lang="en"><head><title>Links</title>${head}</head>\n<body>${body}</body></html>`;
const ok = (status: number | null = 200): LinkOutcome => ({ outcome: 'ok', status, finalUrl: null, reason: null, method: 'HEAD' });
const target = (url: string, kinds: LinkTarget['kinds'], internal: boolean): LinkTarget => ({ url, kinds, internal, elements: [{ selector: 'a', line: 3, snippet: `<a href="${url}">` }], count: 1 });

describe('broken-links: extraction', () => {
  it('reads links, stylesheets, images and scripts once each, skipping what cannot be fetched', () => {
    const html = page(
      '<a href="/a#top">A</a><a href="/a">A again</a><img src="/a"><a href="#x">frag</a><a href="mailto:x@y.z">m</a><a href="tel:1">t</a>' +
        '<a href="javascript:void(0)">j</a><img src="data:image/png;base64,AA"><a href="ftp://files.test/x">ftp</a><a href="https://www.shop.test/b">www</a>' +
        '<a href="https://other.test/c">other</a><script src="/app.js"></script><script>inline()</script><link rel="icon" href="/favicon.ico"><a>no href</a>',
      '<link rel="stylesheet" href="style.css"><base href="https://shop.test/dir/">',
    );
    const { links, skipped } = extractLinks(parseHtml(html, 'https://shop.test/page'), 'https://shop.test/page');
    assert.equal(skipped, 6);
    assert.deepEqual(
      links.map((l) => [l.url, l.kinds.join('+'), l.internal, l.count]),
      [
        ['https://shop.test/dir/style.css', 'stylesheet', true, 1],
        ['https://shop.test/a', 'link+image', true, 3],
        ['https://www.shop.test/b', 'link', true, 1],
        ['https://other.test/c', 'link', false, 1],
        ['https://shop.test/app.js', 'script', true, 1],
      ],
    );
    assert.deepEqual(links[1]?.elements.map((e) => e.selector), ['a[href="/a#top"]', 'a[href="/a"]', 'img[src="/a"]']);
    assert.equal(links[1]?.elements[0]?.line, 3);
  });

  it('links whose destination is in a script are not fetched, and not skipped in silence: they are crawlable-anchors instances', () => {
    const html = page(
      '<a href="/news/storm">Storm</a>\n<a href="javascript:void(0)" onclick="location.href=\'/news?page=2\'">More stories</a>\n' +
        '<a onclick="openLive(\'/live\')">Live</a>\n<a href="#" onclick="share()">Share</a>\n<a href="#top">Top</a>\n<a>placeholder</a>\n<a href="mailto:x@shop.test">Mail</a>',
    );
    const { links, skipped, unfollowable } = extractLinks(parseHtml(html, 'https://shop.test/news'), 'https://shop.test/news');
    assert.deepEqual(links.map((l) => l.url), ['https://shop.test/news/storm']);
    assert.equal(skipped, 4, 'javascript:, the two fragments and mailto:');
    assert.deepEqual(unfollowable.listed.map((l) => [l.text, l.problem, l.suggestedHref, l.line]), [
      ['More stories', 'javascript', '/news?page=2', 4],
      ['Live', 'script-only', '/live', 5],
      ['Share', 'placeholder-href', null, 6],
    ]);
    const report = judgeLinks({ checked: [{ link: links[0] as LinkTarget, outcome: ok() }], notChecked: [], skipped, notes: [], unfollowable });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['crawlable-anchors']);
    const finding = onlyFinding(report, 'crawlable-anchors');
    assert.equal(finding.count, 3);
    assert.equal(finding.severity, 'medium');
    assert.equal(finding.title, '3 links cannot be followed by search engines');
    assert.match(finding.fix.change, /Set href="\/news\?page=2"/);
    assert.equal(report.details.notFollowable, 3);
    assert.equal(checkResult(report, 'broken-link-internal'), 'pass');
    // the same page with real hrefs passes the rule
    const fixed = extractLinks(parseHtml(page('<a href="/news/storm">Storm</a><a href="/news?page=2">More stories</a>'), 'https://shop.test/news'), 'https://shop.test/news');
    const passing = judgeLinks({ checked: [], notChecked: [], skipped: 0, notes: [], unfollowable: fixed.unfollowable });
    assert.equal(checkResult(passing, 'crawlable-anchors'), 'pass');
    assert.equal(passing.details.notFollowable, 0);
  });
});

describe('broken-links: judging outcomes', () => {
  it('each outcome maps to its rule and severity; size failures work, timeouts are not judged', () => {
    const checked = [
      { link: target('https://shop.test/gone', ['link'], true), outcome: { outcome: 'broken', status: 404, finalUrl: null, reason: 'HTTP 404', method: 'HEAD' } as LinkOutcome },
      { link: target('https://other.test/x', ['link'], false), outcome: outcomeFromError(fetchFailed('dns', 'no name', 'https://other.test/x'), 'HEAD') },
      { link: target('https://shop.test/logo.png', ['image', 'link'], true), outcome: { outcome: 'broken', status: 500, finalUrl: null, reason: 'HTTP 500', method: 'GET' } as LinkOutcome },
      { link: target('https://shop.test/old', ['link'], true), outcome: { outcome: 'redirect', status: 200, finalUrl: 'https://shop.test/new', reason: null, method: 'HEAD' } as LinkOutcome },
      { link: target('http://10.0.0.1/', ['link'], false), outcome: outcomeFromError(new ServiceError(400, 'url_not_allowed', 'URL not allowed: 10.0.0.1 is a private address'), 'HEAD') },
      { link: target('https://shop.test/video.mp4', ['link'], true), outcome: outcomeFromError(fetchFailed('size', 'big', 'x'), 'HEAD') },
      { link: target('https://slow.test/', ['link'], false), outcome: outcomeFromError(fetchFailed('timeout', 'slow', 'x'), 'HEAD') },
      { link: target('https://shop.test/fine', ['link'], true), outcome: ok() },
    ];
    const report = judgeLinks({ checked, notChecked: [target('https://shop.test/late', ['link'], true)], skipped: 2, notes: [] });
    assertValid(report);
    assert.deepEqual(firedRules(report), ['broken-link-external', 'broken-link-internal', 'broken-resource', 'link-to-private-address', 'redirected-internal-link']);
    const internal = onlyFinding(report, 'broken-link-internal');
    assert.equal(internal.severity, 'high');
    assert.equal(internal.detail, 'The link https://shop.test/gone answers HTTP 404 to a HEAD request; 1 element, first at line 3 (a) use it.');
    assert.deepEqual(internal.evidence, { url: 'https://shop.test/gone', selector: 'a', line: 3, snippet: '<a href="https://shop.test/gone">', value: '404' });
    const external = onlyFinding(report, 'broken-link-external');
    assert.equal(external.severity, 'medium');
    assert.match(external.detail, /could not be reached \(dns\)/);
    assert.equal(external.fix.patchType, 'content');
    assert.equal(onlyFinding(report, 'broken-resource').severity, 'high');
    assert.equal(onlyFinding(report, 'broken-resource').category, 'best-practices');
    const redirect = onlyFinding(report, 'redirected-internal-link');
    assert.equal(redirect.severity, 'low');
    assert.equal(redirect.fix.change, 'Point the links to https://shop.test/old at https://shop.test/new directly.');
    assert.match(onlyFinding(report, 'link-to-private-address').detail, /10\.0\.0\.1 is a private address/);
    assert.deepEqual(report.notes, [
      '1 link could not be judged (timed out or the fetcher was busy); see details.links',
      '1 link was not checked (over the link cap or the time budget); see details.notChecked',
    ]);
    assert.equal(report.incomplete, true);
    assert.deepEqual(report.details.outcomes, { ok: 1, redirect: 1, broken: 2, refused: 1, failed: 3 });
    assert.equal(report.details.found, 9);
    assert.deepEqual(report.details.notChecked, ['https://shop.test/late']);
  });

  it('a rule whose links all timed out is unknown; with no links at all every rule is not applicable', () => {
    const report = judgeLinks({ checked: [{ link: target('https://slow.test/', ['link'], false), outcome: outcomeFromError(fetchFailed('timeout', 'slow', 'x'), 'HEAD') }], notChecked: [], skipped: 0, notes: [] });
    assert.equal(checkResult(report, 'broken-link-external'), 'unknown');
    assert.equal(checkResult(report, 'broken-link-internal'), 'not_applicable');
    const empty = judgeLinks({ checked: [], notChecked: [], skipped: 0, notes: [] });
    assert.deepEqual(empty.checks.map((c) => c.result), ['not_applicable', 'not_applicable', 'not_applicable', 'not_applicable', 'not_applicable', 'not_applicable']);
    assert.equal(empty.details.notFollowable, null, 'anchors not read: not applicable, not a pass');
    assert.equal(empty.statuses.overall, 'unknown');
  });

  it('an error that is not a fetch outcome (the call was aborted) is thrown on', () => {
    const aborted = new Error('aborted');
    assert.throws(() => outcomeFromError(aborted, 'HEAD'), aborted);
  });

  it('findingIds hang on the rule and the URL, so they survive edits to the page', () => {
    const make = (line: number) => judgeLinks({ checked: [{ link: { ...target('https://shop.test/gone', ['link'], true), elements: [{ selector: 'p>a', line, snippet: '<a>' }] }, outcome: { outcome: 'broken', status: 404, finalUrl: null, reason: 'HTTP 404', method: 'HEAD' } }], notChecked: [], skipped: 0, notes: [] });
    assert.deepEqual(findingIds(make(3)), findingIds(make(40)));
  });
});

describe('broken-links-checker through the whole app and the real fetcher', () => {
  let site: TestSite;
  let deadPort: number;
  let fetcher: EgressFetcher;
  let t: TestApp;
  let apiKey: string;
  let inFlight = 0;
  let maxInFlight = 0;
  const methods: string[] = [];

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    methods.push(`${req.method} ${host}${path}`);
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : body);
    if (path === '/page') {
      const links = [
        '/fine', '/no-head', '/head-501', '/gone', '/old', '/big.bin', `http://other.test:${site.port}/x`, `http://links.test:${deadPort}/down`, 'http://169.254.169.254/latest',
        ...Array.from({ length: 8 }, (_, i) => `/more/${i}`),
      ];
      return html(page(links.map((l) => `<a href="${l}">${l}</a>`).join('\n') + '<img src="/missing.png" alt="x">'));
    }
    if (path === '/no-head' && req.method === 'HEAD') return res.writeHead(405).end();
    if (path === '/head-501' && req.method === 'HEAD') return res.writeHead(501).end();
    if (path === '/gone' || path === '/missing.png') return res.writeHead(404).end();
    if (path === '/old') return res.writeHead(301, { location: '/new' }).end();
    if (path === '/big.bin') return res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * 1024) }).end();
    if (host === 'other.test') return res.writeHead(503).end();
    return html('ok');
  };

  before(async () => {
    site = await startHttpSite(handler);
    const dead = await startHttpSite(handler);
    deadPort = dead.port;
    await dead.close();
    const real = createEgressFetcher({ policy: buildEgressPolicy('127.0.0.1/32', 'links.test:127.0.0.1,other.test:127.0.0.1') }, { concurrency: 16, perAccount: 8, maxQueued: 64 });
    // Counts fetches under way, to show the checker never has more than 4 at once (plus none left over).
    fetcher = {
      status: () => real.status(),
      // the page itself (fetched with its analysis in the slot) is not a link check
      fetchAndUse: (url, use, options) => real.fetchAndUse(url, use, options),
      async fetch(url, options) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          return await real.fetch(url, options);
        } finally {
          inFlight--;
        }
      },
    };
    t = await startTestApp({ fetcher });
    ({ apiKey } = await t.account({ plan: 'business', quota: 1_000_000 }));
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const get = (query: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/v1/seo-apis/broken-links-checker', query, headers: { 'x-api-key': apiKey } });

  it('checks each link HEAD first, falls back to GET on 405/501, and reports every outcome', async () => {
    const response = await get({ url: `http://links.test:${site.port}/page`, maxLinks: '12' });
    assert.equal(response.statusCode, 200, response.body.slice(0, 1000));
    const report = response.json().result.report;
    assertValid(report);
    const links = report.details.links as { url: string; outcome: string; status: number | null; method: string; reason: string | null; finalUrl: string | null }[];
    const byPath = Object.fromEntries(links.map((l) => [l.url.replace(/^http:\/\/links\.test:\d+/, ''), `${l.outcome} ${l.status} ${l.method}${l.reason ? ` ${l.reason}` : ''}`]));
    assert.deepEqual(byPath, {
      '/fine': 'ok 200 HEAD',
      '/no-head': 'ok 200 GET',
      '/head-501': 'ok 200 GET',
      '/gone': 'broken 404 HEAD HTTP 404',
      '/old': 'redirect 200 HEAD',
      // HEAD declares 10 MB but sends no body: the cap is not held against it.
      '/big.bin': 'ok 200 HEAD',
      [`http://other.test:${site.port}/x`]: 'broken 503 HEAD HTTP 503',
      '/down': 'failed null HEAD connect',
      'http://169.254.169.254/latest': `refused null HEAD ${links.find((l) => l.url.includes('169.254'))?.reason}`,
      '/more/0': 'ok 200 HEAD',
      '/more/1': 'ok 200 HEAD',
      '/more/2': 'ok 200 HEAD',
    });
    assert.match(links.find((l) => l.url.includes('169.254'))?.reason ?? '', /^URL not allowed/);
    assert.ok(!methods.some((m) => m.includes('169.254')), 'the private address was never fetched');
    assert.ok(methods.includes(`GET links.test/no-head`) && methods.includes('HEAD links.test/no-head'));
    assert.ok(!methods.includes('GET links.test/gone'), 'a 404 to HEAD is not asked again');
    assert.deepEqual(firedRules(report), ['broken-link-external', 'broken-link-internal', 'link-to-private-address', 'redirected-internal-link']);
    // /gone and /down: one finding of the rule, each URL listed
    const internal = onlyFinding(report, 'broken-link-internal');
    assert.equal(internal.count, 2);
    assert.equal(internal.title, '2 links to this site are broken');
    assert.deepEqual(internal.instances?.map((e: { url?: string }) => e.url?.replace(/^http:\/\/links\.test:\d+/, '')).sort(), ['/down', '/gone']);
    assert.equal(report.details.found, 18);
    assert.equal(report.details.checked, 12);
    assert.equal((report.details.notChecked as string[]).length, 6, 'five more /more links and the image');
    assert.ok(report.notes.includes('6 links were not checked (over the link cap or the time budget); see details.notChecked'));
    // never more than four run at once (how many overlap depends on the machine, so only the bound is asserted)
    assert.ok(maxInFlight >= 1 && maxInFlight <= 4, `at most 4 link fetches at once, saw ${maxInFlight}`);
    assert.equal(inFlight, 0);
  });

  it('includeExternal=false leaves other hosts out, and the image is checked when within the cap', async () => {
    methods.length = 0;
    const response = await get({ url: `http://links.test:${site.port}/page`, maxLinks: '100', includeExternal: 'false' });
    assert.equal(response.statusCode, 200);
    const report = response.json().result.report;
    const urls = (report.details.links as { url: string }[]).map((l) => l.url);
    assert.equal(urls.length, 16);
    assert.ok(!urls.some((u) => u.includes('other.test') || u.includes('169.254')));
    assert.ok(report.notes.includes('2 links to other sites were left out (includeExternal=false)'));
    assert.equal(onlyFinding(report, 'broken-resource').evidence.url, `http://links.test:${site.port}/missing.png`);
  });

  it('bad maxLinks and includeExternal answer 400 naming the field; a private page url answers 400 url_not_allowed', async () => {
    const tooMany = await get({ url: `http://links.test:${site.port}/page`, maxLinks: '500' });
    assert.equal(tooMany.statusCode, 400);
    assert.equal(tooMany.json().error, 'validation_error');
    assert.match(JSON.stringify(tooMany.json()), /maxLinks/);
    const maybe = await get({ url: `http://links.test:${site.port}/page`, includeExternal: 'maybe' });
    assert.equal(maybe.statusCode, 400);
    assert.match(JSON.stringify(maybe.json()), /includeExternal/);
    const metadata = await get({ url: 'http://169.254.169.254/latest' });
    assert.equal(metadata.statusCode, 400);
    assert.equal(metadata.json().error, 'url_not_allowed');
  });
});
