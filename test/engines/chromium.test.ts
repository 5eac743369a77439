// HTML to PDF on the real Chromium: content, page size and margins, no network at all, bounded
// scripts, recovery after a crash, cleanup.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '../../src/core/errors.ts';
import { ChromiumEngine } from '../../src/engines/chromium.ts';
import { findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { commandOf, descendantsOf, ENGINE_JOB_LIMIT_MS, pdfPageSize, pdfText, recordingServer, waitUntil, type RecordingServer } from './support/tools.ts';

const available = (await findProgram('/usr/bin/chromium')) !== null && (await findProgram('pdftotext')) !== null;
const MM = 72 / 25.4;

function browserProcesses(): number[] {
  return descendantsOf(process.pid).filter((pid) => /chromium/.test(commandOf(pid)));
}

/**
 * The browser's main process (not a renderer or helper), found by its DevTools pipe; the program
 * itself, not the bubblewrap processes around it, whose command lines name it too.
 */
function browserMainProcess(): number {
  const mains = browserProcesses().filter((pid) => !commandOf(pid).includes('--type='));
  const browser = mains.find((pid) => path.basename(commandOf(pid).split(' ')[0]!) === 'chromium' && commandOf(pid).includes('--remote-debugging-pipe'));
  assert.ok(browser, `the browser process among ${mains.map(commandOf).join(' | ')}`);
  return browser;
}

/**
 * Resolves once no job holds a slot: the jobs themselves have settled. A job that did not settle
 * would hold its slot until the supervisor killed the browser, which the launch count then shows.
 */
async function jobsSettled(engine: ChromiumEngine): Promise<void> {
  while ((await engine.status()).running > 0) await sleep(20);
}

async function rejectsWith(promise: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.error, code, error.message);
    assert.equal(error.status, status);
    if (message) assert.match(error.message, message);
    return true;
  });
}

/** x of the first word's left edge, in points. */
async function firstWordLeft(file: string): Promise<number> {
  const { stdout } = await promisify(execFile)('pdftotext', ['-bbox', file, '-']);
  const match = /<word xMin="([\d.]+)" yMin="([\d.]+)"/.exec(stdout);
  assert.ok(match, 'a word in the PDF');
  return Number(match[1]);
}

describe('Chromium engine', { skip: !available && 'chromium or poppler-utils not installed' }, () => {
  let dir: string;
  let engine: ChromiumEngine;
  let server: RecordingServer;
  let hits: string[];
  let base: string;

  const probeHtml = (title: string): string => `<!doctype html><html><head>
<link rel="stylesheet" href="${base}/style.css"><script src="${base}/script.js"></script>
<style>body { background: url(${base}/background.png) } @font-face { font-family: x; src: url(${base}/font.woff) }</style>
</head><body><h1>${title}</h1><img src="${base}/image.png"><img src="/relative.png">
<iframe src="${base}/frame.html"></iframe><iframe src="file:///etc/passwd"></iframe>
<script>
  fetch('${base}/fetch').catch(() => {});
  navigator.sendBeacon && navigator.sendBeacon('${base}/beacon', 'x');
  new Image().src = '${base}/pixel.gif';
  try { const x = new XMLHttpRequest(); x.open('GET', '${base}/xhr'); x.send(); } catch {}
  document.body.insertAdjacentHTML('beforeend', '<p>Script output present</p>');
</script></body></html>`;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-chromium-test-'));
    server = await recordingServer('/* nothing */');
    ({ hits, base } = server);
    engine = new ChromiumEngine({ concurrency: 2, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
  });

  after(async () => {
    await engine.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports its version and state', async () => {
    const status = await engine.status();
    assert.equal(status.name, 'chromium');
    assert.match(status.version ?? '', /^\d+\./);
    assert.equal(status.state, 'ready');
  });

  it('renders HTML to a PDF holding its text, scripts included', async () => {
    const output = path.join(dir, 'hello.pdf');
    const pdf = await engine.htmlToPdf({ html: '<h1>Hello from Chromium</h1><script>document.write("<p>Written by script</p>")</script>', outputPath: output });
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const text = await pdfText(output);
    assert.match(text, /Hello from Chromium/);
    assert.match(text, /Written by script/);
    const [w, h] = await pdfPageSize(output);
    assert.ok(Math.abs(w - 595.3) < 2 && Math.abs(h - 841.9) < 2, `A4 by default, got ${w} x ${h}`);
  });

  it('honours page size, orientation and margins', async () => {
    const html = '<style>body { margin: 0 }</style><p>Margin probe</p>';
    const a5 = path.join(dir, 'a5.pdf');
    await engine.htmlToPdf({ html, page: { pageSize: 'A5', orientation: 'landscape', margin: '30mm' }, outputPath: a5 });
    const [w, h] = await pdfPageSize(a5);
    assert.ok(Math.abs(w - 595.3) < 2 && Math.abs(h - 419.5) < 2, `A5 landscape, got ${w} x ${h}`);
    const left = await firstWordLeft(a5);
    assert.ok(Math.abs(left - 30 * MM) < 4, `left margin 30 mm (${(30 * MM).toFixed(1)} pt), text starts at ${left}`);

    const letter = path.join(dir, 'letter.pdf');
    await engine.htmlToPdf({ html, page: { pageSize: 'Letter', margin: '0.5in' }, outputPath: letter });
    const [lw, lh] = await pdfPageSize(letter);
    assert.ok(Math.abs(lw - 612) < 2 && Math.abs(lh - 792) < 2, `Letter, got ${lw} x ${lh}`);
    assert.ok(Math.abs((await firstWordLeft(letter)) - 36) < 4);
  });

  it('makes no request to a server the HTML references (img, script, css, fetch, iframe, beacon)', async () => {
    const output = path.join(dir, 'ssrf.pdf');
    await engine.htmlToPdf({ html: probeHtml('Network probe'), outputPath: output });
    const text = await pdfText(output);
    assert.match(text, /Network probe/);
    assert.match(text, /Script output present/);
    assert.doesNotMatch(text, /root:/);
    await sleep(200);
    assert.deepEqual(hits, []);
  });

  it('blocks the same requests by interception alone, without a network namespace', async () => {
    const open = new ChromiumEngine({ concurrency: 1, isolateNetwork: false, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
    try {
      const output = path.join(dir, 'ssrf-open.pdf');
      await open.htmlToPdf({ html: probeHtml('Interception probe'), outputPath: output });
      assert.match(await pdfText(output), /Interception probe/);
      await sleep(200);
      assert.deepEqual(hits, []);
    } finally {
      await open.close();
    }
  });

  it('bounds scripts by the job time limit (422 document_too_complex), then renders the next job on the same browser', async () => {
    await engine.warm();
    const launches = engine.launches;
    const started = Date.now();
    await assert.rejects(engine.htmlToPdf({ html: '<p>spin</p><script>for (;;) {}</script>', timeoutMs: 1500 }), (error) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 422);
      assert.equal(error.error, 'document_too_complex');
      return true;
    });
    // The job's own 1.5 s limit stopped it, not the engine's (no race with a busy machine's clock).
    assert.ok(Date.now() - started < ENGINE_JOB_LIMIT_MS, `stopped after ${Date.now() - started} ms`);
    await jobsSettled(engine);
    const output = path.join(dir, 'after-timeout.pdf');
    await engine.htmlToPdf({ html: '<p>Still working</p>', outputPath: output });
    assert.match(await pdfText(output), /Still working/);
    assert.equal(engine.launches, launches, 'the spinning page was torn down without restarting the browser');
  });

  it('tears down an endless script as soon as its caller leaves, keeping the browser', async () => {
    await engine.warm();
    const launches = engine.launches;
    const caller = new AbortController();
    // The caller leaves once its job runs (after the start listeners, when the job listens too).
    const off = engine.supervisor.onJobStart(() => {
      off();
      setImmediate(() => caller.abort(new Error('caller left')));
    });
    await assert.rejects(engine.htmlToPdf({ html: '<p>spin</p><script>for (;;) {}</script>', signal: caller.signal }), /caller left/);
    await jobsSettled(engine);
    const output = path.join(dir, 'after-abort.pdf');
    await engine.htmlToPdf({ html: '<p>Kept after abort</p>', outputPath: output });
    assert.match(await pdfText(output), /Kept after abort/);
    assert.equal(engine.launches, launches);
  });

  it('answers 422 page_too_large for a CSS @page size beyond 5 m a side, however it is written, and keeps the browser', async () => {
    await engine.warm();
    const launches = engine.launches;
    const huge = [
      '@page { size: 200000in 200000in }',
      '@page { size: 10in 6000mm }',
      '@media print { @page :first { size: calc(100in * 60) 10in } }',
      '@page wide { size: 600cm 10cm } body { page: wide }',
      '@supports (display: block) { @page { size: 20000pt } }',
    ];
    for (const css of huge) {
      for (const javascript of [true, false]) {
        await rejectsWith(engine.htmlToPdf({ html: `<style>${css}</style><p>huge</p>`, javascript }), 422, 'page_too_large', /at most 5000 mm/);
      }
    }
    // A page that hides its rule from the check still fails on its own: the printing failure is its 422.
    const hidden = `<style>@page { size: 200000in 200000in }</style><p>hidden</p>
<script>CSSStyleDeclaration.prototype.getPropertyValue = () => '';</script>`;
    await rejectsWith(engine.htmlToPdf({ html: hidden }), 422, 'render_failed', /at most 5000 mm/);
    // Within the limit the document's own size is kept.
    const big = path.join(dir, 'big-page.pdf');
    await engine.htmlToPdf({ html: '<style>@page { size: 190in 150in }</style><p>Big page kept</p>', outputPath: big });
    const [w, h] = await pdfPageSize(big);
    assert.ok(Math.abs(w - 190 * 72) < 3 && Math.abs(h - 150 * 72) < 3, `190 x 150 in, got ${w} x ${h} pt`);
    assert.match(await pdfText(big), /Big page kept/);
    assert.equal(engine.launches, launches, 'no failure restarted the browser');
  });

  it('a memory bomb crashes its own page only (422 document_too_complex); the job beside it finishes', async () => {
    await engine.warm();
    const launches = engine.launches;
    const bomb = engine.htmlToPdf({ html: '<p>bomb</p><script>let a = []; for (;;) a.push(new Array(1e6).fill(1));</script>' });
    const besideOutput = path.join(dir, 'beside-bomb.pdf');
    const beside = engine.htmlToPdf({ html: '<p>Converted beside a bomb</p>', outputPath: besideOutput });
    await rejectsWith(bomb, 422, 'document_too_complex', /memory/);
    await beside;
    assert.match(await pdfText(besideOutput), /Converted beside a bomb/);
    const after = path.join(dir, 'after-bomb.pdf');
    await engine.htmlToPdf({ html: '<p>After the bomb</p>', outputPath: after });
    assert.match(await pdfText(after), /After the bomb/);
    assert.equal(engine.launches, launches);
  });

  it('bounds what a page allocates outside the script heap too: the allocation is refused, the browser stays', async () => {
    const bounded = new ChromiumEngine({ concurrency: 1, processMemoryMb: 2048, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
    try {
      // 4 GB of array buffers, each one written so that its memory is really taken.
      const html = `<p>buffers</p><script>
        const held = [];
        try {
          for (let i = 0; i < 40; i++) { const b = new Uint8Array(1e8); b.fill(1); held.push(b); }
          document.body.insertAdjacentHTML('beforeend', '<p>All buffers granted</p>');
        } catch (error) {
          held.length = 0;
          document.body.insertAdjacentHTML('beforeend', '<p>Allocation refused</p>');
        }
      </script>`;
      const output = path.join(dir, 'buffers.pdf');
      await bounded.htmlToPdf({ html, outputPath: output });
      const text = await pdfText(output);
      assert.match(text, /Allocation refused/);
      assert.doesNotMatch(text, /All buffers granted/);
      assert.equal(bounded.launches, 1);
    } finally {
      await bounded.close();
    }
  });

  it('runs a job caught in a real browser death once more on the fresh browser', async () => {
    await engine.warm();
    const launches = engine.launches;
    const browser = browserMainProcess();
    // Killed when the first job is known to be running, so both jobs are in flight in the dying browser.
    const off = engine.supervisor.onJobStart(() => {
      off();
      process.kill(browser, 'SIGKILL');
    });
    const outputs = [0, 1].map((i) => path.join(dir, `retried-${i}.pdf`));
    await Promise.all(outputs.map((output, i) => engine.htmlToPdf({ html: `<p>Retried job ${i}</p>`, outputPath: output })));
    for (const [i, output] of outputs.entries()) assert.match(await pdfText(output), new RegExp(`Retried job ${i}`));
    assert.equal(engine.launches, launches + 1, 'one restart, for the one real death');
  });

  it('runs jobs in parallel in one browser', async () => {
    const outputs = [0, 1, 2, 3].map((i) => path.join(dir, `parallel-${i}.pdf`));
    await Promise.all(outputs.map((output, i) => engine.htmlToPdf({ html: `<p>Parallel job ${i}</p>`, outputPath: output })));
    for (const [i, output] of outputs.entries()) assert.match(await pdfText(output), new RegExp(`Parallel job ${i}`));
  });

  it('restarts the browser after it crashes; the next job succeeds', async () => {
    await engine.warm();
    // No wait for the death to be noticed: a job that meets the dying browser is run once more.
    process.kill(browserMainProcess(), 'SIGKILL');
    const output = path.join(dir, 'after-crash.pdf');
    await engine.htmlToPdf({ html: '<p>Back after a crash</p>', outputPath: output });
    assert.match(await pdfText(output), /Back after a crash/);
  });

  it('leaves no browser process after close', async () => {
    const other = new ChromiumEngine({ concurrency: 1, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
    await other.htmlToPdf({ html: '<p>x</p>' });
    const before = browserProcesses().length;
    await other.close();
    // A killed process is gone once reaped: wait for that state, not for a guessed delay.
    await waitUntil(() => browserProcesses().length < before, 'the closed browser\'s processes are gone');
    await engine.close();
    await waitUntil(() => browserProcesses().length === 0, `no browser process is left (left: ${browserProcesses().join(', ')})`);
    engine = new ChromiumEngine({ jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger }); // for after()
  });
});
