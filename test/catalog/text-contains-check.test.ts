// text_utilities_text_contains_check: the step of the file workflow that judges extracted text in
// the findings model. What PDF text extraction does to a phrase (line breaks, runs of spaces, the
// "ﬁ" ligature, soft hyphens) must not read as missing; a missing phrase is one high-severity
// finding whose id depends on the phrase alone; bad phrase lists are 400s naming `expected`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ruleFindingId, reportSchema, type Report } from '../../src/analysis/findings.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import { MAX_PHRASES, textContainsCheck } from '../../src/catalog/text-utilities/text-contains-check.ts';
import { runTool } from '../support/run-tool.ts';

interface Result {
  allFound: boolean;
  found: number;
  missing: string[];
  phrases: { phrase: string; found: boolean }[];
  report: Report;
}

const check = async (input: Record<string, unknown>): Promise<Result> => (await runTool(textContainsCheck, input)).result as Result;

async function refused(input: Record<string, unknown>): Promise<ServiceError> {
  let error: unknown;
  await assert.rejects(runTool(textContainsCheck, input), (e) => {
    error = e;
    return true;
  });
  assert.ok(isServiceError(error), String(error));
  return error;
}

describe('text-contains-check', () => {
  it('reads a phrase through what PDF extraction does to it: line breaks, spacing, the fi ligature, soft hyphens, case', async () => {
    const text = 'The ﬁnal   report was\nsigned by the Board.\fPage 2: the sum in\u00adsured is 4,000.';
    const r = await check({ text, expected: ['final report was signed by the board', 'sum insured is 4,000'] });
    assert.equal(r.allFound, true);
    assert.deepEqual(r.phrases, [
      { phrase: 'final report was signed by the board', found: true },
      { phrase: 'sum insured is 4,000', found: true },
    ]);
    assert.deepEqual(r.report.findings, []);
    assert.deepEqual(r.report.scores, { 'best-practices': 100, overall: 100 });
    assert.equal(r.report.statuses['best-practices'], 'good');
    assert.equal(reportSchema.safeParse(r.report).success, true);
  });

  it('with caseSensitive, case counts', async () => {
    const r = await check({ text: 'The Board approved it.', expected: ['the board approved', 'The Board approved'], caseSensitive: true });
    assert.deepEqual(r.missing, ['the board approved']);
    assert.equal(r.found, 1);
  });

  it('the missing phrases are one high-severity finding listing each, its id the rule\'s whatever the phrases', async () => {
    const a = await check({ text: 'Nothing relevant here.', expected: 'Net loss of four million\nGross margin' });
    const b = await check({ text: 'Still nothing.', expected: ['net   LOSS of four\nmillion'] });
    const id = ruleFindingId('text-phrase-missing', 'best-practices');
    assert.deepEqual(a.report.findings.map((f) => [f.findingId, f.severity, f.category, f.count]), [[id, 'high', 'best-practices', 2]]);
    assert.deepEqual(a.report.findings[0]?.instances, [{ value: 'Net loss of four million' }, { value: 'Gross margin' }]);
    assert.match(a.report.findings[0]?.fix.change ?? '', /Put "Net loss of four million" into the source document.*Put "Gross margin" into the source document/);
    assert.deepEqual(a.missing, ['Net loss of four million', 'Gross margin']);
    assert.equal(b.report.findings[0]?.findingId, id);
    assert.equal(b.report.findings[0]?.title, 'The text lacks "net   LOSS of four\nmillion"', 'the phrase as the caller wrote it');
    assert.deepEqual(a.report.scores, { 'best-practices': 0, overall: 0 });
    assert.equal(a.report.statuses['best-practices'], 'poor');
    assert.deepEqual(a.report.checks, [{ rule: 'text-phrase-missing', category: 'best-practices', weight: 1, result: 'fail', score: 0 }]);
  });

  it('a phrase list as lines skips blank lines and counts a repeated phrase once', async () => {
    const r = await check({ text: 'alpha beta', expected: '  alpha \n\n\nALPHA\nbeta\n' });
    assert.deepEqual(r.phrases, [
      { phrase: 'alpha', found: true },
      { phrase: 'beta', found: true },
    ]);
    assert.equal(r.report.details['phrases'], 2);
  });

  it('refuses a list with no phrase in it, or too many, naming expected', async () => {
    for (const expected of ['\n  \n', ['  ']]) {
      const error = await refused({ text: 'x', expected });
      assert.equal(error.status, 400);
      assert.equal(error.message, 'No phrase to look for');
      assert.deepEqual((error.extra['issues'] as { field: string }[]).map((i) => i.field), ['expected']);
    }
    const many = Array.from({ length: MAX_PHRASES + 1 }, (_, i) => `phrase ${i}`).join('\n');
    const error = await refused({ text: 'x', expected: many });
    assert.equal(error.message, `At most ${MAX_PHRASES} phrases per check`);
    const schemaError = await refused({ text: 'x', expected: [] });
    assert.equal(schemaError.status, 400);
  });
});
