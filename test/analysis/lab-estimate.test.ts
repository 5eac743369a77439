// The lab's metrics as Lighthouse's desktop preset would estimate them, and the report built on
// them: pure functions over what a run recorded, so the pages here are timelines written in code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateLikeLighthouse, simulatedRequestMs } from '../../src/analysis/lab/lab-estimate.ts';
import type { RawLabMetrics, LabResourceTiming } from '../../src/analysis/lab/lab-metrics.ts';
import type { LabServedRequest } from '../../src/analysis/lab/lab-network.ts';
import { labReport, LAB_NOTE } from '../../src/analysis/lab/lab-report.ts';
import type { LabResult } from '../../src/analysis/lab/lab-result.ts';
import { PROXY_NOTE, pageSpeedAnalyzer } from '../../src/analysis/analyzers/page-speed.ts';
import { performanceScore } from '../../src/analysis/lighthouse-curves.ts';

const ORIGIN = 'https://shop.example.com';
const DOCUMENT = { finalUrl: `${ORIGIN}/`, transferBytes: 20_000, timings: { dnsMs: 1, connectMs: 1, tlsMs: 1, ttfbMs: 5, totalMs: 10 }, redirects: [] };

function raw(overrides: Partial<RawLabMetrics>): RawLabMetrics {
  return { fcp: 60, lcp: 60, lcpSize: 1000, lcpElement: 'h1', lcpUrl: null, shifts: [], longTasks: [], scripts: [], resources: [], dropped: 0, domContentLoaded: 50, load: 70, now: 1500, ...overrides };
}

/** A resource the page loaded: its timing on the page's (loopback) timeline and what it cost on the wire. */
function resource(path: string, bytes: number, start: number, end: number, blocking: boolean): { timing: LabResourceTiming; served: LabServedRequest } {
  const url = `${ORIGIN}${path}`;
  return { timing: [url, start, end, blocking, blocking ? 'script' : 'img'], served: { url, finalUrl: url, transferBytes: bytes, serverMs: 2, redirects: 0 } };
}

function estimate(overrides: Partial<RawLabMetrics>, resources: ReturnType<typeof resource>[]) {
  return estimateLikeLighthouse(raw({ ...overrides, resources: resources.map((r) => r.timing) }), DOCUMENT, resources.map((r) => r.served));
}

describe("lab metrics as Lighthouse's desktop simulation estimates them", () => {
  it('a light page on a new https origin costs its connection and one round trip, and scores 100', () => {
    const result = estimate({}, []);
    // DNS 2 RTT, TCP and TLS 1 RTT each, the request 1 RTT, 5 ms of server, 20 kB in slow start (one more RTT), then the
    // main thread's time to the paint: no long task, so at most the 50 ms short tasks take
    assert.equal(result.fcpMs, 80 + 40 + 40 + 40 + 5 + 40 + 50);
    assert.equal(result.score, 100);
  });

  it("a paint the compositor held back with the main thread idle costs the page nothing; a long task before it does", () => {
    const idle = estimate({ fcp: 1800, lcp: 1800 }, []);
    assert.equal(idle.fcpMs, 80 + 40 + 40 + 40 + 5 + 40 + 50);
    const busy = estimate({ fcp: 1800, lcp: 1800, longTasks: [[100, 600]] }, []);
    assert.equal(busy.fcpMs, 80 + 40 + 40 + 40 + 5 + 40 + 600 + 50);
  });

  it('render-blocking bundles push FCP and LCP out by their transfer at 10 Mbps; the same bytes not blocking do not delay FCP', () => {
    const bundles = [0, 1, 2, 3].map((i) => resource(`/bundle-${i}.js`, 230_000, 10, 30, true));
    const blocked = estimate({ fcp: 80, lcp: 80 }, bundles);
    // 920 kB at 1.31 MB/s is about 700 ms on top of the document
    assert.ok(blocked.fcpMs !== null && blocked.fcpMs > 900, `FCP ${blocked.fcpMs}`);
    assert.ok(blocked.lcpMs !== null && blocked.lcpMs >= blocked.fcpMs);
    assert.ok((blocked.score ?? 100) < 100, `score ${blocked.score}`);
    const deferred = estimate({ fcp: 80, lcp: 80 }, bundles.map((b) => ({ ...b, timing: [b.timing[0], 90, 120, false, 'script'] as LabResourceTiming })));
    assert.ok(deferred.fcpMs !== null && deferred.fcpMs < 400, `FCP without blocking ${deferred.fcpMs}`);
  });

  it("the LCP image's bytes are on LCP's path, not FCP's", () => {
    const hero = resource('/hero.jpg', 1_500_000, 20, 60, false);
    const result = estimate({ fcp: 40, lcp: 70, lcpUrl: hero.timing[0] }, [hero]);
    assert.ok(result.fcpMs !== null && result.fcpMs < 400, `FCP ${result.fcpMs}`);
    assert.ok(result.lcpMs !== null && result.lcpMs > 1300, `1.5 MB at 10 Mbps: LCP ${result.lcpMs}`);
    // Speed Index: past FCP, short of LCP (the page painted its text long before the image)
    assert.ok(result.siMs !== null && result.siMs > (result.fcpMs ?? 0) && result.siMs < result.lcpMs, `SI ${result.siMs}`);
  });

  it('a stylesheet imported by a stylesheet waits for it: a chain costs more than the same two side by side', () => {
    const chained = estimate({ fcp: 50 }, [resource('/a.css', 60_000, 5, 10, true), resource('/b.css', 60_000, 12, 20, true)]);
    const sideBySide = estimate({ fcp: 50 }, [resource('/a.css', 60_000, 5, 10, true), resource('/b.css', 60_000, 6, 20, true)]);
    assert.ok((chained.fcpMs ?? 0) > (sideBySide.fcpMs ?? 0) + 30, `chained ${chained.fcpMs}, side by side ${sideBySide.fcpMs}`);
  });

  it('CLS and TBT are the measured ones; a page that never painted has no score', () => {
    const result = estimate({ fcp: 100, shifts: [[1200, 0.2, 'div#ad']], longTasks: [[1300, 400]] }, []);
    assert.equal(result.cls, 0.2);
    assert.equal(result.tbtMs, 350);
    assert.equal(result.score, performanceScore({ fcp: result.fcpMs, lcp: result.lcpMs, si: result.siMs, tbt: 350, cls: 0.2 }, 'desktop'));
    assert.equal(estimate({ fcp: null, lcp: null }, []).score, null);
  });

  it('a connection already open costs no setup', () => {
    const request = { secure: true, bytes: 1000, serverMs: 0, redirects: 0 };
    assert.equal(simulatedRequestMs(request, false) - simulatedRequestMs(request, true), 4 * 40);
  });
});

describe('the lab report', () => {
  const proxy = pageSpeedAnalyzer.analyze('<!doctype html><html><head><title>x</title><script src="/a.js"></script></head><body><p>x</p></body></html>', null, 'https://example.com/');

  function lab(overrides: Partial<LabResult>): LabResult {
    return {
      fcpMs: 300, lcpMs: 900, cls: 0.32, tbtMs: 420, longTasks: 2, domContentLoadedMs: 200, loadMs: 400, requests: 3, bytes: 90_000, blocked: [], failed: [],
      lcpElement: { element: 'img#hero', url: 'https://example.com/hero.jpg' }, shiftedElements: ['div#promo', 'main'], blockingScripts: [{ script: 'https://example.com/widget.js', ms: 410 }],
      estimate: { fcpMs: 700, lcpMs: 2600, siMs: 1274, tbtMs: 420, cls: 0.32, score: 27 }, durationMs: 1500, notes: [], ...overrides,
    };
  }

  it('scores performance from the lab and raises LCP, CLS and TBT findings with the value, the threshold, the cause and a fix', () => {
    const report = labReport(proxy, lab({}));
    assert.equal(report.scores.performance, 27);
    assert.equal(report.details['method'], 'lab');
    assert.ok(!report.notes.includes(PROXY_NOTE));
    assert.equal(report.notes[0], LAB_NOTE);
    const byRule = new Map(report.findings.map((f) => [f.rule, f]));
    const lcp = byRule.get('lab-lcp-slow');
    assert.equal(lcp?.severity, 'high');
    assert.equal(lcp?.evidence.url, 'https://example.com/hero.jpg');
    assert.match(lcp?.detail ?? '', /2\.6 s .*measured 900 ms.*good is at most 1\.2 s.*img#hero/);
    assert.match(lcp?.fix.change ?? '', /preload/);
    const cls = byRule.get('lab-cls-high');
    assert.equal(cls?.evidence.selector, 'div#promo');
    assert.match(cls?.detail ?? '', /div#promo, main/);
    const tbt = byRule.get('lab-tbt-high');
    assert.equal(tbt?.evidence.url, 'https://example.com/widget.js');
    assert.match(tbt?.detail ?? '', /420 ms .*widget\.js \(410 ms\)/);
    // the proxy's own finding stays beside them
    assert.ok(byRule.has('page-speed-render-blocking'));
    const checks = new Map(report.checks.map((c) => [c.rule, c]));
    assert.equal(checks.get('lab-cls-high')?.result, 'fail');
  });

  it('a good lab run passes the three checks with no finding; a run that painted nothing keeps the proxy score and says why', () => {
    const good = labReport(proxy, lab({ cls: 0.01, tbtMs: 20, estimate: { fcpMs: 400, lcpMs: 600, siMs: 400, tbtMs: 20, cls: 0.01, score: 100 } }));
    assert.equal(good.scores.performance, 100);
    assert.deepEqual(good.findings.filter((f) => f.rule.startsWith('lab-')), []);
    assert.deepEqual(good.checks.filter((c) => c.rule.startsWith('lab-')).map((c) => c.result), ['pass', 'pass', 'pass']);
    const blank = labReport(proxy, lab({ fcpMs: null, lcpMs: null, estimate: { fcpMs: null, lcpMs: null, siMs: null, tbtMs: 0, cls: 0, score: null }, notes: ['the page painted no content'] }));
    assert.equal(blank.scores.performance, proxy.scores.performance);
    assert.ok(blank.notes.some((n) => /could not measure the page \(the page painted no content\)/.test(n)));
    assert.equal(blank.checks.find((c) => c.rule === 'lab-lcp-slow')?.result, 'unknown');
  });
});
