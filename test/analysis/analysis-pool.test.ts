// The analysis workers: the same report as on the main thread, a page that outgrows a worker's
// heap is that call's 422 and the pool goes on, and a call that ends takes its analysis with it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AnalysisPool } from '../../src/analysis/analysis-pool.ts';
import { analyzeFetched } from '../../src/analysis/page-analysis.ts';
import { headingStructureAnalyzer } from '../../src/analysis/analyzers/heading-structure.ts';
import { imageAltAnalyzer } from '../../src/analysis/analyzers/image-alt.ts';
import { metaTagsAnalyzer } from '../../src/analysis/analyzers/meta-tags.ts';
import { isServiceError } from '../../src/core/errors.ts';
import { runAsJobOwner } from '../../src/engines/job-owner.ts';

const URL = 'https://shop.test/';
const PAGE = '<!doctype html><html><head><title>Shop</title></head><body><h1>Shoes</h1><h3>Deals</h3><img src="/a.png"></body></html>';

describe('analysis pool', () => {
  const pools: AnalysisPool[] = [];
  const pool = (options: ConstructorParameters<typeof AnalysisPool>[0] = {}) => {
    const p = new AnalysisPool(options);
    pools.push(p);
    return p;
  };
  after(() => {
    for (const p of pools) p.close();
  });

  it('answers on a worker exactly what the main thread computes', async () => {
    const analyzers = [headingStructureAnalyzer, imageAltAnalyzer, metaTagsAnalyzer];
    const onWorker = await pool().run(analyzers, PAGE, null, URL);
    assert.deepEqual(onWorker, analyzeFetched(analyzers, PAGE, null, URL));
    assert.ok(onWorker.findings.some((f) => f.rule === 'image-alt-missing'));
  });

  it("calls of one job share a parse by its key, and each still answers its own page's report", async () => {
    const one = pool({ workers: 1 });
    const steps = [[metaTagsAnalyzer], [headingStructureAnalyzer], [imageAltAnalyzer]];
    const other = PAGE.replace('<h3>Deals</h3>', '<h2>Deals</h2>').replace('<img src="/a.png">', '<img src="/a.png" alt="Red shoes">');
    for (const step of steps) assert.deepEqual(await one.run(step, PAGE, null, URL, undefined, 'job-1'), analyzeFetched(step, PAGE, null, URL));
    // The same key on another page, or the same page at another address, is parsed afresh.
    for (const step of steps) assert.deepEqual(await one.run(step, other, null, URL, undefined, 'job-1'), analyzeFetched(step, other, null, URL));
    for (const step of steps) assert.deepEqual(await one.run(step, other, null, 'https://other.test/x/', undefined, 'job-1'), analyzeFetched(step, other, null, 'https://other.test/x/'));
    // Another job's call on the first page is its own page's report too.
    assert.deepEqual(await one.run([imageAltAnalyzer], PAGE, null, URL, undefined, 'job-2'), analyzeFetched([imageAltAnalyzer], PAGE, null, URL));
    assert.ok((await one.run([imageAltAnalyzer], PAGE, null, URL, undefined, 'job-2')).findings.some((f) => f.rule === 'image-alt-missing'));
    assert.ok(!(await one.run([imageAltAnalyzer], other, null, URL, undefined, 'job-2')).findings.some((f) => f.rule === 'image-alt-missing'));
  });

  it('answers 422 document_too_complex for a page that outgrows the worker heap, then analyses the next page', async () => {
    const small = pool({ workers: 1, oldSpaceMb: 24 });
    // 100,000 small elements: a 2.5 MB string that fits the heap, a tree of far more than 24 MB.
    const huge = `<!doctype html><body>${'<p class="c" id="x">t</p>'.repeat(100_000)}</body>`;
    await assert.rejects(small.run([headingStructureAnalyzer], huge, null, URL), (error: unknown) => {
      assert.ok(isServiceError(error));
      assert.equal(error.status, 422);
      assert.equal(error.error, 'document_too_complex');
      return true;
    });
    const next = await small.run([headingStructureAnalyzer], PAGE, null, URL);
    assert.deepEqual(next.findings.map((f) => f.rule), ['heading-skipped-level']);
  });

  it("serves accounts in turn: another account's page runs next, not after a flooder's queue", async () => {
    const one = pool({ workers: 1 });
    const order: string[] = [];
    const analyse = (account: string, label: string) =>
      runAsJobOwner({ id: account, maxJobs: 8 }, () => one.run([headingStructureAnalyzer], PAGE, null, URL)).then(() => order.push(label));
    // The flooder's five pages are queued first; the other account's one page arrives last.
    const flood = [1, 2, 3, 4, 5].map((n) => analyse('flooder', `flooder-${n}`));
    const other = analyse('other', 'other');
    await Promise.all([...flood, other]);
    // One thread finishes jobs in the order it starts them: the other account's page comes second.
    assert.deepEqual(order, ['flooder-1', 'other', 'flooder-2', 'flooder-3', 'flooder-4', 'flooder-5']);
  });

  it("drops a waiting or running analysis whose call ended, with the call's reason", async () => {
    const one = pool({ workers: 1 });
    const big = `<!doctype html><body>${'<div><p>x</p></div>'.repeat(100_000)}</body>`;
    const running = new AbortController();
    const waiting = new AbortController();
    const first = one.run([headingStructureAnalyzer], big, null, URL, running.signal);
    const second = one.run([headingStructureAnalyzer], PAGE, null, URL, waiting.signal);
    waiting.abort(new Error('caller left'));
    await assert.rejects(second, /caller left/);
    running.abort(new Error('time limit'));
    await assert.rejects(first, /time limit/);
    // The pool replaced the stopped worker and serves the next call.
    assert.equal((await one.run([headingStructureAnalyzer], PAGE, null, URL)).findings.length, 1);
  });
});
