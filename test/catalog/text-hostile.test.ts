// Issue 16 §1: text tools stay linear on hostile input. Their small inputs run inline on the main
// thread (define-tool.ts INLINE_TEXT_BUDGET), where a quadratic regular expression on 16 K
// characters took 2.5 s; at the largest text the tools take (1,000,000 characters), quadratic
// would take hours, linear takes well under a second. The limits below leave a wide margin for a
// loaded machine while no quadratic run could meet them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../support/run-tool.ts';
import { wordCounter } from '../../src/catalog/text-utilities/word-counter.ts';
import { textCaseConverter } from '../../src/catalog/text-utilities/text-case-converter.ts';
import { MAX_TEXT_LENGTH } from '../../src/catalog/text-utilities/text-shared.ts';

const LINEAR_WITHIN_MS = 10_000;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await run();
  return { value, ms: performance.now() - t0 };
}

describe('text tools on hostile text at the largest size (issue 16 §1)', () => {
  it('word-counter: a million terminators not followed by whitespace', async () => {
    const { value, ms } = await timed(() => runTool(wordCounter, { text: `${'.'.repeat(MAX_TEXT_LENGTH - 1)}a` }));
    assert.equal((value.result as { sentences: number }).sentences, 1);
    assert.ok(ms < LINEAR_WITHIN_MS, `${ms.toFixed(0)} ms`);
  });

  it('text-case-converter sentence case: terminators and whitespace with no letter after them', async () => {
    const text = '. 1'.repeat(MAX_TEXT_LENGTH / 4);
    const { value, ms } = await timed(() => runTool(textCaseConverter, { text, case: 'sentence' }));
    assert.equal((value.result as { text: string }).text, text);
    assert.ok(ms < LINEAR_WITHIN_MS, `${ms.toFixed(0)} ms`);
    const sample = await runTool(textCaseConverter, { text: 'hello. world! 12 ok? e.g. xét. ÉCOLE.\tok', case: 'sentence' });
    assert.equal((sample.result as { text: string }).text, 'Hello. World! 12 Ok? E.g. Xét. École.\tOk');
  });
});
