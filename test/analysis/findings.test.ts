import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareReports, findingIdFor, makeFinding, MAX_LISTED_INSTANCES, reportSchema, type Finding } from '../../src/analysis/findings.ts';
import { ruleFindingId } from '../../src/analysis/findings.ts';
import {
  buildReport,
  failed,
  observatoryGrade,
  observatoryScore,
  passed,
  statusForScore,
  unknown,
  type RuleDefinition,
} from '../../src/analysis/scoring.ts';
import { MAX_DEPTH, parseHtml, textOf } from '../../src/analysis/html-document.ts';
import { reportToMarkdown } from '../../src/analysis/report-markdown.ts';

const A: RuleDefinition = { id: 'rule-a', category: 'seo', weight: 3, severity: 'high', title: 'A' };
const B: RuleDefinition = { id: 'rule-b', category: 'seo', weight: 1, severity: 'low', title: 'B' };
const C: RuleDefinition = { id: 'rule-c', category: 'security-headers', weight: 1, severity: 'medium', title: 'C' };

function finding(rule: RuleDefinition, location: string, severity = rule.severity): Finding {
  return makeFinding({
    rule: rule.id,
    category: rule.category,
    severity,
    location,
    title: rule.title,
    detail: `at ${location}`,
    evidence: { selector: location },
    fix: { patchType: 'html', change: 'change it', acceptance: 'gone', roleHint: 'edit' },
  });
}

describe('findings model', () => {
  it('a findingId depends on the rule and the location only', () => {
    assert.equal(findingIdFor('rule-a', 'img[src="/a.png"]'), findingIdFor('rule-a', 'img[src="/a.png"]'));
    assert.notEqual(findingIdFor('rule-a', 'img[src="/a.png"]'), findingIdFor('rule-b', 'img[src="/a.png"]'));
    assert.notEqual(findingIdFor('rule-a', 'img[src="/a.png"]'), findingIdFor('rule-a', 'img[src="/b.png"]'));
    assert.match(findingIdFor('rule-a', 'document'), /^rule-a:[0-9a-f]{10}$/);
    const one = finding(A, 'h1');
    const other = { ...finding(A, 'h1'), detail: 'different words' };
    assert.equal(one.findingId, other.findingId);
  });

  it('scores a category as the weighted mean of its judged checks, with Lighthouse bands', () => {
    const report = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [failed(A), passed(B), unknown(C)],
      findings: [finding(A, 'h1')],
    });
    assert.equal(report.scores.seo, 25);
    assert.equal(report.statuses.seo, 'poor');
    assert.equal(report.scores['security-headers'], undefined);
    assert.equal(report.statuses['security-headers'], 'unknown');
    assert.equal(report.scores.overall, 25);
    assert.equal(report.incomplete, true);
    assert.deepEqual(report.summary, {
      findings: 1, high: 1, medium: 0, low: 0, info: 0, checks: 3, passed: 1, failed: 1, unknown: 1,
    });
    assert.deepEqual(reportSchema.parse(report), report);
  });

  it('maps scores to statuses at 90 and 50', () => {
    assert.equal(statusForScore(100), 'good');
    assert.equal(statusForScore(90), 'good');
    assert.equal(statusForScore(89), 'needs_improvement');
    assert.equal(statusForScore(50), 'needs_improvement');
    assert.equal(statusForScore(49), 'poor');
    assert.equal(statusForScore(undefined), 'unknown');
  });

  it('takes an override score for a category and averages known categories into overall', () => {
    const report = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [passed(A), failed(C)],
      findings: [],
      scoreOverrides: { 'security-headers': 135 },
    });
    assert.equal(report.scores['security-headers'], 100);
    assert.equal(report.scores.overall, 100);
    assert.equal(report.statuses.overall, 'good');
    assert.equal(report.incomplete, false);
  });

  it('folds 120 instances of a rule into one finding: count 120, the first 20 listed, one fix, not incomplete', () => {
    const many: RuleDefinition = {
      ...B,
      many: { title: '{count} things are wrong', change: 'Fix each of the {count} things.', acceptance: 'No wrong thing remains.' },
    };
    const instances = Array.from({ length: 120 }, (_, i) => finding(many, `p:nth-of-type(${i + 1})`, i === 7 ? 'high' : 'low'));
    const report = buildReport({ categories: ['seo'], checks: [failed(many), failed(A)], findings: [...instances, finding(A, 'x')], rules: [many] });
    assert.equal(report.incomplete, false);
    assert.deepEqual(report.notes, []);
    assert.deepEqual(report.findings.map((f) => [f.rule, f.count, f.severity]), [['rule-a', 1, 'high'], ['rule-b', 120, 'high']]);
    const grouped = report.findings[1] as Finding;
    assert.equal(grouped.findingId, ruleFindingId('rule-b', 'seo'));
    assert.equal(grouped.title, '120 things are wrong');
    assert.equal(grouped.instances?.length, MAX_LISTED_INSTANCES);
    // the most severe instance leads, the others follow in page order
    assert.deepEqual(grouped.instances?.slice(0, 3), [{ selector: 'p:nth-of-type(8)' }, { selector: 'p:nth-of-type(1)' }, { selector: 'p:nth-of-type(2)' }]);
    assert.deepEqual(grouped.evidence, { selector: 'p:nth-of-type(8)' });
    assert.match(grouped.fix.change, /^Fix each of the 120 things\. The first 20 are listed in instances/);
    assert.equal(grouped.fix.acceptance, 'No wrong thing remains.');
    assert.deepEqual(report.summary, { findings: 2, high: 2, medium: 0, low: 0, info: 0, checks: 2, passed: 0, failed: 2, unknown: 0 });
    assert.deepEqual(reportSchema.parse(report), report);
  });

  it('keeps a rule\'s findingId while it fails, whatever the count, and a single instance its own words', () => {
    const one = buildReport({ categories: ['seo'], checks: [failed(B)], findings: [finding(B, 'h2')] });
    const three = buildReport({ categories: ['seo'], checks: [failed(B)], findings: ['h2', 'h3', 'h4'].map((l) => finding(B, l)) });
    assert.equal(one.findings[0]?.findingId, three.findings[0]?.findingId);
    assert.deepEqual(one.findings[0], { ...finding(B, 'h2'), findingId: ruleFindingId('rule-b', 'seo'), count: 1, instances: [{ selector: 'h2' }] });
    // no wording given: a generic one naming the count and the first instance's change
    const grouped = three.findings[0] as Finding;
    assert.equal(grouped.title, 'B (3 instances)');
    assert.equal(grouped.fix.change, 'Fix all 3 instances, not only the first. Each is listed in instances (selector). Each: change it');
    assert.equal(grouped.fix.acceptance, 'Each holds: gone');
    assert.equal(grouped.detail, '3 instances on the page. Each is listed in instances (selector). at h2 at h3 at h4');
    const six = buildReport({ categories: ['seo'], checks: [failed(B)], findings: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((l) => finding(B, l)) });
    assert.equal(six.findings[0]?.fix.change, 'Fix all 6 instances, not only the first. Each is listed in instances (selector). For example: change it');
    assert.equal(six.findings[0]?.fix.acceptance, 'The rule rule-b fires nowhere on the page (for the first instance: gone)');
    // folding a report's findings again changes nothing
    assert.deepEqual(buildReport({ categories: ['seo'], checks: [failed(B)], findings: three.findings }).findings, three.findings);
  });

  it('informational notes leave a report complete; what could not be judged does not', () => {
    const informed = buildReport({ categories: ['seo'], checks: [passed(A)], findings: [], info: ['read as a proxy'] });
    assert.equal(informed.incomplete, false);
    assert.deepEqual(informed.notes, ['read as a proxy']);
    const unjudged = buildReport({ categories: ['seo'], checks: [passed(A)], findings: [], notes: ['the page was cut at line 9'], info: ['read as a proxy'] });
    assert.equal(unjudged.incomplete, true);
    assert.deepEqual(unjudged.notes, ['read as a proxy', 'the page was cut at line 9']);
  });

  it('compareReports says which findings are new, resolved and remaining (by rule), and the score deltas', () => {
    const D: RuleDefinition = { id: 'rule-d', category: 'seo', weight: 1, severity: 'low', title: 'D' };
    const before = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [failed(A), failed(B), passed(D)],
      findings: [finding(A, 'h1'), finding(A, 'h5'), finding(B, 'h2')],
    });
    // one of A's two instances fixed, B fixed, D new
    const after = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [failed(A), passed(B), failed(D), passed(C)],
      findings: [finding(A, 'h1'), finding(D, 'h3')],
    });
    const delta = compareReports(before, after);
    assert.deepEqual(delta.newFindings.map((f) => f.findingId), [ruleFindingId('rule-d', 'seo')]);
    assert.deepEqual(delta.resolvedFindings.map((f) => f.findingId), [ruleFindingId('rule-b', 'seo')]);
    assert.deepEqual(delta.remainingFindings.map((f) => [f.findingId, f.count]), [[ruleFindingId('rule-a', 'seo'), 1]]);
    assert.equal(before.findings.find((f) => f.rule === 'rule-a')?.count, 2);
    assert.deepEqual(delta.scoreDeltas, { seo: 0, 'security-headers': null, overall: 40 });
  });
});

describe('Observatory scoring', () => {
  it('grades by the MDN chart', () => {
    const cases: Array<[number, string]> = [
      [135, 'A+'], [100, 'A+'], [99, 'A'], [90, 'A'], [85, 'A-'], [80, 'B+'], [70, 'B'], [65, 'B-'],
      [60, 'C+'], [50, 'C'], [45, 'C-'], [40, 'D+'], [30, 'D'], [25, 'D-'], [24, 'F'], [0, 'F'],
    ];
    for (const [score, grade] of cases) assert.equal(observatoryGrade(score), grade, `score ${score}`);
  });

  it('adds bonuses only when the penalised score is 90 or more, never below 0', () => {
    assert.equal(observatoryScore([-5, 10, 5]), 110);
    assert.equal(observatoryScore([-20, 10, 5]), 80);
    assert.equal(observatoryScore([-25, -20, -20, -50, 10]), 0);
    assert.equal(observatoryScore([]), 100);
  });
});

describe('bounded HTML parse', () => {
  it('parses 100,000 nested elements without recursion, stopping at the depth limit with a note', () => {
    const html = `<html><body>\n${'<div>\n'.repeat(100_000)}<h1>deep</h1>${'</div>'.repeat(100_000)}</body></html>`;
    const doc = parseHtml(html, 'https://shop.test/');
    assert.equal(doc.notes.length, 1);
    assert.match(doc.notes[0] ?? '', new RegExp(`^elements nested deeper than ${MAX_DEPTH}: the page was analysed up to line \\d+ only$`));
    assert.ok(doc.elements.length < 20_000);
    const body = doc.byTag('body')[0];
    assert.ok(body);
    // text is read with a loop too; the h1 past the limit was never parsed
    assert.doesNotMatch(textOf(body), /deep/);
    assert.equal(doc.byTag('h1').length, 0);
  });

  it('reads text iteratively, with alt text when asked, and skips scripts', () => {
    const doc = parseHtml('<h2>Sale <img alt="50% off"><script>var x = 1</script> <b>today</b></h2>', 'https://shop.test/');
    const h2 = doc.byTag('h2')[0];
    assert.ok(h2);
    assert.equal(textOf(h2), 'Sale today');
    assert.equal(textOf(h2, { includeAlt: true }), 'Sale 50% off today');
  });

  it('locates elements by id, by their key attribute, or by a path unrelated edits leave alone', () => {
    const page = (extra: string) =>
      `<html><body>${extra}<main id="content"><p>x</p><section><h2>A</h2><h2>B</h2></section></main>` +
      `<img src="/a.png"><img src="/a.png"><footer><h3>F</h3></footer></body></html>`;
    const locations = (html: string) => {
      const doc = parseHtml(html, 'https://shop.test/');
      return doc.elements.filter((e) => ['h2', 'h3', 'img'].includes(e.name)).map((e) => doc.locate(e));
    };
    const expected = [
      'main#content>section>h2',
      'main#content>section>h2:nth-heading(2)',
      'img[src="/a.png"]',
      'img[src="/a.png"]:nth-match(2)',
      'html>body>footer>h3',
    ];
    assert.deepEqual(locations(page('')), expected);
    assert.deepEqual(locations(page('<div><p>new banner</p></div><nav><a href="/">home</a></nav>')), expected);
  });
});

describe('markdown report', () => {
  it('renders scores, summary, findings and notes from the fixed template', () => {
    const report = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [failed(A), passed(B), unknown(C)],
      findings: [finding(A, 'main#content>h3')],
      notes: ['response headers unknown'],
    });
    const md = reportToMarkdown('Heading structure', 'https://shop.test/a', report);
    const f = report.findings[0];
    assert.ok(f);
    assert.equal(
      md,
      [
        '# Heading structure',
        '',
        'URL: `https://shop.test/a`',
        '',
        '## Scores',
        '',
        '| Category | Score | Status |',
        '|---|---|---|',
        '| overall | 25 | poor |',
        '| seo | 25 | poor |',
        '| security-headers | - | unknown |',
        '',
        '## Summary',
        '',
        '- Findings: 1 (high 1, medium 0, low 0, info 0)',
        '- Checks: 3 (passed 1, failed 1, unknown 1)',
        '- Complete: no',
        '',
        '## Findings',
        '',
        '### 1. [high] A',
        '',
        '- Rule: `rule-a` (seo)',
        `- Finding: \`${f.findingId}\``,
        '- Detail: at main#content>h3'.replace('>', '\\>'),
        '- Evidence: selector `main#content>h3`',
        '- Fix (html, edit): change it',
        '- Acceptance: gone',
        '',
        '## Not analysed',
        '',
        '- response headers unknown',
        '',
      ].join('\n'),
    );
  });

  it('a page cannot inject links, images, HTML or table cells into the report', () => {
    const hostile = makeFinding({
      rule: 'rule-a',
      category: 'seo',
      severity: 'high',
      location: 'x',
      title: 'Title ![pixel](https://evil.test/p.png) <script>alert(1)</script> | cell',
      detail: 'see [here](https://evil.test/)\n\n# Injected heading',
      evidence: { snippet: '<a href="`x`">' },
      fix: { patchType: 'html', change: '**bold**', acceptance: 'ok', roleHint: 'edit' },
    });
    const md = reportToMarkdown('T', 'https://shop.test/', buildReport({ categories: ['seo'], checks: [failed(A)], findings: [hostile] }));
    assert.match(md, /### 1\. \[high\] Title \\!\\\[pixel\\\]\(https:\/\/evil\.test\/p\.png\) \\<script\\>alert\(1\)\\<\/script\\> \\\| cell/);
    assert.match(md, /- Detail: see \\\[here\\\]\(https:\/\/evil\.test\/\) # Injected heading\n/);
    assert.match(md, /- Evidence: ``<a href="`x`">``/);
    assert.match(md, /- Fix \(html, edit\): \\\*\\\*bold\\\*\\\*/);
    assert.doesNotMatch(md, /^# Injected/m);
  });
});
