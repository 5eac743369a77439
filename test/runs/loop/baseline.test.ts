// extractBaseline: every form the spec allows (solve/run result, verify result, get_run payload, raw
// jobReport, and each as JSON text), every refusal with its code and message, and hostile input
// (deep, huge, circular, throwing) answered with a refusal, never a throw.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASELINE_LIMITS, extractBaseline, type BaselineExpectation } from '../../../src/runs/loop/baseline.ts';
import { evaluateGate } from '../../../src/runs/loop/gate.ts';
import { compactJobReport, type JobReport } from '../../../src/runs/loop/job-report.ts';
import { loopAfterSolve, loopAfterVerify, type Loop } from '../../../src/runs/loop/loop-state.ts';
import { finding, jobReportOf, KEY, okStep, OTHER_ACCOUNT_KEY, reportOf } from './loop-fixtures.ts';

const GOAL = 'seo-audit|https://shop.test/';
const H = finding('heading-missing-h1', 'seo', 'high');

const full = jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', reportOf(['seo'], [H]))], { form: 'full' });
const report: JobReport = compactJobReport(full);
const solveLoop: Loop = loopAfterSolve(report, evaluateGate(report, report.gatePolicy));
const verifyLoop: Loop = loopAfterVerify(solveLoop, report, report, evaluateGate(report, report.gatePolicy));
const solveResult = { status: 'fail', execution: { runId: 'run_x', intentId: 'i1' }, jobReport: report, verification: { evidence: ['No high-severity finding remains'] }, loop: solveLoop };
const verifyResult = { status: 'fail', delta: { status: 'fail' }, after: report, loop: verifyLoop };
const runPayload = (result: unknown) => ({ runId: `run_${'a'.repeat(32)}`, status: 'completed', kind: 'solve_task', resultStatus: 'ok', result });
const expect: BaselineExpectation = { key: KEY, goalKey: GOAL, playbookId: 'seo-audit' };

describe('extractBaseline: the accepted forms', () => {
  const accepted: [string, unknown, 'solve' | 'verify' | 'run' | 'jobReport', Loop | undefined][] = [
    ['a solve_task / run_playbook result', solveResult, 'solve', solveLoop],
    ['a verify_task result (its after and loop)', verifyResult, 'verify', verifyLoop],
    ['a verify_task result whose after holds the jobReport', { ...verifyResult, after: { jobReport: report } }, 'verify', verifyLoop],
    ['a get_run payload of a solve', runPayload(solveResult), 'run', solveLoop],
    ['a get_run payload of a verify', runPayload(verifyResult), 'run', verifyLoop],
    ['a get_run payload whose result is JSON text', runPayload(JSON.stringify(solveResult)), 'run', solveLoop],
    ['a raw jobReport', report, 'jobReport', undefined],
    ['a raw jobReport in the full form', full, 'jobReport', undefined],
    ['a solve result as JSON text', JSON.stringify(solveResult), 'solve', solveLoop],
  ];
  for (const [name, value, source, loop] of accepted) {
    it(name, () => {
      const found = extractBaseline(value, expect);
      // A full report is read as its sealed, compact view: its raw results and passing checks are not sealed.
      assert.deepEqual(found, { ok: true, report, ...(loop ? { loop } : {}), source });
    });
  }

  it('the round and streak come from the verify loop', () => {
    const found = extractBaseline(verifyResult, expect);
    assert.ok(found.ok);
    assert.deepEqual([found.loop?.round, found.loop?.sameFindingsStreak], [1, 1]);
  });

  it('a malformed loop is dropped; the report still counts', () => {
    const found = extractBaseline({ ...solveResult, loop: { round: 'zero' } }, expect);
    assert.deepEqual(found, { ok: true, report, source: 'solve' });
  });

  it('without a goal or playbook to match, any sound report of this account is taken', () => {
    assert.equal(extractBaseline(report, { key: KEY }).ok, true);
  });
});

const PASS_INSTEAD = 'pass the whole result of solve_task, run_playbook or verify_task as you received it (or its jobReport), or a finished get_run payload';
const FORGED =
  "The baseline's jobReport signature does not match: it was changed after it was issued, or issued to another account. Pass a result this account received, unchanged, or run solve_task / run_playbook again for a fresh baseline.";

describe('extractBaseline: refusals', () => {
  const refusals: [string, unknown, BaselineExpectation, 'need_baseline' | 'invalid_baseline' | 'baseline_mismatch', string | RegExp][] = [
    ['nothing', undefined, expect, 'need_baseline', `No baseline was given: ${PASS_INSTEAD}, or a profileId with a stored run.`],
    ['null', null, expect, 'need_baseline', `No baseline was given: ${PASS_INSTEAD}, or a profileId with a stored run.`],
    ['an empty string', '', expect, 'need_baseline', `No baseline was given: ${PASS_INSTEAD}, or a profileId with a stored run.`],
    ['a suggest answer', { status: 'suggest', hint: 'say more', exampleGoals: [] }, expect, 'need_baseline', `The result passed as baseline is a "suggest" answer with no jobReport: ${PASS_INSTEAD} that ran the job.`],
    ['a result whose jobReport is null', { status: 'need_input', jobReport: null }, expect, 'need_baseline', `The result passed as baseline holds no jobReport (its status is need_input): ${PASS_INSTEAD} that ran the job.`],
    ['a run still accepted', { runId: 'run_1', status: 'accepted' }, expect, 'need_baseline', 'Run run_1 has not finished: poll get_run until its status is completed, then pass that payload.'],
    [
      'a run stored by reference',
      { runId: 'run_1', status: 'completed', dataRefId: 'ref_9', truncated: true, preview: '{"status":' },
      expect,
      'need_baseline',
      'Run run_1\'s result was stored by reference: read it with fetch_payload({dataRefId: "ref_9"}) and pass that JSON as the baseline.',
    ],
    ['a run that failed', { runId: 'run_1', status: 'error', error: 'run_failed' }, expect, 'need_baseline', 'Run run_1 has no result to compare against (it ended with run_failed): pass a finished, successful run or a solve_task / run_playbook result.'],
    ['a run inside a run', runPayload(runPayload(solveResult)), expect, 'invalid_baseline', `The get_run payload holds another run payload: ${PASS_INSTEAD}.`],
    ['a forged finding list', { ...solveResult, jobReport: { ...report, findings: [] } }, expect, 'invalid_baseline', FORGED],
    ['a forged score', { ...report, scores: { ...report.scores, seo: 100 } }, expect, 'invalid_baseline', FORGED],
    ['a report of another account', solveResult, { ...expect, key: OTHER_ACCOUNT_KEY }, 'invalid_baseline', FORGED],
    [
      'a truncated report (findings cut off)',
      (() => { const { findings: _f, ...rest } = report; return rest; })(),
      expect,
      'invalid_baseline',
      `The baseline's jobReport is not whole (not a complete jobReport at findings: Invalid input: expected array, received undefined): ${PASS_INSTEAD}, not an edited or cut copy.`,
    ],
    ['JSON text cut in half', JSON.stringify(solveResult).slice(0, 300), expect, 'invalid_baseline', `The baseline is a string but not JSON: ${PASS_INSTEAD}.`],
    ['a number', 42, expect, 'invalid_baseline', `The baseline is a number, not an object: ${PASS_INSTEAD}.`],
    ['an array', [report], expect, 'invalid_baseline', `The baseline is an array, not an object: ${PASS_INSTEAD}.`],
    ['an object of no known shape', { findings: [] }, expect, 'invalid_baseline', `The baseline is not a result this service recognises (no jobReport, after or runId): ${PASS_INSTEAD}.`],
    [
      'a report of another goal',
      solveResult,
      { ...expect, goalKey: 'seo-audit|https://other.test/' },
      'baseline_mismatch',
      'The baseline answers goal "seo-audit|https://shop.test/", not "seo-audit|https://other.test/" being verified: pass a baseline from a run of the same goal (same job and input), or run solve_task for this goal first.',
    ],
    [
      'a report of another playbook',
      verifyResult,
      { ...expect, playbookId: 'ship-check' },
      'baseline_mismatch',
      'The baseline is a run of playbook "seo-audit", not of "ship-check" being verified: pass a baseline from a run of the same job, or run it first.',
    ],
  ];
  for (const [name, value, expectation, code, message] of refusals) {
    it(`${name}: ${code}`, () => {
      const found = extractBaseline(value, expectation);
      assert.equal(found.ok, false);
      assert.equal(!found.ok && found.code, code);
      if (typeof message === 'string') assert.equal(!found.ok && found.message, message);
      else assert.match(!found.ok ? found.message : '', message);
    });
  }
});

describe('extractBaseline: hostile input is refused, never thrown', () => {
  const TOO_BIG = /^The baseline is too large or too deeply nested to read \(/;
  const deep = (levels: number): unknown => {
    let v: unknown = {};
    for (let i = 0; i < levels; i += 1) v = { jobReport: v };
    return v;
  };
  const circular: Record<string, unknown> = { runId: 'run_1', status: 'completed' };
  circular.result = { after: circular, loop: circular };
  const throwing = { get jobReport(): unknown { throw new Error('boom'); } };
  const hostileProxy = new Proxy({}, { ownKeys() { throw new Error('no keys'); }, get() { throw new Error('no get'); } });

  const hostile: [string, unknown, RegExp][] = [
    ['100,000 levels of nesting', deep(100_000), /nested deeper than 64 levels/],
    ['nesting as JSON text', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, TOO_BIG],
    ['an array of a million values', { jobReport: new Array(1_000_000).fill(0) }, /more than 200000 values/],
    ['a sparse array claiming a billion entries', { jobReport: { findings: new Array(1_000_000_000) } }, /more than 200000 values/],
    ['a circular value', circular, TOO_BIG],
    ['a string over the character bound', 'x'.repeat(BASELINE_LIMITS.chars + 1), /8000001 characters/],
    ['a getter that throws', throwing, /^The baseline could not be read: /],
    ['a proxy that throws', hostileProxy, /^The baseline could not be read: /],
    ['findings of the wrong type', { ...report, findings: 'all of them' }, /^The baseline's jobReport is not whole/],
  ];
  for (const [name, value, message] of hostile) {
    it(name, () => {
      const found = extractBaseline(value, expect);
      assert.equal(found.ok, false);
      assert.equal(!found.ok && found.code, 'invalid_baseline');
      assert.match(!found.ok ? found.message : '', message);
    });
  }
});
