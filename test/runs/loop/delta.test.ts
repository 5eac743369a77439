// buildDelta by findingId with exact score deltas, every branch of verifyStatus, and a run of verify
// rounds wired the way verify_task will wire them (gate, ranking, loop, delta).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../../src/analysis/findings.ts';
import { buildDelta, compactDelta, deltaSchema, MAX_DELTA_FINDINGS, verifyStatus, type VerifyStatusInput } from '../../../src/runs/loop/delta.ts';
import { rankFixes } from '../../../src/runs/loop/fix-ranking.ts';
import { evaluateGate } from '../../../src/runs/loop/gate.ts';
import type { JobReport } from '../../../src/runs/loop/job-report.ts';
import { compactLoop, loopAfterSolve, loopAfterVerify, type Loop } from '../../../src/runs/loop/loop-state.ts';
import { finding, ids, jobReportOf, okStep, passingRule, reportOf } from './loop-fixtures.ts';

const H = finding('heading-missing-h1', 'seo', 'high');
const M1 = finding('meta-description-missing', 'seo', 'medium', 'document', 'content');
const M2 = finding('image-alt-missing', 'accessibility', 'medium', 'img:nth-of-type(1)');
// Another rule of the same category: findings are one per rule, so a second image-alt-missing would be the same finding.
const N1 = finding('image-alt-filename', 'accessibility', 'medium', 'img:nth-of-type(2)');
const PASSING = [passingRule('seo-ok', 'seo', 10), passingRule('a11y-ok', 'accessibility', 10), passingRule('bp-ok', 'best-practices', 1)];

function job(findings: Finding[], incomplete = false): JobReport {
  // N1's rule weighs nothing, so the scores below are those of the findings that count.
  const report = reportOf(['seo', 'accessibility', 'best-practices'], findings, { passing: PASSING, weights: { 'image-alt-filename': 0 }, ...(incomplete ? { notes: ['cut short'] } : {}) });
  return jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', report)]);
}
const gateOf = (r: JobReport) => evaluateGate(r, r.gatePolicy);
const rank = (r: JobReport) => rankFixes(r, r.gatePolicy);

describe('buildDelta', () => {
  const baseline = job([H, M1, M2]);
  const after = job([H, M2, N1]);

  it('says by findingId what is new, resolved and remaining, with exact score deltas', () => {
    // baseline: seo 10/12 -> 83, accessibility 10/11 -> 91, best-practices 100, overall 91.
    // after: seo 10/11 -> 91, accessibility still one failing check -> 91, overall 94.
    assert.deepEqual([baseline.scores, after.scores], [
      { seo: 83, accessibility: 91, 'best-practices': 100, overall: 91 },
      { seo: 91, accessibility: 91, 'best-practices': 100, overall: 94 },
    ]);
    const delta = buildDelta(baseline, after, gateOf(after), rank(after));
    assert.deepEqual(deltaSchema.parse(delta), delta);
    assert.deepEqual(ids(delta.newFindings), [N1.findingId]);
    assert.deepEqual(ids(delta.resolvedFindings), [M1.findingId]);
    assert.deepEqual(ids(delta.remainingFindings), [H.findingId, M2.findingId]);
    assert.deepEqual(delta.counts, { new: 1, resolved: 1, remaining: 2 });
    assert.deepEqual(delta.scoreDeltas, { seo: 8, accessibility: 0, 'best-practices': 0, overall: 3 });
    assert.equal(delta.improved, true);
    assert.equal(delta.status, 'continue');
    assert.equal(delta.gate, 'fail');
    assert.deepEqual(delta.gateReasons, [`High-severity finding ${H.findingId} in seo remains: heading-missing-h1 title.`]);
    // N1's check weighs nothing: no gain, so it ranks after M2 of the same severity
    assert.deepEqual(ids(delta.remainingFixes), [H.findingId, M2.findingId, N1.findingId]);
    assert.deepEqual(ids(delta.nextActions), [H.findingId]);
  });

  it('compact: every list by reference, the gate reasons left to verification.evidence; the loop likewise', () => {
    const delta = buildDelta(baseline, after, gateOf(after), rank(after));
    const compact = compactDelta(delta);
    assert.equal('gateReasons' in compact, false);
    assert.deepEqual(compact.remainingFindings, delta.remainingFindings.map((f) => ({ findingId: f.findingId, rule: f.rule, severity: f.severity, title: f.title, count: f.count })));
    assert.deepEqual(compact.remainingFixes, delta.remainingFixes.map((f) => ({ rank: f.rank, findingId: f.findingId })));
    assert.deepEqual(compact.nextActions, [{ rank: 1, findingId: H.findingId }]);
    assert.deepEqual([compact.status, compact.gate, compact.counts, compact.scoreDeltas], [delta.status, delta.gate, delta.counts, delta.scoreDeltas]);
    const loop = compactLoop(loopAfterSolve(after, gateOf(after)));
    assert.equal('gateReasons' in loop, false);
    assert.equal(loop.nextActions[0]?.change, `change for ${H.rule}`, 'the fix to apply now stays whole');
    assert.deepEqual(Object.keys(loop.remainingFixes[0] ?? {}), ['findingId', 'patchType', 'acceptance', 'roleHint', 'rank', 'rule', 'category', 'severity', 'title', 'expectedScoreGain']);
  });

  it("takes nextActions from the loop when given (none after a stop)", () => {
    const loop = { stop: 'max_rounds', initiate: false, nextActions: [] } as Pick<Loop, 'stop' | 'initiate' | 'nextActions'>;
    const delta = buildDelta(baseline, after, gateOf(after), rank(after), { loop });
    assert.deepEqual([delta.status, delta.nextActions], ['stopped', []]);
  });

  it('offers no next action on a pass or on an incomplete result (which is fail, though it resolved findings)', () => {
    const passed = job([M1]);
    assert.deepEqual(buildDelta(baseline, passed, gateOf(passed), rank(passed)).nextActions, []);
    const cut = job([H], true);
    const delta = buildDelta(baseline, cut, gateOf(cut), rank(cut));
    assert.deepEqual([delta.status, delta.nextActions], ['fail', []]);
  });

  it('bounds each finding list and keeps the true counts', () => {
    const many = Array.from({ length: MAX_DELTA_FINDINGS + 50 }, (_, i) => finding('image-alt-missing', 'accessibility', 'medium', `img:nth-of-type(${i + 1})`));
    const delta = buildDelta({ findings: [], scores: {} }, { findings: many, scores: {}, incomplete: false }, { gate: 'fail', reasons: [], advisories: [] }, []);
    assert.equal(delta.newFindings.length, MAX_DELTA_FINDINGS);
    assert.deepEqual(delta.counts, { new: 250, resolved: 0, remaining: 0 });
    assert.equal(delta.improved, false);
  });
});

describe('verifyStatus: every branch', () => {
  const f = (n: number) => Array.from({ length: n }, (_, i) => finding('r', 'seo', 'low', `p${i}`));
  const cmp = (resolved: number, added: number, overall: number | null | undefined): VerifyStatusInput['comparison'] => ({
    resolvedFindings: f(resolved),
    newFindings: f(added),
    scoreDeltas: overall === undefined ? {} : { overall },
  });
  const going = { initiate: true } as const;
  const cases: [string, VerifyStatusInput, string][] = [
    ['the fresh run failed: error, even with a passing gate', { runStatus: 'error', gate: { gate: 'pass' }, comparison: cmp(1, 0, 5) }, 'error'],
    ['the fresh run was partial: partial', { runStatus: 'partial', gate: { gate: 'fail' }, comparison: cmp(1, 0, 5), loop: going }, 'partial'],
    ['the fresh run could not match the goal: suggest', { runStatus: 'suggest', gate: { gate: 'unknown' }, comparison: cmp(0, 0, undefined) }, 'suggest'],
    ['gate pass: verified', { runStatus: 'ok', gate: { gate: 'pass' }, comparison: cmp(0, 0, 0), loop: { initiate: false } }, 'verified'],
    ['loop stopped: stopped, even when it improved', { gate: { gate: 'fail' }, comparison: cmp(2, 0, 4), loop: { stop: 'same_findings', initiate: false } }, 'stopped'],
    ['more resolved than new, loop going: continue', { gate: { gate: 'fail' }, comparison: cmp(2, 1, -1), loop: going }, 'continue'],
    ['as many resolved as new and overall up: continue', { gate: { gate: 'fail' }, comparison: cmp(1, 1, 2), loop: going }, 'continue'],
    ['improved without a loop: continue', { gate: { gate: 'fail' }, comparison: cmp(1, 0, null) }, 'continue'],
    ['improved but the loop cannot go on: fail', { gate: { gate: 'fail' }, comparison: cmp(1, 0, 3), loop: { initiate: false } }, 'fail'],
    ['improved but the gate is unknown and the loop cannot go on: fail', { gate: { gate: 'unknown' }, comparison: cmp(3, 0, null), loop: { initiate: false } }, 'fail'],
    ['nothing changed: fail', { gate: { gate: 'fail' }, comparison: cmp(0, 0, 0), loop: going }, 'fail'],
    ['one fixed, two broken, overall up: fail', { gate: { gate: 'fail' }, comparison: cmp(1, 2, 5), loop: going }, 'fail'],
    ['as many resolved as new and overall unknown: fail', { gate: { gate: 'fail' }, comparison: cmp(1, 1, null), loop: going }, 'fail'],
  ];
  for (const [name, input, expected] of cases) it(name, () => assert.equal(verifyStatus(input), expected));
});

describe('verify rounds, wired as verify_task wires them', () => {
  it('continue, then fail (unchanged), then stopped on same_findings; a fresh pass is verified', () => {
    const round = (previous: { report: JobReport; loop: Loop }, findings: Finding[]) => {
      const report = job(findings);
      const gate = gateOf(report);
      const loop = loopAfterVerify(previous.loop, previous.report, report, gate);
      const delta = buildDelta(previous.report, report, gate, loop.remainingFixes, { loop, runStatus: 'ok' });
      return { report, loop, delta };
    };
    const solved = job([H, M1, M2]);
    const start = { report: solved, loop: loopAfterSolve(solved, gateOf(solved)) };
    const r1 = round(start, [H, M2]);
    const r2 = round(r1, [H, M2]);
    const r3 = round(r2, [M2, H]);
    assert.deepEqual([r1, r2, r3].map((r) => [r.delta.status, r.loop.round, r.loop.sameFindingsStreak, r.loop.stop ?? null]), [
      ['continue', 1, 0, null],
      ['fail', 2, 1, null],
      ['stopped', 3, 2, 'same_findings'],
    ]);
    const r1pass = round(start, [M2]);
    assert.deepEqual([r1pass.delta.status, r1pass.delta.gate, ids(r1pass.delta.resolvedFindings)], ['verified', 'pass', [H.findingId, M1.findingId].sort()]);
  });
});
