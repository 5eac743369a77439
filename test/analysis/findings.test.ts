import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareReports, findingIdFor, makeFinding, reportSchema, type Finding } from '../../src/analysis/findings.ts';
import {
  buildReport,
  failed,
  MAX_FINDINGS_PER_RULE,
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

function finding(rule: RuleDefinition, location: string): Finding {
  return makeFinding({
    rule: rule.id,
    category: rule.category,
    severity: rule.severity,
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

  it('lists at most MAX_FINDINGS_PER_RULE findings per rule, sorted, and notes the rest', () => {
    const many = Array.from({ length: MAX_FINDINGS_PER_RULE + 5 }, (_, i) => finding(B, `p:nth-of-type(${i + 2})`));
    const report = buildReport({ categories: ['seo'], checks: [failed(B), failed(A)], findings: [...many, finding(A, 'x')] });
    assert.equal(report.findings.length, MAX_FINDINGS_PER_RULE + 1);
    assert.equal(report.findings[0]?.rule, 'rule-a');
    assert.deepEqual(report.notes, [`rule-b: ${MAX_FINDINGS_PER_RULE + 5} findings, the first ${MAX_FINDINGS_PER_RULE} listed`]);
  });

  it('compareReports says which findings are new, resolved and remaining, and the score deltas', () => {
    const kept = finding(A, 'h1');
    const fixed = finding(B, 'h2');
    const added = finding(B, 'h3');
    const before = buildReport({ categories: ['seo', 'security-headers'], checks: [failed(A), failed(B)], findings: [kept, fixed] });
    const after = buildReport({
      categories: ['seo', 'security-headers'],
      checks: [failed(A), failed(B), passed(C)],
      findings: [kept, added],
    });
    const delta = compareReports(before, after);
    assert.deepEqual(delta.newFindings.map((f) => f.findingId), [added.findingId]);
    assert.deepEqual(delta.resolvedFindings.map((f) => f.findingId), [fixed.findingId]);
    assert.deepEqual(delta.remainingFindings.map((f) => f.findingId), [kept.findingId]);
    assert.deepEqual(delta.scoreDeltas, { seo: 0, 'security-headers': null, overall: 50 });
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
