// A solve or verify judges the playbook's acceptance criteria once: the gate judges them, and the
// loop's fix ranking reads the findings the unmet ones need from that judgement (gate.ts
// acceptanceJudged) instead of judging them again; a verify's delta lists the fixes the loop
// ranked. Each answer is the one judging afresh gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateCriteria, findingsNeeded, type AcceptanceItem } from '../../../src/runs/loop/acceptance.ts';
import { buildDelta } from '../../../src/runs/loop/delta.ts';
import { rankFixes } from '../../../src/runs/loop/fix-ranking.ts';
import { acceptanceJudged, evaluateGate } from '../../../src/runs/loop/gate.ts';
import type { JobReport } from '../../../src/runs/loop/job-report.ts';
import { loopAfterSolve, loopAfterVerify, rankContext } from '../../../src/runs/loop/loop-state.ts';
import { finding, jobReportOf, okStep, passingRule, playbook, reportOf } from './loop-fixtures.ts';

const SEO = playbook('seo-audit');
const ACCEPTANCE: AcceptanceItem[] = [
  ...SEO.acceptance,
  { text: 'The page has one h1 and a title that fits', requires: { rulesPass: ['heading-multiple-h1', 'meta-title-too-short'] } },
  { text: 'No medium-severity finding remains', requires: { noSeverity: 'medium' } },
];
const H1 = finding('heading-multiple-h1', 'seo', 'medium', 'h1:nth-of-type(2)');
const TITLE = finding('meta-title-too-short', 'seo', 'low', 'title', 'content');
const ALT = finding('image-alt-missing', 'accessibility', 'high', 'img:nth-of-type(1)');
const LOW = finding('image-alt-empty-link', 'accessibility', 'low', 'a:nth-of-type(1)');

function job(findings = [H1, TITLE, ALT, LOW]): JobReport {
  const report = reportOf(['seo', 'accessibility', 'best-practices'], findings, { passing: [passingRule('seo-ok', 'seo', 10), passingRule('a11y-ok', 'accessibility', 2)] });
  return jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', report, 2)]);
}
const opts = { gatePolicy: SEO.gate, acceptance: ACCEPTANCE, ownCategory: SEO.scores[0] };

describe('acceptance criteria judged once per solve and verify', () => {
  it('the gate\'s judgement is the one judging afresh gives, and is read only for the same report and criteria', () => {
    const report = job();
    const gate = evaluateGate(report, SEO.gate, { acceptance: ACCEPTANCE });
    assert.deepEqual(gate.criteria, evaluateCriteria(report, ACCEPTANCE));
    const needed = findingsNeeded(report, ACCEPTANCE);
    assert.ok(needed.size >= 3, [...needed].join(', '));
    assert.deepEqual(acceptanceJudged(gate, report, ACCEPTANCE), needed);
    // Other criteria (even equal ones), another report, a copy of the result, a gate given none: judged afresh.
    assert.equal(acceptanceJudged(gate, report, [...ACCEPTANCE]), undefined);
    assert.equal(acceptanceJudged(gate, job(), ACCEPTANCE), undefined);
    assert.equal(acceptanceJudged({ ...gate }, report, ACCEPTANCE), undefined);
    assert.equal(acceptanceJudged(evaluateGate(report, SEO.gate), report, ACCEPTANCE), undefined);
  });

  it('solve and verify loops built on the gate\'s judgement equal those judged afresh; the criteria\'s fixes rank first', () => {
    const solved = job();
    const gate = evaluateGate(solved, SEO.gate, { acceptance: ACCEPTANCE });
    const loop = loopAfterSolve(solved, gate, opts);
    assert.deepEqual(loop, loopAfterSolve(solved, { ...gate }, opts));
    const needed = findingsNeeded(solved, ACCEPTANCE);
    const ranks = loop.remainingFixes.map((f) => needed.has(f.findingId));
    assert.ok(ranks.indexOf(false) === -1 || ranks.lastIndexOf(true) < ranks.indexOf(false), JSON.stringify(loop.remainingFixes.map((f) => f.rule)));
    assert.match(loop.remainingFixes[0]?.why ?? '', /^An unmet acceptance criterion needs it/);

    const after = job([H1, LOW]);
    const afterGate = evaluateGate(after, SEO.gate, { acceptance: ACCEPTANCE });
    const verified = loopAfterVerify(loop, solved, after, afterGate, opts);
    assert.deepEqual(verified, loopAfterVerify(loop, solved, after, { ...afterGate }, opts));
    // The verify's delta lists the loop's fixes: the same delta as ranking them again.
    const ranked = rankFixes(after, SEO.gate, rankContext(after, { acceptance: ACCEPTANCE, ownCategory: SEO.scores[0] }));
    assert.deepEqual(buildDelta(solved, after, afterGate, verified.remainingFixes, { loop: verified }), buildDelta(solved, after, afterGate, ranked, { loop: verified }));
  });
});
