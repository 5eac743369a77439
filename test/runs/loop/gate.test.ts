// Every gate rule, table-driven, with the exact gate value, reasons and advisories.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Category, ScoreKey, Status } from '../../../src/analysis/findings.ts';
import { evaluateGate, type GateInput, type GateOptions, type GatePolicy, type GateResult } from '../../../src/runs/loop/gate.ts';
import { redirectChainAnalyzer } from '../../../src/analysis/analyzers/redirect-chain.ts';
import { analyze as analyzeMixedContent } from '../../../src/analysis/analyzers/mixed-content.ts';
import { analyze as analyzePageSpeed } from '../../../src/analysis/analyzers/page-speed.ts';
import { analyze as analyzeSecurityHeaders } from '../../../src/analysis/analyzers/security-headers.ts';
import { analyze as analyzeTls } from '../../../src/analysis/analyzers/tls-certificate.ts';
import { factsFor } from '../../analysis/analyzers/report-helpers.ts';
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

describe('evaluateGate on a ship-check run of the real analyzers', () => {
  const URL = 'https://shop.test/';
  const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script src="/app.js"></script></head><body><h1>Shop</h1><img src="/a.png"></body></html>';
  const STRONG: Record<string, string> = {
    'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'strict-transport-security': 'max-age=63072000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  // A head of 22 render-blocking bundles (their sizes unknown, so 30 KB each assumed: under a
  // second of blocking, medium) and four images without dimensions: the page-speed proxy scores
  // it 89, needs_improvement, with no high-severity finding.
  const HEAVY_PAGE = PAGE.replace('<script src="/app.js"></script>', Array.from({ length: 22 }, (_, i) => `<script src="/bundle-${i}.js"></script>`).join('')).replace('<img src="/a.png">', Array.from({ length: 4 }, (_, i) => `<img src="/p${i}.png">`).join(''));
  const shipRun = (headers: Record<string, string>, page = PAGE) => {
    const facts = { ...factsFor(URL, { headers }), text: page };
    return jobReportOf('ship-check', [
      okStep('tls', 'security_apis_tls_certificate_checker', analyzeTls(page, facts, URL)),
      okStep('security-headers', 'security_apis_security_headers_grader', analyzeSecurityHeaders(page, facts, URL)),
      okStep('http-status', 'seo_apis_redirect_chain_checker', redirectChainAnalyzer.analyze(page, facts, URL)),
      okStep('mixed-content', 'seo_apis_mixed_content_checker', analyzeMixedContent(page, facts, URL)),
      okStep('page-speed', 'seo_apis_page_speed_analyzer', analyzePageSpeed(page, facts, URL)),
    ]);
  };

  it('every required category good and the page-speed proxy at needs_improvement: pass, with the advisory', () => {
    const report = shipRun(STRONG, HEAVY_PAGE);
    assert.deepEqual(report.statuses, {
      tls: 'good', 'security-headers': 'good', 'http-status': 'good', 'mixed-content': 'good', performance: 'needs_improvement', 'best-practices': 'good', overall: 'good',
    });
    assert.deepEqual(evaluateGate(report, report.gatePolicy), {
      gate: 'pass',
      reasons: [],
      advisories: [`performance is needs_improvement (${report.scores.performance}/100): advisory, it does not fail the gate.`],
    });
  });

  it('without a Content-Security-Policy: two high-severity header findings, and needs_improvement fails only the ship gate', () => {
    const { 'content-security-policy': _csp, ...weaker } = STRONG;
    const report = shipRun(weaker);
    assert.equal(report.statuses['security-headers'], 'needs_improvement');
    const highs = report.findings.filter((f) => f.severity === 'high').map((f) => `High-severity finding ${f.findingId} in ${f.category} remains: ${f.title}.`);
    assert.deepEqual(report.findings.filter((f) => f.severity === 'high').map((f) => f.rule), ['security-csp', 'security-x-frame-options']);
    assert.deepEqual(evaluateGate(report, report.gatePolicy).reasons, [
      ...highs,
      `security-headers is needs_improvement (${report.scores['security-headers']}/100): the ship gate requires it good (90 or more).`,
    ]);
    assert.deepEqual(evaluateGate(report, { policy: 'default' }).reasons, highs);
  });
});
