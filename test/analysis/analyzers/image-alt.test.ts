import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../../src/analysis/analyzers/image-alt.ts';
import { assertValid, findingIds, firedRules, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/';
const CLEAN = `<html><body>
<img src="/shoe.jpg" alt="Red trail running shoe">
<img src="/divider.png" alt="">
<img src="/spacer.gif" role="presentation">
<a href="/"><img src="/logo.png" alt="Acme home"></a>
<a href="/cart"><img src="/cart.svg" alt=""> Cart</a>
<img src="/icon.png" aria-label="Settings">
<input type="image" src="/go.png" alt="Search">
</body></html>`;
const BROKEN = `<html><body>
<img src="/shoe.jpg">
<a href="/"><img src="/logo.png" alt=""></a>
<img src="/hero.jpg" alt="IMG_2041.jpg">
<input type="image" src="/go.png">
</body></html>`;

describe('image-alt analyzer', () => {
  it('described, decorative and labelled images fire nothing; decorative ones are counted', () => {
    const report = analyze(CLEAN, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.details, { images: 7, described: 4, decorative: 3 });
    assert.deepEqual(report.scores, { accessibility: 100, overall: 100 });
    assert.deepEqual(report.statuses, { accessibility: 'good', overall: 'good' });
  });

  it('fires each rule at its image with its severity, and scores poor', () => {
    const report = analyze(BROKEN, null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['image-alt-empty-link', 'image-alt-filename', 'image-alt-missing', 'image-alt-missing']);
    const link = onlyFinding(report, 'image-alt-empty-link');
    assert.equal(link.severity, 'high');
    assert.deepEqual(link.evidence, { selector: 'img[src="/logo.png"]', snippet: '<img src="/logo.png" alt>', line: 3 });
    assert.equal(onlyFinding(report, 'image-alt-filename').severity, 'low');
    assert.equal(onlyFinding(report, 'image-alt-filename').fix.patchType, 'content');
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'image-alt-missing').map((f) => `${f.severity} ${f.evidence.selector}`).sort(),
      ['medium img[src="/shoe.jpg"]', 'medium input[src="/go.png"]'],
    );
    assert.deepEqual(report.scores, { accessibility: 0, overall: 0 });
    assert.equal(report.statuses.accessibility, 'poor');
  });

  it('a missing alt alone scores by its weight: needs_improvement is not reached', () => {
    const report = analyze('<img src="/a.png"><img src="/b.png" alt="b">', null, URL);
    assert.deepEqual(firedRules(report), ['image-alt-missing']);
    assert.deepEqual(report.scores, { accessibility: 47, overall: 47 });
  });

  it('findingIds are stable across runs and unrelated edits, and a fix resolves only its own', () => {
    const first = findingIds(analyze(BROKEN, null, URL));
    assert.deepEqual(findingIds(analyze(BROKEN, null, URL)), first);
    const edited = BROKEN.replace('<body>', '<body><h1>Shoes</h1><p>New season</p><img src="/new.png" alt="New">');
    assert.deepEqual(findingIds(analyze(edited, null, URL)), first);
    const fixed = analyze(BROKEN.replace('<img src="/shoe.jpg">', '<img src="/shoe.jpg" alt="Shoe">'), null, URL);
    assert.deepEqual(firedRules(fixed), ['image-alt-empty-link', 'image-alt-filename', 'image-alt-missing']);
    assert.ok(fixed.findings.every((f) => first.includes(f.findingId)));
  });
});
