// buildJobReport over real analyzer reports (meta tags, headings, image alt on one HTML page), the
// merge rules (findings once, categories over the playbook's scores, unknown when unmeasured,
// incomplete on a failed step), the two forms, the schema, and the seal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { deltaSchema } from '../../../src/runs/loop/delta.ts';
import { loopSchema } from '../../../src/runs/loop/loop-state.ts';
import { analyze as analyzeHeadings } from '../../../src/analysis/analyzers/heading-structure.ts';
import { analyze as analyzeImageAlt } from '../../../src/analysis/analyzers/image-alt.ts';
import { analyze as analyzeMeta } from '../../../src/analysis/analyzers/meta-tags.ts';
import { checkJobReport, compactJobReport, jobReportSchema, reportOfResult, verifyJobReport, type JobReport } from '../../../src/runs/loop/job-report.ts';
import { canonicalJson, sealOf } from '../../../src/runs/loop/report-signature.ts';
import { finding, ids, jobReportOf, KEY, okStep, OTHER_ACCOUNT_KEY, reportOf } from './loop-fixtures.ts';

const URL = 'https://shop.test/';
const PAGE = '<!doctype html><html><head><title>Hi</title></head><body><h3>x</h3><img src="a.png"><img src="b.png"></body></html>';

function seoSteps() {
  return [
    okStep('meta-tags', 'seo_apis_meta_tags_analyzer', analyzeMeta(PAGE, null, URL)),
    okStep('headings', 'seo_apis_heading_structure_analyzer', analyzeHeadings(PAGE, null, URL)),
    okStep('image-alt', 'seo_apis_image_alt_audit', analyzeImageAlt(PAGE, null, URL)),
  ];
}

describe('buildJobReport: merging real analyzer reports', () => {
  const report = jobReportOf('seo-audit', seoSteps());

  it('scores only the playbook categories: one step keeps its score, several are re-scored from their checks', () => {
    // seo, per Lighthouse audit (seo-audits.ts) over every step's checks: title, canonical and
    // hreflang and is-crawlable (93/23) pass, the description and image-alt (an accessibility step's
    // rule) fail: 3 + 93/23 of 5 + 93/23 (78), lowered a little by the rules Lighthouse does not
    // score (the h1, the canonical link) -> 73.
    // accessibility: meta-tags (50) and image-alt (47): 12 of 25 -> 48. best-practices: meta-tags alone, 31.
    assert.deepEqual(report.scores, { seo: 73, accessibility: 48, 'best-practices': 31, overall: 51 });
    assert.deepEqual(report.statuses, { seo: 'needs_improvement', accessibility: 'poor', 'best-practices': 'poor', overall: 'needs_improvement' });
    assert.deepEqual(report.categories, ['seo', 'accessibility', 'best-practices']);
    assert.deepEqual(report.gatePolicy, { policy: 'default', requireGood: [], advisory: [] });
  });

  it('lists every finding once, severity first, and counts them', () => {
    // One finding per rule: the two images without alt are one (count 2), the four og tags one.
    assert.deepEqual(report.findings.map((f) => [f.rule, f.count ?? 1]), [
      ['heading-missing-h1', 1],
      ['image-alt-missing', 2],
      ['meta-description-missing', 1],
      ['meta-lang-missing', 1],
      ['meta-viewport-missing', 1],
      ['meta-canonical-missing', 1],
      ['meta-charset-missing', 1],
      ['meta-og-missing', 4],
      ['meta-title-too-short', 1],
      ['meta-twitter-card-missing', 1],
    ]);
    assert.deepEqual(report.summary, {
      findings: 10, high: 0, medium: 5, low: 4, info: 1, steps: 3, stepsOk: 3, stepsFailed: 0, stepsSkipped: 0, creditsCharged: 3,
      checks: 34, checksPassed: 24, checksFailed: 10, checksUnknown: 0,
    });
    assert.equal(report.incomplete, false);
    assert.deepEqual(report.notes, []);
  });

  it('the compact form lists steps as ids, status and credits only', () => {
    assert.deepEqual(report.steps, [
      { stepId: 'meta-tags', operationId: 'seo_apis_meta_tags_analyzer', status: 'ok', creditsCharged: 1 },
      { stepId: 'headings', operationId: 'seo_apis_heading_structure_analyzer', status: 'ok', creditsCharged: 1 },
      { stepId: 'image-alt', operationId: 'seo_apis_image_alt_audit', status: 'ok', creditsCharged: 1 },
    ]);
    assert.deepEqual(Object.keys(report), [
      'reportId', 'playbookId', 'goalKey', 'createdAt', 'categories', 'gatePolicy', 'steps', 'scores', 'statuses', 'findings', 'checks', 'summary', 'incomplete', 'notes', 'signature',
    ]);
    assert.equal(report.playbookId, 'seo-audit');
    assert.equal(report.goalKey, 'seo-audit|https://shop.test/');
    assert.equal(report.createdAt, '2025-03-01T10:00:00.000Z');
  });

  it('is valid against jobReportSchema, unchanged by the parse', () => {
    assert.deepEqual(jobReportSchema.parse(report), report);
  });
});

describe('buildJobReport: merge rules', () => {
  const shared = finding('meta-lang-missing', 'accessibility', 'medium');
  const own = finding('image-alt-missing', 'accessibility', 'medium', 'img:nth-of-type(1)');

  it('the same finding from two steps is listed once, and its check once', () => {
    const a = reportOf(['accessibility'], [shared]);
    const b = reportOf(['accessibility'], [shared, own]);
    const report = jobReportOf('seo-audit', [okStep('meta-tags', 'seo_apis_meta_tags_analyzer', a), okStep('image-alt', 'seo_apis_image_alt_audit', b)]);
    assert.deepEqual(ids(report.findings), [own.findingId, shared.findingId].sort());
    assert.equal(report.summary.findings, 2);
    assert.deepEqual(report.checks.map((c) => c.rule).sort(), ['image-alt-missing', 'meta-lang-missing']);
  });

  it('a category no step measured is unknown, with a note; overall is over the known ones', () => {
    const report = jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', analyzeHeadings(PAGE, null, URL))]);
    assert.deepEqual(report.scores, { seo: 63, overall: 63 });
    assert.deepEqual(report.statuses, { seo: 'needs_improvement', accessibility: 'unknown', 'best-practices': 'unknown', overall: 'needs_improvement' });
    assert.deepEqual(report.notes, ['accessibility: no step could score it, so it is unknown', 'best-practices: no step could score it, so it is unknown']);
    assert.equal(report.incomplete, false);
  });

  it('a failed step makes the report incomplete, keeps its error code, and says so in the notes', () => {
    const report = jobReportOf('seo-audit', [
      okStep('meta-tags', 'seo_apis_meta_tags_analyzer', analyzeMeta(PAGE, null, URL), 2),
      { stepId: 'headings', operationId: 'seo_apis_heading_structure_analyzer', status: 'error', errorCode: 'fetch_timeout', creditsCharged: 0 },
      { stepId: 'image-alt', operationId: 'seo_apis_image_alt_audit', status: 'skipped', creditsCharged: 0 },
    ]);
    assert.equal(report.incomplete, true);
    assert.deepEqual(report.steps[1], { stepId: 'headings', operationId: 'seo_apis_heading_structure_analyzer', status: 'error', errorCode: 'fetch_timeout', creditsCharged: 0 });
    assert.deepEqual(report.notes, ['step "headings" (seo_apis_heading_structure_analyzer) failed with fetch_timeout: what it checks was not judged']);
    assert.deepEqual(
      { steps: report.summary.steps, ok: report.summary.stepsOk, failed: report.summary.stepsFailed, skipped: report.summary.stepsSkipped, credits: report.summary.creditsCharged },
      { steps: 3, ok: 1, failed: 1, skipped: 1, credits: 2 },
    );
  });

  it('a skipped step alone leaves the report complete', () => {
    const report = jobReportOf('seo-audit', [...seoSteps(), { stepId: 'serp-snippet', operationId: 'seo_apis_serp_snippet_preview', status: 'skipped', creditsCharged: 0 }]);
    assert.equal(report.incomplete, false);
  });

  it("a step's incomplete report makes the job incomplete, its notes prefixed with the step id", () => {
    const partial = reportOf(['seo'], [finding('heading-missing-h1', 'seo', 'medium')], { notes: ['the page was cut at 5 MB'] });
    assert.equal(partial.incomplete, true);
    const report = jobReportOf('seo-audit', [okStep('headings', 'seo_apis_heading_structure_analyzer', partial)]);
    assert.equal(report.incomplete, true);
    assert.equal(report.notes[0], 'headings: the page was cut at 5 MB');
  });

  it('reads the report out of a URL tool result, and nothing out of other results', () => {
    const r = reportOf(['seo'], []);
    assert.deepEqual(reportOfResult({ url: URL, finalUrl: URL, status: 200, report: r }), r);
    assert.equal(reportOfResult({ words: 3 }), undefined);
    assert.equal(reportOfResult({ report: { scores: 'nope' } }), undefined);
    assert.equal(reportOfResult(null), undefined);
  });
});

describe('jobReport forms and seal', () => {
  const full = jobReportOf('seo-audit', seoSteps(), { form: 'full' });
  const compact = jobReportOf('seo-audit', seoSteps());

  it('the full form adds each step raw result; the compact form of it is the compact report', () => {
    assert.deepEqual(full.steps.map((s) => Object.keys(s)), [
      ['stepId', 'operationId', 'status', 'creditsCharged', 'result'],
      ['stepId', 'operationId', 'status', 'creditsCharged', 'result'],
      ['stepId', 'operationId', 'status', 'creditsCharged', 'result'],
    ]);
    assert.deepEqual(compactJobReport(full), compactJobReport(compact));
    assert.equal(full.signature, compact.signature);
  });

  it('the compact view lists only the unknown checks and no instances that repeat a lone evidence; the whole report keeps both', () => {
    assert.equal(compact.checks.length, 34, 'the report the gate and the ranking read keeps every check');
    const view = compactJobReport(compact);
    assert.deepEqual(view.checks, compact.checks.filter((c) => c.result === 'unknown'));
    assert.equal(view.summary.checks, 34);
    for (const [i, f] of view.findings.entries()) {
      const whole = compact.findings[i];
      assert.equal(f.findingId, whole?.findingId);
      const listed = whole?.instances ?? [];
      // Gone only where they said nothing the evidence does not: its copy, or no place where it names none.
      const saysNothingMore = listed.length === 0 ? Object.keys(whole?.evidence ?? {}).length === 0 : listed.length === 1 && JSON.stringify(listed[0]) === JSON.stringify(whole?.evidence);
      if (saysNothingMore) assert.equal(f.instances, undefined, f.rule);
      else assert.deepEqual(f.instances, whole?.instances, `${f.rule}: its places stay listed`);
      assert.deepEqual({ ...f, instances: undefined }, { ...whole, instances: undefined });
    }
    const alt = view.findings.find((f) => f.rule === 'image-alt-missing');
    assert.deepEqual([alt?.count, alt?.instances?.length], [2, 2], 'the two images without alt are both listed');
    assert.deepEqual(compactJobReport(view), view, 'applied twice it changes nothing');
    assert.equal(verifyJobReport(view, KEY), true);
    const dropped = JSON.stringify(compact.checks.filter((c) => c.result !== 'unknown')).length;
    assert.ok(JSON.stringify(view).length <= JSON.stringify(compact).length - dropped, `${JSON.stringify(view).length} vs ${JSON.stringify(compact).length}`);
  });

  it('an instance edited into a lone finding is sealed like any other field', () => {
    const lone = compact.findings.findIndex((f) => (f.count ?? 1) === 1);
    assert.ok(lone >= 0);
    const findings = compact.findings.map((f, i) => (i === lone ? { ...f, instances: [{ selector: 'body>p.elsewhere' }] } : f));
    assert.equal(checkJobReport({ ...compact, findings }, KEY).ok, false);
  });

  it('a checked full report is read as its sealed view', () => {
    const check = checkJobReport(full, KEY);
    assert.ok(check.ok);
    assert.deepEqual(check.report, compactJobReport(full));
  });

  it('a report sealed the earlier way (every check, raw results aside) still verifies, and is read whole', () => {
    const { signature: _s, ...unsigned } = compact;
    const legacy = { ...unsigned, summary: { ...compact.summary, checks: undefined, checksPassed: undefined, checksFailed: undefined, checksUnknown: undefined } };
    const json = JSON.parse(JSON.stringify(legacy)) as Omit<JobReport, 'signature'>;
    const sealed = { ...json, signature: sealOf(json, KEY) };
    const check = checkJobReport(sealed, KEY);
    assert.ok(check.ok);
    assert.equal(check.report.checks.length, 34);
    assert.equal(checkJobReport({ ...sealed, scores: { ...sealed.scores, seo: 99 } }, KEY).ok, false, 'an edit breaks the earlier seal too');
  });

  it('verifies with the key it was sealed with, in either form, whatever the key order', () => {
    assert.equal(verifyJobReport(compact, KEY), true);
    assert.equal(verifyJobReport(full, KEY), true);
    const reordered = Object.fromEntries(Object.entries(compact).reverse());
    assert.equal(verifyJobReport(JSON.parse(JSON.stringify(reordered)), KEY), true);
  });

  const tampered: [string, (r: JobReport) => unknown, 'schema' | 'signature'][] = [
    ['a finding dropped', (r) => ({ ...r, findings: r.findings.slice(1) }), 'signature'],
    ['a score raised', (r) => ({ ...r, scores: { ...r.scores, seo: 95 } }), 'signature'],
    ['incomplete flipped', (r) => ({ ...r, incomplete: true }), 'signature'],
    ['the goal changed', (r) => ({ ...r, goalKey: 'seo-audit|https://other.test/' }), 'signature'],
    ['the signature replaced', (r) => ({ ...r, signature: 'a'.repeat(64) }), 'signature'],
    ['the signature not hex', (r) => ({ ...r, signature: 'forged' }), 'signature'],
    ['findings cut off', (r) => { const { findings: _f, ...rest } = r; return rest; }, 'schema'],
    ['a finding truncated', (r) => ({ ...r, findings: [{ findingId: r.findings[0]?.findingId }] }), 'schema'],
    ['the JSON cut in half', (r) => JSON.stringify(r).slice(0, 500), 'schema'],
    ['not an object', () => 42, 'schema'],
  ];
  for (const [name, edit, problem] of tampered) {
    it(`refuses a report with ${name} (${problem})`, () => {
      const check = checkJobReport(edit(compact), KEY);
      assert.equal(check.ok, false);
      assert.equal(!check.ok && check.problem, problem);
    });
  }

  it('refuses a report sealed for another account', () => {
    const check = checkJobReport(compact, OTHER_ACCOUNT_KEY);
    assert.deepEqual(check, { ok: false, problem: 'signature', message: 'its signature does not match: it was changed after it was issued, or issued to another account' });
  });

  it('editing a step raw result does not break the seal (it is not trusted for anything)', () => {
    const edited = { ...full, steps: full.steps.map((s) => ({ ...s, result: { edited: true } })) };
    assert.equal(verifyJobReport(edited, KEY), true);
  });

  it('canonical JSON sorts keys at every level and leaves undefined out', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }, null], e: 'x' }), '{"a":[{"d":2},null],"b":1,"e":"x"}');
  });
});

describe('schemas as MCP output schemas', () => {
  it('jobReportSchema, loopSchema and deltaSchema convert to JSON Schema with their fields', () => {
    const props = (schema: z.ZodType) => Object.keys((z.toJSONSchema(schema, { io: 'output' }) as { properties: Record<string, unknown> }).properties);
    assert.deepEqual(props(jobReportSchema), [
      'reportId', 'playbookId', 'goalKey', 'createdAt', 'categories', 'gatePolicy', 'steps', 'scores', 'statuses', 'findings', 'checks', 'summary', 'incomplete', 'notes', 'signature',
    ]);
    assert.deepEqual(props(loopSchema), [
      'gate', 'gateReasons', 'initiate', 'stop', 'round', 'maxRounds', 'sameFindingsStreak', 'sameFindingsLimit', 'nextActions', 'remainingFixes', 'remainingFixesTotal', 'next', 'receipt',
    ]);
    assert.deepEqual(props(deltaSchema), [
      'status', 'improved', 'scoreDeltas', 'newFindings', 'resolvedFindings', 'remainingFindings', 'counts', 'remainingFixes', 'nextActions', 'gate', 'gateReasons',
    ]);
  });
});
