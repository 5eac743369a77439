// Lab runs measure every time: a page that paints has FCP and LCP on every run (a paint the
// compositor delivers late is waited for, not read as "no paint"), and a banner that pushes the
// page down a second after load is in every run's CLS, as it is in Lighthouse's (the run waits the
// way Lighthouse's gather does: 1 s after load, network and CPU quiet). Runs are sequential on the
// one warm browser, as calls come; nothing here depends on how fast the machine is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runLab } from '../../src/analysis/lab/lab-run.ts';
import { createEngines, type Engines } from '../../src/engines/index.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

const HERO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="360"><rect width="800" height="360" fill="#2a6"/></svg>';

const PAINTS = `<!doctype html><html lang="en"><head><title>Trail shoes</title><style>body{margin:0;font-family:sans-serif}</style></head><body>
<h1>Trail shoes for every season</h1><img src="https://cdn.example.com/hero.svg" width="800" height="360" alt="A green trail">
<p>Grippy soles, light uppers, a drop of 6 mm.</p></body></html>`;

// The banner comes a second after load, with no request of its own: only the wait's pause after
// load can see it, as Lighthouse's does.
const LATE_BANNER = `<!doctype html><html lang="en"><head><title>News</title><style>body{margin:0;font-family:sans-serif}</style></head><body>
<div id="slot"></div><h1>Today's news</h1><div style="height:600px;background:#def">The main story, at length.</div>
<script>addEventListener('load', () => setTimeout(() => {
  const ad = document.createElement('div');
  ad.style.cssText = 'height:250px;background:#fc0';
  ad.textContent = 'Advertisement';
  document.getElementById('slot').appendChild(ad);
}, 1000));</script></body></html>`;

// A ticker that never lets the CPU go quiet: a 120 ms task every half second, for ever.
const TICKER = `<!doctype html><html lang="en"><head><title>Prices</title></head><body><h1>Live prices</h1><p id="p">0</p>
<script>setInterval(() => { const end = performance.now() + 120; while (performance.now() < end) {} document.getElementById('p').textContent = String(Math.random()); }, 500);</script></body></html>`;

describe('lab runs that measure every time', () => {
  let web: ExampleWeb;
  let engines: Engines;

  before(async () => {
    web = await startExampleWeb();
    web.serve({
      'https://example.com/paints': { body: PAINTS },
      'https://example.com/late-banner': { body: LATE_BANNER },
      'https://example.com/ticker': { body: TICKER },
      'https://cdn.example.com/hero.svg': { headers: { 'content-type': 'image/svg+xml' }, body: HERO_SVG },
    });
    engines = createEngines();
  });

  after(async () => {
    await engines.close();
    await web.close();
  });

  const lab = (path: string) => runLab(engines.chromium, (url, options) => web.fetcher.fetch(url, { ...options, account: 'acct-lab' }), web.rewrite(`https://example.com${path}`));

  it('measures FCP and LCP on 20 runs out of 20 of a page that paints', async () => {
    const unpainted: string[] = [];
    for (let run = 1; run <= 20; run++) {
      const result = await lab('/paints');
      if (result.fcpMs === null || result.lcpMs === null || result.notes.length > 0) unpainted.push(`run ${run}: FCP ${result.fcpMs}, LCP ${result.lcpMs}, notes ${JSON.stringify(result.notes)}`);
      else {
        assert.ok(result.lcpMs >= result.fcpMs, `run ${run}: LCP ${result.lcpMs} not before FCP ${result.fcpMs}`);
        assert.equal(result.lcpElement?.url, web.rewrite('https://cdn.example.com/hero.svg'), `run ${run}: the hero image is the LCP element`);
      }
    }
    assert.deepEqual(unpainted, []);
  });

  it('sees the layout shift of a banner inserted a second after load on every run', async () => {
    for (let run = 1; run <= 4; run++) {
      const result = await lab('/late-banner');
      assert.ok(result.cls > 0.1, `run ${run}: the late banner pushes the page down: CLS ${result.cls}`);
      assert.equal(result.estimate?.cls, result.cls);
      assert.ok(result.shiftedElements.length > 0, `run ${run}: the moved elements are named`);
      assert.deepEqual(result.notes, []);
    }
  });

  it('measures a page whose CPU never goes quiet once it has loaded, painted and its network is quiet, not at the time limit', async () => {
    const result = await runLab(engines.chromium, (url, options) => web.fetcher.fetch(url, { ...options, account: 'acct-lab' }), web.rewrite('https://example.com/ticker'), { timeLimitMs: 60_000 });
    assert.deepEqual(result.notes, [], 'no "still busy at the time limit" note');
    assert.ok(result.fcpMs !== null);
    assert.ok(result.longTasks >= 1, `the ticker's tasks are long tasks: ${result.longTasks}`);
  });
});
