import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../../src/analysis/analyzers/image-alt.ts';
import { MAX_LISTED_INSTANCES } from '../../../src/analysis/findings.ts';
import { ruleFindingId } from '../../../src/analysis/findings.ts';
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
    assert.deepEqual(firedRules(report), ['image-alt-empty-link', 'image-alt-filename', 'image-alt-missing']);
    const link = onlyFinding(report, 'image-alt-empty-link');
    assert.equal(link.severity, 'high');
    assert.deepEqual(link.evidence, { selector: 'img[src="/logo.png"]', snippet: '<img src="/logo.png" alt>', line: 3 });
    assert.equal(onlyFinding(report, 'image-alt-filename').severity, 'low');
    assert.equal(onlyFinding(report, 'image-alt-filename').fix.patchType, 'content');
    // the two images without alt are one finding, with each listed in page order
    const missing = onlyFinding(report, 'image-alt-missing');
    assert.equal(missing.severity, 'medium');
    assert.equal(missing.count, 2);
    assert.equal(missing.title, '2 images have no alt attribute');
    assert.deepEqual(missing.instances?.map((e) => e.selector), ['img[src="/shoe.jpg"]', 'input[src="/go.png"]']);
    assert.equal(missing.fix.acceptance, 'No image without an alt attribute (or an aria-label) remains on the page.');
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
    // one of two images fixed: the rule's finding stays, with the same id and a count of 1
    assert.deepEqual(findingIds(fixed), first);
    assert.equal(onlyFinding(fixed, 'image-alt-missing').count, 1);
    const allFixed = analyze(BROKEN.replace('<img src="/shoe.jpg">', '<img src="/shoe.jpg" alt="Shoe">').replace('<input type="image" src="/go.png">', ''), null, URL);
    assert.deepEqual(firedRules(allFixed), ['image-alt-empty-link', 'image-alt-filename']);
  });

  it('120 images without alt are one finding: count 120, the first 20 listed, one fix, a complete report', () => {
    const html = `<html><body>\n${Array.from({ length: 120 }, (_, i) => `<img src="/p/${i + 1}.jpg">`).join('\n')}\n</body></html>`;
    const report = analyze(html, null, URL);
    assertValid(report);
    assert.equal(report.incomplete, false);
    assert.deepEqual(report.notes, []);
    assert.equal(report.findings.length, 1);
    const missing = onlyFinding(report, 'image-alt-missing');
    assert.equal(missing.findingId, ruleFindingId('image-alt-missing', 'accessibility'));
    assert.equal(missing.count, 120);
    assert.equal(missing.title, '120 images have no alt attribute');
    assert.match(missing.detail, /^120 instances on the page\. The first 20 are listed in instances/);
    assert.equal(missing.instances?.length, MAX_LISTED_INSTANCES);
    assert.deepEqual(missing.instances?.[0], { selector: 'img[src="/p/1.jpg"]', snippet: '<img src="/p/1.jpg">', line: 2 });
    assert.deepEqual(missing.instances?.[19], { selector: 'img[src="/p/20.jpg"]', snippet: '<img src="/p/20.jpg">', line: 21 });
    assert.match(missing.fix.change, /^Add an alt attribute to each of the 120 images without one: .*The first 20 are listed in instances/);
    assert.match(missing.fix.change, /For example: Add alt="…" describing the image at img\[src="\/p\/1\.jpg"\]/);
    assert.equal(missing.fix.acceptance, 'No image without an alt attribute (or an aria-label) remains on the page.');
    assert.ok(JSON.stringify(report).length < 12_000, `the report is ${JSON.stringify(report).length} characters`);
    // the same id with 119 left: the loop sees the rule remaining, not a new finding
    const fewer = analyze(html.replace('<img src="/p/1.jpg">', '<img src="/p/1.jpg" alt="One">'), null, URL);
    assert.deepEqual(findingIds(fewer), [missing.findingId]);
    assert.equal(onlyFinding(fewer, 'image-alt-missing').count, 119);
  });
});
