// The AI tools' catalog examples are tests: each runs through the whole app against a Gemini
// stand-in answering the example's text and tokens, and the answer must be the example's output
// (all of it but elapsedMs, the time taken), in the spec's video-insight envelope. The catalog's
// own example suite (test/platform/catalog.test.ts) runs without a provider, so not these.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadCatalog } from '../../src/core/catalog.ts';
import { insightSuite } from './support/insight-suite.ts';

const aiTools = (await loadCatalog()).tools.filter((t) => t.uses === 'ai');

type InsightOutput = { text: string; meta: { tokens: { input: number; output: number; total: number }; elapsedMs: number } & Record<string, unknown> };

describe('AI tools: examples are tests, against a provider stand-in', () => {
  const ai = insightSuite({ provider: 'gemini', key: 'examples-key', account: { plan: 'business', quota: 100_000 } });

  it('there are AI tools, each with examples', () => {
    assert.ok(aiTools.length >= 1);
    for (const tool of aiTools) assert.ok(tool.examples.length >= 1, tool.operationId);
  });

  for (const tool of aiTools) {
    for (const example of tool.examples) {
      it(`${tool.operationId}: ${example.title}`, async () => {
        const expected = example.output as InsightOutput;
        ai.provider.answer = expected.text;
        ai.provider.tokens = expected.meta.tokens;
        const response = await ai.t.call(tool.path, example.input, ai.apiKey);
        const body = response.json();
        assert.equal(response.statusCode, 200, JSON.stringify(body));
        assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'meta', 'result', 'retryAfterSeconds', 'status']);
        assert.equal(body.result, expected.text);
        assert.deepEqual({ ...body.meta, elapsedMs: expected.meta.elapsedMs }, expected.meta);
        assert.doesNotThrow(() => tool.output.parse({ text: body.result, meta: body.meta }));
        assert.equal(Number(response.headers['x-credits-remaining']), 100_000 - (expected.meta['credits'] as number));
      });
    }
  }
});
