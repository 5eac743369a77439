// rankFixes: a worked example on a real page (three analyzers' findings, merged), each tie-break
// rule on its own, the ship tier, and the exact shape of a fix item.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze as analyzeHeadings } from '../../../src/analysis/analyzers/heading-structure.ts';
import { analyze as analyzeImageAlt } from '../../../src/analysis/analyzers/image-alt.ts';
import { analyze as analyzeMeta } from '../../../src/analysis/analyzers/meta-tags.ts';
import type { Finding } from '../../../src/analysis/findings.ts';
import { EFFORT_BY_PATCH_TYPE, rankFixes } from '../../../src/runs/loop/fix-ranking.ts';
import { finding, jobReportOf, okStep, passingRule, reportOf } from './loop-fixtures.ts';

const URL = 'https://shop.test/';
const PAGE = '<!doctype html><html><head><title>Hi</title></head><body><h3>x</h3><img src="a.png"><img src="b.png"></body></html>';

describe('rankFixes: worked example (seo-audit on a bare page)', () => {
  const report = jobReportOf('seo-audit', [
    okStep('meta-tags', 'seo_apis_meta_tags_analyzer', analyzeMeta(PAGE, null, URL)),
    okStep('headings', 'seo_apis_heading_structure_analyzer', analyzeHeadings(PAGE, null, URL)),
    okStep('image-alt', 'seo_apis_image_alt_audit', analyzeImageAlt(PAGE, null, URL)),
  ]);
  const ranked = rankFixes(report, { policy: 'default' });

  it('orders by severity, then estimated gain, then effort, then findingId', () => {
    // One finding per rule (analysis/finding-groups.ts): the two images are one image-alt-missing
    // finding, count 2, and the four og tags one meta-og-missing. Gains from the merged check
    // weights: accessibility 25 judged weight (image-alt-missing 10 of it, lang 3), best-practices
    // 6.5 (viewport 2). SEO is scored per Lighthouse audit (seo-audits.ts): the meta description is
    // one of six audits judged, is-crawlable among them at 93/23 (+10.4 with the rest as they are);
    // the h1, the canonical link and the title length are rules Lighthouse does not score, so each
    // lifts it little.
    assert.deepEqual(
      ranked.map((f) => [f.rank, f.rule, f.expectedScoreGain, f.severity]),
      [
        [1, 'image-alt-missing', 40, 'medium'],
        [2, 'meta-viewport-missing', 30.8, 'medium'],
        [3, 'meta-lang-missing', 12, 'medium'],
        [4, 'meta-description-missing', 10.4, 'medium'],
        [5, 'heading-missing-h1', 2.7, 'medium'],
        [6, 'meta-charset-missing', 15.4, 'low'],
        [7, 'meta-og-missing', 15.4, 'low'],
        [8, 'meta-canonical-missing', 0.9, 'low'],
        [9, 'meta-title-too-short', 0.9, 'low'],
        [10, 'meta-twitter-card-missing', 7.7, 'info'],
      ],
    );
    const alt = report.findings.find((f) => f.rule === 'image-alt-missing');
    assert.equal(alt?.count, 2, 'two images, one finding');
  });

  it('a fix item carries the spec fields at its top level, and why it ranks there', () => {
    const top = ranked[0];
    const source = report.findings.find((f) => f.rule === 'image-alt-missing') as Finding;
    assert.deepEqual(top, {
      findingId: source.findingId,
      patchType: 'html',
      acceptance: source.fix.acceptance,
      roleHint: source.fix.roleHint,
      change: source.fix.change,
      rank: 1,
      rule: 'image-alt-missing',
      category: 'accessibility',
      severity: 'medium',
      title: source.title,
      evidence: source.evidence,
      expectedScoreGain: 40,
      effort: 'medium',
      why: 'Ranked by medium severity, then an estimated +40 points on accessibility, then medium effort (html).',
    });
    assert.equal(ranked.at(-1)?.why, 'Ranked by info only (it never blocks the gate), then an estimated +7.7 points on best-practices, then medium effort (html).');
  });
});

describe('rankFixes: each rule', () => {
  const order = (findings: Finding[], extra: Parameters<typeof reportOf>[2] = {}, policy: 'default' | 'ship' = 'default') =>
    rankFixes(reportOf([...new Set(findings.map((f) => f.category))], findings, extra), { policy }).map((f) => f.findingId);

  it('severity beats a larger gain', () => {
    const low = finding('meta-charset-missing', 'best-practices', 'low');
    const medium = finding('meta-og-missing', 'seo', 'medium');
    assert.deepEqual(order([low, medium], { weights: { 'meta-charset-missing': 10 }, passing: [passingRule('seo-other', 'seo', 50)] }), [medium.findingId, low.findingId]);
  });

  it('at equal severity the larger gain wins over smaller effort', () => {
    const header = finding('security-hsts', 'seo', 'medium', 'header:strict-transport-security', 'http-header');
    const html = finding('heading-missing-h1', 'seo', 'medium', 'document', 'html');
    const ranked = order([header, html], { weights: { 'security-hsts': 1, 'heading-missing-h1': 3 } });
    assert.deepEqual(ranked, [html.findingId, header.findingId]);
  });

  it('at equal gain the smaller effort wins: http-header, then html, then investigate', () => {
    const investigate = finding('rule-c', 'seo', 'medium', 'document', 'investigate');
    const html = finding('rule-b', 'seo', 'medium', 'document', 'html');
    const header = finding('rule-a-late', 'seo', 'medium', 'document', 'http-header');
    assert.deepEqual(order([investigate, html, header]), [header.findingId, html.findingId, investigate.findingId]);
  });

  it('everything equal, findingId decides', () => {
    const a = finding('same-rule-a', 'seo', 'low', 'img:nth-of-type(1)');
    const b = finding('same-rule-b', 'seo', 'low', 'img:nth-of-type(2)');
    const expected = [a.findingId, b.findingId].sort();
    assert.deepEqual(order([a, b]), expected);
    assert.deepEqual(order([b, a]), expected);
  });

  it('ship: a finding in a required category outranks an equal-severity one elsewhere with a larger gain; not under default', () => {
    const headers = finding('security-referrer-policy', 'security-headers', 'medium', 'header:referrer-policy', 'http-header');
    const seo = finding('heading-missing-h1', 'seo', 'medium');
    const extra = { weights: { 'heading-missing-h1': 5 }, passing: [passingRule('security-other', 'security-headers', 9)] };
    assert.deepEqual(order([seo, headers], extra, 'ship'), [headers.findingId, seo.findingId]);
    assert.deepEqual(order([seo, headers], extra, 'default'), [seo.findingId, headers.findingId]);
    const shipRanked = rankFixes(reportOf(['security-headers', 'seo'], [seo, headers], extra), { policy: 'ship' });
    assert.equal(shipRanked[0]?.why, 'Ranked by medium severity, in security-headers, which the ship gate requires good, then an estimated +10 points on security-headers, then small effort (http-header).');
  });

  it('info findings come last, with a gain of 0 when no check stands behind them', () => {
    const info = finding('meta-twitter-card-missing', 'best-practices', 'info');
    const low = finding('meta-canonical-missing', 'seo', 'low');
    const ranked = rankFixes({ findings: [info, low], checks: [] }, { policy: 'default' });
    assert.deepEqual(ranked.map((f) => [f.findingId, f.expectedScoreGain]), [[low.findingId, 0], [info.findingId, 0]]);
  });

  it('no findings, no fixes', () => {
    assert.deepEqual(rankFixes({ findings: [] }, { policy: 'ship' }), []);
  });

  it('the effort table', () => {
    assert.deepEqual(EFFORT_BY_PATCH_TYPE, { 'http-header': 'small', config: 'small', html: 'medium', content: 'medium', file: 'large', investigate: 'large' });
  });
});
