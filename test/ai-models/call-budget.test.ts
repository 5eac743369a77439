// The time bound of one ai-models call (src/ai/call-budget.ts): derived from the video's length
// under the AI_TIMEOUT_MS ceiling, narrowed once the length is known, and a 504 when it passes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { insightBudgetMs, startCallBudget } from '../../src/ai/call-budget.ts';
import { isServiceError } from '../../src/core/errors.ts';

describe('ai-models call budget', () => {
  it('gives 60 s plus 250 ms per second of video, never more than the ceiling; an unknown length the ceiling', () => {
    assert.equal(insightBudgetMs(6, 300_000), 61_500);
    assert.equal(insightBudgetMs(600, 300_000), 210_000);
    assert.equal(insightBudgetMs(1200, 300_000), 300_000);
    assert.equal(insightBudgetMs(1200, 600_000), 360_000);
    assert.equal(insightBudgetMs(6, 1500), 1500);
    assert.equal(insightBudgetMs(null, 300_000), 300_000);
  });

  it('narrowed below the ceiling, ends the work with a 504 naming why and aborts its signal', async () => {
    const budget = startCallBudget('ai_models_video_insight', 60_000, new AbortController().signal);
    budget.narrow(100, '2 s of video');
    budget.narrow(50_000, 'never raised');
    assert.equal(budget.boundMs, 100);
    const err = await budget.within(new Promise(() => undefined)).catch((e: unknown) => e);
    budget.end();
    assert.ok(isServiceError(err));
    assert.equal(err.status, 504);
    assert.equal(err.error, 'tool_timeout');
    assert.match(err.message, /within 100 ms/);
    assert.match(err.detail, /2 s of video/);
    assert.equal(budget.signal.aborted, true);
    assert.equal(budget.signal.reason, err);
  });

  it("answers the work's own result within the bound, and follows the call's signal", async () => {
    const parent = new AbortController();
    const budget = startCallBudget('ai_models_video_insight', 60_000, parent.signal);
    assert.equal(await budget.within(Promise.resolve('done')), 'done');
    const reason = new Error('caller gone');
    parent.abort(reason);
    assert.equal(budget.signal.reason, reason);
    budget.end();
  });
});
