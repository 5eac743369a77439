// The loop object across rounds: after a solve (round 0, initiate only on a complete failing run with
// a fix), after each verify (round + 1, the same-findings streak, same_findings after exactly
// sameFindingsLimit unchanged rounds, max_rounds at exactly maxRounds, a pass ends it), and the
// validation of the limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../../src/analysis/findings.ts';
import { ServiceError } from '../../../src/core/errors.ts';
import { evaluateGate } from '../../../src/runs/loop/gate.ts';
import type { JobReport } from '../../../src/runs/loop/job-report.ts';
import { LOOP_LIMITS, loopAfterSolve, loopAfterVerify, loopSchema, RECEIPT_NOTE, resolveLoopOptions, type Loop } from '../../../src/runs/loop/loop-state.ts';
import { finding, ids, jobReportOf, okStep, passingRule, reportOf } from './loop-fixtures.ts';

const H = finding('heading-missing-h1', 'seo', 'high');
const M1 = finding('meta-description-missing', 'seo', 'medium', 'document', 'content');
const M2 = finding('image-alt-missing', 'accessibility', 'medium', 'img:nth-of-type(1)');
const N1 = finding('image-alt-missing', 'accessibility', 'medium', 'img:nth-of-type(2)');
const N2 = finding('image-alt-empty-link', 'accessibility', 'medium', 'a:nth-of-type(1)');
const PASSING = [passingRule('seo-ok', 'seo', 10), passingRule('a11y-ok', 'accessibility', 10), passingRule('bp-ok', 'best-practices', 1)];

/** A seo-audit jobReport holding these findings (one step, the headings tool). */
function job(findings: Finding[], options: { incomplete?: boolean } = {}): JobReport {
  const report = reportOf(['seo', 'accessibility', 'best-practices'], findings, { passing: PASSING, ...(options.incomplete ? { notes: ['the page was cut at 5 MB'] } : {}) });
  return jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', report, 2)]);
}
const gateOf = (r: JobReport) => evaluateGate(r, r.gatePolicy);

/** One verify round against the previous round's report and loop. */
function verify(previous: { report: JobReport; loop: Loop }, findings: Finding[], opts: Parameters<typeof loopAfterVerify>[4] = {}, extra: { incomplete?: boolean } = {}) {
  const report = job(findings, extra);
  return { report, loop: loopAfterVerify(previous.loop, previous.report, report, gateOf(report), opts) };
}

function solve(findings: Finding[], opts: Parameters<typeof loopAfterSolve>[2] = {}) {
  const report = job(findings);
  return { report, loop: loopAfterSolve(report, gateOf(report), opts) };
}

describe('loopAfterSolve', () => {
  it('a failing complete run with fixes: round 0, initiate, the rank-1 fix only in nextActions', () => {
    const { loop } = solve([H, M1, M2]);
    assert.deepEqual(loopSchema.parse(loop), loop);
    assert.equal(loop.gate, 'fail');
    assert.deepEqual(loop.gateReasons, [`High-severity finding ${H.findingId} in seo remains: heading-missing-h1 title.`]);
    assert.equal(loop.initiate, true);
    assert.equal('stop' in loop, false);
    assert.deepEqual([loop.round, loop.maxRounds, loop.sameFindingsStreak, loop.sameFindingsLimit], [0, 5, 0, 2]);
    assert.deepEqual(ids(loop.nextActions), [H.findingId]);
    assert.deepEqual(ids(loop.remainingFixes), [H.findingId, M2.findingId, M1.findingId]);
    assert.equal(loop.remainingFixesTotal, 3);
    assert.equal(loop.next, `Apply only the rank-1 fix in nextActions (${H.findingId}, html: change for heading-missing-h1), then call verify_task with baseline: {runId: execution.runId} of this answer.`);
    assert.deepEqual(loop.receipt, { round: 0, maxRounds: 5, toolsUsed: ['seo_apis_heading_structure_analyzer'], estimatedCredits: 2, note: RECEIPT_NOTE });
  });

  it('the receipt takes the caller estimate and tools when given', () => {
    const { loop } = solve([H], { estimatedCredits: 7, toolsUsed: ['a_tool', 'b_tool', 'a_tool'], maxRounds: 3 });
    assert.deepEqual(loop.receipt, { round: 0, maxRounds: 3, toolsUsed: ['a_tool', 'b_tool'], estimatedCredits: 7, note: RECEIPT_NOTE });
  });

  it('a pass: no initiate, no stop, no next action; the remaining fixes are optional', () => {
    const { loop } = solve([M1]);
    assert.equal(loop.gate, 'pass');
    assert.equal(loop.initiate, false);
    assert.equal('stop' in loop, false);
    assert.deepEqual(loop.nextActions, []);
    assert.deepEqual(ids(loop.remainingFixes), [M1.findingId]);
    assert.equal(loop.next, 'The gate passes: the job is done; the 1 remaining fixes are optional and do not block it.');
    assert.equal(solve([]).loop.next, 'The gate passes and nothing is left to fix: the job is done; do not call verify_task again.');
  });

  it('an incomplete run never initiates, even with fixes', () => {
    const report = job([H, M1], { incomplete: true });
    const loop = loopAfterSolve(report, gateOf(report));
    assert.equal(loop.gate, 'fail');
    assert.equal(loop.initiate, false);
    assert.deepEqual(loop.nextActions, []);
    assert.equal(loop.remainingFixes.length, 2);
    assert.equal(loop.next, 'The report is incomplete, so the gate cannot pass: read jobReport.notes, fix what stopped the run (an unreachable URL, a failed step, a missing input) and run the job again before fixing findings.');
  });

  it('gate unknown never initiates', () => {
    const report = job([], { incomplete: true });
    const loop = loopAfterSolve(report, { gate: 'unknown', reasons: ['Nothing could be judged.'], advisories: [] });
    assert.equal(loop.initiate, false);
    assert.match(loop.next, /^Nothing could be judged/);
  });

  it('a failing gate with no fix to apply does not initiate and says to escalate', () => {
    const report = job([]);
    const loop = loopAfterSolve(report, { gate: 'fail', reasons: ['tls is unknown (it could not be judged): the ship gate requires it good.'], advisories: [] });
    assert.equal(loop.initiate, false);
    assert.equal(loop.next, 'The gate fails but no finding carries a fix: escalate to a human. tls is unknown (it could not be judged): the ship gate requires it good.');
  });
});

describe('loopAfterVerify across rounds', () => {
  it('same_findings after exactly sameFindingsLimit (2) unchanged rounds; the first unchanged verify counts as 1', () => {
    const s = solve([H, M1]);
    const v1 = verify(s, [H, M1]);
    assert.deepEqual([v1.loop.round, v1.loop.sameFindingsStreak, v1.loop.stop, v1.loop.initiate], [1, 1, undefined, true]);
    assert.equal(v1.loop.next, `Round 1 of 5: apply only the rank-1 fix in nextActions (${H.findingId}, html: change for heading-missing-h1), then call verify_task with baseline: {runId: execution.runId} of this answer.`);
    const v2 = verify(v1, [M1, H]);
    assert.deepEqual([v2.loop.round, v2.loop.sameFindingsStreak, v2.loop.stop, v2.loop.initiate], [2, 2, 'same_findings', false]);
    assert.deepEqual(v2.loop.nextActions, []);
    assert.equal(v2.loop.remainingFixes.length, 2);
    assert.equal(
      v2.loop.next,
      `Stop and escalate to a human: the same findings remained 2 verify rounds in a row (sameFindingsLimit 2), so the fixes are not taking effect. High-severity finding ${H.findingId} in seo remains: heading-missing-h1 title.`,
    );
  });

  it('with sameFindingsLimit 3 the stop comes at the third unchanged round, not before', () => {
    const s = solve([H], { sameFindingsLimit: 3 });
    const v1 = verify(s, [H]);
    const v2 = verify(v1, [H]);
    const v3 = verify(v2, [H]);
    assert.deepEqual([v1, v2, v3].map((v) => [v.loop.sameFindingsStreak, v.loop.stop ?? null, v.loop.sameFindingsLimit]), [[1, null, 3], [2, null, 3], [3, 'same_findings', 3]]);
  });

  it('a changed set resets the streak', () => {
    const s = solve([H, M1, M2]);
    const v1 = verify(s, [H, M1, M2]);
    const v2 = verify(v1, [H, M1]);
    const v3 = verify(v2, [H, M1]);
    assert.deepEqual([v1, v2, v3].map((v) => v.loop.sameFindingsStreak), [1, 0, 1]);
    assert.equal(v3.loop.stop, undefined);
    assert.equal(v3.loop.initiate, true);
  });

  it('max_rounds at exactly maxRounds while the gate still fails', () => {
    const s = solve([H, M1], { maxRounds: 3 });
    const v1 = verify(s, [H, M2]);
    const v2 = verify(v1, [H, N1]);
    assert.deepEqual([v2.loop.round, v2.loop.stop, v2.loop.initiate], [2, undefined, true]);
    const v3 = verify(v2, [H, N2]);
    assert.deepEqual([v3.loop.round, v3.loop.sameFindingsStreak, v3.loop.stop, v3.loop.initiate, v3.loop.maxRounds], [3, 0, 'max_rounds', false, 3]);
    assert.deepEqual(v3.loop.receipt.round, 3);
    assert.equal(v3.loop.next, `Stop and escalate to a human: round 3 reached maxRounds 3 and the gate still fails. High-severity finding ${H.findingId} in seo remains: heading-missing-h1 title.`);
  });

  it('maxRounds 1 stops at the first verify', () => {
    const s = solve([H], { maxRounds: 1 });
    const v1 = verify(s, [H, M1]);
    assert.deepEqual([v1.loop.round, v1.loop.stop], [1, 'max_rounds']);
  });

  it('when both hold, same_findings is named', () => {
    const s = solve([H], { maxRounds: 2 });
    const v1 = verify(s, [H]);
    const v2 = verify(v1, [H]);
    assert.deepEqual([v2.loop.round, v2.loop.sameFindingsStreak, v2.loop.stop], [2, 2, 'same_findings']);
  });

  it('a pass ends the loop without a stop, even at maxRounds', () => {
    const s = solve([H, M1], { maxRounds: 2 });
    const v1 = verify(s, [H]);
    const v2 = verify(v1, [M1]);
    assert.deepEqual([v2.loop.gate, v2.loop.round, v2.loop.initiate, 'stop' in v2.loop], ['pass', 2, false, false]);
    assert.deepEqual(v2.loop.nextActions, []);
  });

  it('an incomplete round leaves the streak where it was and does not initiate', () => {
    const s = solve([H]);
    const v1 = verify(s, [H]);
    const v2 = verify(v1, [H], {}, { incomplete: true });
    assert.deepEqual([v2.loop.sameFindingsStreak, v2.loop.stop, v2.loop.initiate], [1, undefined, false]);
    const v3 = verify(v2, [H]);
    assert.equal(v3.loop.sameFindingsStreak, 1, 'the baseline of round 3 is incomplete: no evidence either way');
  });

  it('a verify after a stop keeps the stop until the gate passes', () => {
    const s = solve([H]);
    const stopped = verify(verify(s, [H]), [H]);
    assert.equal(stopped.loop.stop, 'same_findings');
    const again = verify(stopped, [H, M1]);
    assert.deepEqual([again.loop.round, again.loop.sameFindingsStreak, again.loop.stop, again.loop.initiate], [3, 0, 'same_findings', false]);
    const fixed = verify(again, [M1]);
    assert.deepEqual([fixed.loop.gate, 'stop' in fixed.loop, fixed.loop.initiate], ['pass', false, false]);
  });

  it('without a previous loop the verify is round 1 with the default limits', () => {
    const baseline = job([H]);
    const after = job([H]);
    const loop = loopAfterVerify(undefined, baseline, after, gateOf(after));
    assert.deepEqual([loop.round, loop.sameFindingsStreak, loop.maxRounds, loop.sameFindingsLimit], [1, 1, 5, 2]);
  });

  it('limits carry over from the previous loop; new ones from the caller win', () => {
    const s = solve([H], { maxRounds: 4, sameFindingsLimit: 3 });
    assert.deepEqual([verify(s, [H, M1]).loop.maxRounds, verify(s, [H, M1]).loop.sameFindingsLimit], [4, 3]);
    assert.equal(verify(s, [H, M1], { maxRounds: 9 }).loop.maxRounds, 9);
  });
});

describe('loop limits', () => {
  it('exports the ranges and defaults', () => {
    assert.deepEqual(LOOP_LIMITS, { maxRounds: { min: 1, max: 20, default: 5 }, sameFindingsLimit: { min: 1, max: 10, default: 2 } });
  });

  it('accepts the ends of each range and fills in defaults', () => {
    assert.deepEqual(resolveLoopOptions({}), { maxRounds: 5, sameFindingsLimit: 2 });
    assert.deepEqual(resolveLoopOptions({ maxRounds: 1, sameFindingsLimit: 10 }), { maxRounds: 1, sameFindingsLimit: 10 });
    assert.deepEqual(resolveLoopOptions({ maxRounds: 20, sameFindingsLimit: 1 }), { maxRounds: 20, sameFindingsLimit: 1 });
  });

  const bad: [Record<string, unknown>, string][] = [
    [{ maxRounds: 0 }, 'Invalid loop limits: maxRounds must be an integer from 1 to 20 (got 0)'],
    [{ maxRounds: 1000 }, 'Invalid loop limits: maxRounds must be an integer from 1 to 20 (got 1000)'],
    [{ maxRounds: 2.5 }, 'Invalid loop limits: maxRounds must be an integer from 1 to 20 (got 2.5)'],
    [{ maxRounds: '5' }, 'Invalid loop limits: maxRounds must be an integer from 1 to 20 (got "5")'],
    [{ sameFindingsLimit: 0 }, 'Invalid loop limits: sameFindingsLimit must be an integer from 1 to 10 (got 0)'],
    [{ sameFindingsLimit: 11 }, 'Invalid loop limits: sameFindingsLimit must be an integer from 1 to 10 (got 11)'],
    [
      { maxRounds: -1, sameFindingsLimit: 99 },
      'Invalid loop limits: maxRounds must be an integer from 1 to 20 (got -1); sameFindingsLimit must be an integer from 1 to 10 (got 99)',
    ],
  ];
  for (const [input, message] of bad) {
    it(`refuses ${JSON.stringify(input)} with a validation_error naming the range`, () => {
      assert.throws(
        () => resolveLoopOptions(input),
        (e: unknown) => e instanceof ServiceError && e.status === 400 && e.error === 'validation_error' && e.message === message,
      );
    });
  }

  it('loopAfterSolve refuses maxRounds 0 the same way', () => {
    assert.throws(() => solve([H], { maxRounds: 0 }), /maxRounds must be an integer from 1 to 20 \(got 0\)/);
  });
});
