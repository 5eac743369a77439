// A lab run watches a page past the second after load (the trace's tail, lab-wait.ts) only when the
// page could still change in that time: a timer or idle callback due then, an interval, an
// animation frame asked for, a running animation, a frame of another document, a worker. A still
// page is measured at the second itself. Each run here is given a tail far longer than its time
// limit: a run that waited for it would end at the limit with a note, so an empty note list is
// the proof that the tail was skipped, whatever the machine's speed; where the tail must be
// waited for, the run cannot have ended before it (a lower bound, never a timing race).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stillUntil } from '../../src/analysis/lab/lab-activity.ts';
import { runLab } from '../../src/analysis/lab/lab-run.ts';
import type { LabResult } from '../../src/analysis/lab/lab-result.ts';
import { createEngines, type Engines } from '../../src/engines/index.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

const page = (title: string, body: string, head = ''): string =>
  `<!doctype html><html lang="en"><head><title>${title}</title><style>body{margin:0;font-family:sans-serif}</style>${head}</head><body>` +
  `<div id="slot"></div><h1>${title}</h1><div style="height:600px;background:#def">The main story, at length.</div>${body}</body></html>`;

const BANNER = `() => { const ad = document.createElement('div'); ad.style.cssText = 'height:250px;background:#fc0'; ad.textContent = 'Advertisement'; document.getElementById('slot').appendChild(ad); }`;

const PAGES: Record<string, string> = {
  still: page('Still', '<p>Nothing runs here.</p>'),
  // A timer that ran before load and one cleared before it was due leave nothing in hand.
  'done-timers': page('Done', `<script>setTimeout(() => {}, 0); const t = setTimeout(${BANNER}, 1200); clearTimeout(t);</script>`),
  // Due 1.3 s after load: inside a 500 ms tail, so the run waits and sees the banner move the page.
  'due-timer': page('Due', `<script>addEventListener('load', () => setTimeout(${BANNER}, 1300));</script>`),
  interval: page('Ticking', '<p id="n">0</p><script>let n = 0; setInterval(() => { document.getElementById("n").textContent = String(++n); }, 200);</script>'),
  frames: page('Framed', '<iframe srcdoc="<p>inside</p>" width="200" height="100"></iframe>'),
  animation: page('Spinning', '<div class="spin">*</div>', '<style>.spin{width:20px;animation:turn 1s linear infinite}@keyframes turn{to{transform:rotate(360deg)}}</style>'),
  'animation-frames': page('Looping', '<script>const loop = () => requestAnimationFrame(loop); loop();</script>'),
  worker: page('Working', `<script>new Worker(URL.createObjectURL(new Blob(['onmessage = () => {}'], { type: 'text/javascript' })));</script>`),
};

describe('lab runs end at the second after load for a still page, and wait out the tail for one that is not', () => {
  let web: ExampleWeb;
  let engines: Engines;

  before(async () => {
    web = await startExampleWeb();
    web.serve(Object.fromEntries(Object.entries(PAGES).map(([name, body]) => [`https://example.com/${name}`, { body }])));
    engines = createEngines();
  });

  after(async () => {
    await engines.close();
    await web.close();
  });

  const lab = (name: string, traceTailMs: number, timeLimitMs: number): Promise<LabResult> =>
    runLab(engines.chromium, (url, options) => web.fetcher.fetch(url, { ...options, account: 'acct-lab' }), web.rewrite(`https://example.com/${name}`), { wait: { traceTailMs }, timeLimitMs });

  for (const name of ['still', 'done-timers']) {
    it(`measures the ${name} page without waiting out a tail longer than its time limit`, async () => {
      const result = await lab(name, 600_000, 30_000);
      assert.deepEqual(result.notes, [], 'not cut short at the time limit');
      assert.ok(result.loadMs !== null && result.fcpMs !== null);
      assert.equal(result.cls, 0, 'nothing moved');
    });
  }

  it('counts a page still whatever falls due after the tail, and not still for what falls due in it or came due lately', () => {
    const state = { now: 1100, lastLongTaskEnd: 0, lastShift: null };
    const until = 1250;
    assert.equal(stillUntil({ nextDue: 21_000, lastDue: 40, open: false }, state, until, 150), true, 'a timer due 20 s on does not hold the run');
    assert.equal(stillUntil({ nextDue: null, lastDue: null, open: false }, state, until, 150), true);
    assert.equal(stillUntil({ nextDue: 1200, lastDue: null, open: false }, state, until, 150), false, 'due inside the tail');
    assert.equal(stillUntil({ nextDue: null, lastDue: 1000, open: false }, state, until, 150), false, 'fell due 100 ms ago: its change may not be drawn yet');
    assert.equal(stillUntil({ nextDue: null, lastDue: null, open: true }, state, until, 150), false, 'a source the tracker cannot time');
    assert.equal(stillUntil({ nextDue: null, lastDue: null, open: false }, { ...state, lastShift: 1050 }, until, 150), false, 'shifted lately');
    assert.equal(stillUntil({ nextDue: null, lastDue: null, open: false }, { ...state, lastLongTaskEnd: 1020 }, until, 150), false, 'a long task lately');
  });

  it('waits for a timer due inside the tail and records the shift it makes', async () => {
    const result = await lab('due-timer', 500, 30_000);
    assert.deepEqual(result.notes, []);
    assert.ok(result.cls > 0.1, `the banner pushed the page down: CLS ${result.cls}`);
    assert.ok(result.loadMs !== null && result.durationMs >= result.loadMs + 1300, `watched until the timer: ${result.durationMs} ms, load at ${result.loadMs}`);
  });

  for (const name of ['interval', 'frames', 'animation', 'animation-frames', 'worker']) {
    it(`watches the ${name} page until the tail's end`, async () => {
      const tail = 1500;
      const result = await lab(name, tail, 30_000);
      assert.deepEqual(result.notes, []);
      assert.ok(result.loadMs !== null);
      // The page's clock starts after the run's: the run cannot have ended before the tail did.
      assert.ok(result.durationMs >= result.loadMs + 1000 + tail - 5, `${name}: ${result.durationMs} ms, load at ${result.loadMs}`);
    });
  }
});
