// Every gate rule, table-driven, with the exact gate value, reasons and advisories.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Category, ScoreKey, Status } from '../../../src/analysis/findings.ts';
import { evaluateGate, type GateInput, type GateOptions, type GatePolicy, type GateResult } from '../../../src/runs/loop/gate.ts';
import { finding, jobReportOf, okStep, playbook, reportOf } from './loop-fixtures.ts';

const DEFAULT: GatePolicy = { policy: 'default' };
const SHIP: GatePolicy = playbook('ship-check').gate;
const SEO_CATEGORIES: Category[] = ['seo', 'accessibility'];
const SHIP_CATEGORIES: Category[] = ['tls', 'security-headers', 'http-status', 'mixed-content', 'performance', 'best-practices'];

const high = finding('tls-not-https', 'tls', 'high');
const highPerf = finding('page-speed-ttfb', 'performance', 'high');
const medium = finding('heading-missing-h1', 'seo', 'medium');

function input(categories: Category[], statuses: Partial<Record<ScoreKey, Status>>, scores: Partial<Record<ScoreKey, number>>, extra: Partial<GateInput> = {}): GateInput {
  return { categories, statuses, scores, findings: [], incomplete: false, ...extra };
}

const GOOD_SHIP = { tls: 'good', 'security-headers': 'good', 'http-status': 'good', 'mixed-content': 'good', performance: 'good', 'best-practices': 'good' } as const;
const GOOD_SHIP_SCORES = { tls: 100, 'security-headers': 95, 'http-status': 100, 'mixed-content': 100, performance: 92, 'best-practices': 90 };
const INCOMPLETE = 'The report is incomplete (a step failed or could not judge everything; see its notes): an incomplete report never passes the gate.';
const NOTHING = 'Nothing could be judged: every scored category is unknown and no finding was reported, so there is nothing to fix yet.';

const cases: [string, GateInput, GatePolicy, GateOptions, GateResult][] = [
  ['default: all good, no finding', input(SEO_CATEGORIES, { seo: 'good', accessibility: 'good' }, { seo: 95, accessibility: 100 }), DEFAULT, {}, { gate: 'pass', reasons: [], advisories: [] }],
  [
    'default: needs_improvement and a medium finding do not fail',
    input(SEO_CATEGORIES, { seo: 'needs_improvement', accessibility: 'good' }, { seo: 70, accessibility: 100 }, { findings: [medium] }),
    DEFAULT, {}, { gate: 'pass', reasons: [], advisories: [] },
  ],
  [
    'default: a high-severity finding fails',
    input(SEO_CATEGORIES, { seo: 'good', accessibility: 'good' }, { seo: 95, accessibility: 100 }, { findings: [high, medium] }),
    DEFAULT, {}, { gate: 'fail', reasons: [`High-severity finding ${high.findingId} in tls remains: tls-not-https title.`], advisories: [] },
  ],
  [
    'default: a poor score fails',
    input(SEO_CATEGORIES, { seo: 'poor', accessibility: 'good' }, { seo: 40, accessibility: 100 }),
    DEFAULT, {}, { gate: 'fail', reasons: ['seo scores poor (40/100), below 50.'], advisories: [] },
  ],
  [
    'default: incomplete with something judged fails, saying why',
    input(SEO_CATEGORIES, { seo: 'good', accessibility: 'unknown' }, { seo: 95 }, { incomplete: true }),
    DEFAULT, {}, { gate: 'fail', reasons: [INCOMPLETE], advisories: [] },
  ],
  [
    'default: incomplete with nothing judged is unknown',
    input(SEO_CATEGORIES, { seo: 'unknown', accessibility: 'unknown' }, {}, { incomplete: true }),
    DEFAULT, {}, { gate: 'unknown', reasons: [NOTHING, INCOMPLETE], advisories: [] },
  ],
  [
    'default: complete but nothing judged is unknown',
    input(SEO_CATEGORIES, { seo: 'unknown', accessibility: 'unknown' }, {}),
    DEFAULT, {}, { gate: 'unknown', reasons: [NOTHING], advisories: [] },
  ],
  [
    'default: a partial run never passes',
    input(SEO_CATEGORIES, { seo: 'good', accessibility: 'good' }, { seo: 95, accessibility: 100 }),
    DEFAULT, { partial: true }, { gate: 'fail', reasons: ['The run was partial (a step did not finish): a partial run never passes the gate.'], advisories: [] },
  ],
  ['a workflow with no scored category passes when complete', input([], {}, {}), DEFAULT, {}, { gate: 'pass', reasons: [], advisories: [] }],
  ['a workflow with no scored category fails when a step failed', input([], {}, {}, { incomplete: true }), DEFAULT, {}, { gate: 'fail', reasons: [INCOMPLETE], advisories: [] }],
  [
    'ship: all required good, performance needs_improvement (advisory) passes',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, performance: 'needs_improvement' }, { ...GOOD_SHIP_SCORES, performance: 70 }),
    SHIP, {}, { gate: 'pass', reasons: [], advisories: ['performance is needs_improvement (70/100): advisory, it does not fail the gate.'] },
  ],
  [
    'ship: security-headers needs_improvement fails',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, 'security-headers': 'needs_improvement' }, { ...GOOD_SHIP_SCORES, 'security-headers': 75 }),
    SHIP, {}, { gate: 'fail', reasons: ['security-headers is needs_improvement (75/100): the ship gate requires it good (90 or more).'], advisories: [] },
  ],
  [
    'default: the same report passes (needs_improvement fails only a ship gate)',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, 'security-headers': 'needs_improvement' }, { ...GOOD_SHIP_SCORES, 'security-headers': 75 }),
    DEFAULT, {}, { gate: 'pass', reasons: [], advisories: [] },
  ],
  [
    'ship: tls unknown fails',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, tls: 'unknown' }, { ...GOOD_SHIP_SCORES, tls: undefined } as Partial<Record<ScoreKey, number>>),
    SHIP, {}, { gate: 'fail', reasons: ['tls is unknown (it could not be judged): the ship gate requires it good.'], advisories: [] },
  ],
  [
    'ship: a required category the report does not cover counts as unknown',
    input(['tls', 'security-headers', 'http-status'], { tls: 'good', 'security-headers': 'good', 'http-status': 'good' }, { tls: 100, 'security-headers': 100, 'http-status': 100 }),
    SHIP, {}, { gate: 'fail', reasons: ['mixed-content is unknown (it could not be judged): the ship gate requires it good.'], advisories: [] },
  ],
  [
    'ship: the advisory performance category still fails when poor',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, performance: 'poor' }, { ...GOOD_SHIP_SCORES, performance: 30 }),
    SHIP, {}, { gate: 'fail', reasons: ['performance scores poor (30/100), below 50 (an advisory category still fails the gate when poor).'], advisories: [] },
  ],
  [
    'ship: performance needs_improvement with a high-severity performance finding fails on the finding',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, performance: 'needs_improvement' }, { ...GOOD_SHIP_SCORES, performance: 60 }, { findings: [highPerf] }),
    SHIP, {},
    {
      gate: 'fail',
      reasons: [`High-severity finding ${highPerf.findingId} in performance remains: page-speed-ttfb title.`],
      advisories: ['performance is needs_improvement (60/100): advisory, it does not fail the gate.'],
    },
  ],
  [
    'ship: an unreachable page (incomplete, all unknown) is unknown, with every reason',
    input(SHIP_CATEGORIES, { tls: 'unknown', 'security-headers': 'unknown', 'http-status': 'unknown', 'mixed-content': 'unknown', performance: 'unknown', 'best-practices': 'unknown' }, {}, { incomplete: true }),
    SHIP, {}, { gate: 'unknown', reasons: [NOTHING, INCOMPLETE], advisories: [] },
  ],
  [
    'ship: incomplete with a failing required category fails with both reasons',
    input(SHIP_CATEGORIES, { ...GOOD_SHIP, tls: 'unknown' }, { ...GOOD_SHIP_SCORES, tls: undefined } as Partial<Record<ScoreKey, number>>, { incomplete: true }),
    SHIP, {}, { gate: 'fail', reasons: ['tls is unknown (it could not be judged): the ship gate requires it good.', INCOMPLETE], advisories: [] },
  ],
];

describe('evaluateGate', () => {
  for (const [name, report, policy, options, expected] of cases) {
    it(name, () => assert.deepEqual(evaluateGate(report, policy, options), expected));
  }

  it('names the first 10 high-severity findings and counts the rest', () => {
    const many = Array.from({ length: 12 }, (_, i) => finding('mixed-content-blockable', 'mixed-content', 'high', `script:nth-of-type(${i + 1})`));
    const result = evaluateGate(input(['mixed-content'], { 'mixed-content': 'poor' }, { 'mixed-content': 0 }, { findings: many }), DEFAULT);
    assert.equal(result.gate, 'fail');
    assert.equal(result.reasons.length, 12);
    assert.deepEqual(result.reasons.slice(0, 10), many.slice(0, 10).map((f) => `High-severity finding ${f.findingId} in mixed-content remains: mixed-content-blockable title.`));
    assert.deepEqual(result.reasons.slice(10), ['2 more high-severity findings remain.', 'mixed-content scores poor (0/100), below 50.']);
  });

  it('reads a jobReport directly: categories and statuses from the playbook run', () => {
    const seo = reportOf(['seo'], [finding('heading-missing-h1', 'seo', 'medium')]);
    const report = jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', seo)]);
    // seo is poor (0/100: its only check fails); accessibility and best-practices no step measured.
    assert.deepEqual(evaluateGate(report, playbook('seo-audit').gate), { gate: 'fail', reasons: ['seo scores poor (0/100), below 50.'], advisories: [] });
  });
});
