import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type OutlineEntry } from '../../../src/analysis/analyzers/heading-structure.ts';
import { assertValid, checkResult, findingIds, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/products';
const page = (body: string) => `<!doctype html><html lang="en"><head><title>Shop</title></head><body>${body}</body></html>`;

const CLEAN = page('<h1>Shoes</h1><h2>Running</h2><h3>Trail</h3><h2>Walking</h2><h3>City</h3>');
const BROKEN = page(
  '<h2>Welcome</h2><section id="deals"><h4>Deals</h4><h3> </h3></section><div><h1>Shoes</h1></div><aside><h1>Also shoes</h1></aside>',
);

describe('heading-structure analyzer', () => {
  it('a clean outline fires no rule and scores 100, good', () => {
    const report = analyze(CLEAN, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
    assert.deepEqual(report.statuses, { seo: 'good', overall: 'good' });
    assert.deepEqual(
      (report.details.outline as OutlineEntry[]).map((e) => `${e.level}:${e.text}`),
      ['1:Shoes', '2:Running', '3:Trail', '2:Walking', '3:City'],
    );
    for (const rule of ['heading-missing-h1', 'heading-multiple-h1', 'heading-skipped-level', 'heading-empty']) {
      assert.equal(checkResult(report, rule), 'pass', rule);
    }
  });

  it('a broken outline fires each rule with its severity, and scores poor', () => {
    const report = analyze(BROKEN, null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['heading-empty', 'heading-multiple-h1', 'heading-skipped-level']);
    const skipped = onlyFinding(report, 'heading-skipped-level');
    assert.equal(skipped.severity, 'medium');
    assert.equal(skipped.evidence.selector, 'section#deals>h4');
    assert.equal(skipped.detail, '<h4> follows <h2>, skipping <h3>.');
    assert.equal(skipped.fix.patchType, 'html');
    assert.equal(skipped.fix.roleHint, 'edit');
    assert.match(skipped.fix.change, /to <h3>/);
    const empty = onlyFinding(report, 'heading-empty');
    assert.equal(empty.severity, 'medium');
    assert.equal(empty.evidence.selector, 'section#deals>h3:nth-heading(2)');
    const extra = onlyFinding(report, 'heading-multiple-h1');
    assert.equal(extra.severity, 'low');
    assert.equal(extra.evidence.selector, 'html>body>aside>h1');
    // weights: missing-h1 3 passes; multiple-h1 1, skipped 2, empty 2 fail: 3 / 8
    assert.deepEqual(report.scores, { seo: 38, overall: 38 });
    assert.equal(report.statuses.seo, 'poor');
  });

  it('a page without h1 fires heading-missing-h1 once, at the document', () => {
    const report = analyze(page('<h2>Welcome</h2><h3>More</h3>'), null, URL);
    assert.deepEqual(firedRules(report), ['heading-missing-h1']);
    const missing = onlyFinding(report, 'heading-missing-h1');
    assert.equal(missing.severity, 'medium');
    assert.equal(missing.detail, "The first heading is <h2>; no <h1> names the page's main topic.");
    assert.deepEqual(report.scores, { seo: 63, overall: 63 });
    assert.equal(report.statuses.seo, 'needs_improvement');
  });

  it('headings named by an image alt or aria-label are not empty', () => {
    const report = analyze(page('<h1><img src="/logo.png" alt="Acme shoes"></h1><h2 aria-label="Deals"><span></span></h2>'), null, URL);
    assert.deepEqual(report.findings, []);
  });

  it('findingIds are the same across runs and across unrelated edits to the page', () => {
    const first = findingIds(analyze(BROKEN, null, URL));
    assert.deepEqual(findingIds(analyze(BROKEN, null, URL)), first);
    const edited = BROKEN.replace('<body>', '<body><header><nav><a href="/">Home</a></nav><p>Free shipping</p></header>')
      .replace('<h4>Deals</h4>', '<p>intro</p><h4>Deals of the week</h4>');
    assert.deepEqual(findingIds(analyze(edited, null, URL)), first);
  });

  it('fixing one finding resolves its id and leaves the others', () => {
    const before = analyze(BROKEN, null, URL);
    const after = analyze(BROKEN.replace('<h4>Deals</h4>', '<h3>Deals</h3>'), null, URL);
    const gone = before.findings.filter((f) => !after.findings.some((g) => g.findingId === f.findingId));
    assert.deepEqual(gone.map((f) => f.rule), ['heading-skipped-level']);
  });
});
