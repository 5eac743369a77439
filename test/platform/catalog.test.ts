import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { loadCatalog } from '../../src/core/catalog.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { documentedResponses, type DocumentedResponses } from '../support/documented-responses.ts';

const catalog = await loadCatalog();

describe('catalog metadata', () => {
  it('has every family the platform issue names, with enough tools', () => {
    const count = (family: string) => catalog.tools.filter((t) => t.family === family).length;
    assert.ok(count('calculators') >= 12, `calculators: ${count('calculators')}`);
    assert.ok(count('video-tools') >= 6, `video-tools: ${count('video-tools')}`);
    assert.ok(count('unit-conversions') >= 10, `unit-conversions: ${count('unit-conversions')}`);
    assert.ok(count('text-utilities') >= 10, `text-utilities: ${count('text-utilities')}`);
  });

  for (const tool of catalog.tools) {
    it(`${tool.operationId} is fully described`, () => {
      assert.match(tool.operationId, /^[a-z0-9]+(_[a-z0-9]+)*$/);
      assert.equal(tool.operationId, `${tool.family}_${tool.slug}`.replaceAll('-', '_'));
      assert.equal(tool.path, `/api/v1/${tool.family}/${tool.slug}`);
      assert.ok(tool.title.trim().length > 0, 'title');
      assert.ok(tool.description.trim().length >= 20, 'description of at least 20 characters');
      assert.ok(tool.examples.length + (tool.fileExamples?.length ?? 0) + (tool.urlExamples?.length ?? 0) >= 1, 'at least one example');
      if (tool.kind === 'file') assert.ok(tool.upload && tool.upload.accept.length > 0, 'a file tool names its upload field and accepted types');
      assert.ok(tool.output instanceof z.ZodType, 'an output schema');
      assert.ok(Number.isInteger(tool.credits) && tool.credits >= 1 && tool.credits <= 10, 'credits 1-10');
      // /openapi.json shows a JSON-answering file tool's facts as its example's result: the whole answer.
      if (tool.answer === 'json') {
        for (const example of tool.fileExamples ?? []) assert.doesNotThrow(() => tool.output.parse(example.expect.facts), `${example.title}: its facts are a whole answer`);
      }
    });
  }
});

describe('examples are tests: each example, through the full HTTP invoke path, returns its output', () => {
  let t: TestApp;
  let apiKey: string;
  let documented: DocumentedResponses;
  before(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ plan: 'business', quota: 1_000_000 }));
    documented = documentedResponses((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  });
  after(() => t.close());

  // File tools' examples are converted for real in each family's suite (test/<family>/), URL tools'
  // in test/analysis/url-tool-examples.test.ts, AI tools' against a provider stand-in in
  // test/ai-models/video-insight-examples.test.ts (this app has no provider).
  for (const tool of catalog.tools.filter((t) => t.uses !== 'ai')) {
    for (const example of tool.examples) {
      it(`${tool.operationId}: ${example.title}`, async () => {
        const response =
          tool.method === 'GET'
            ? await t.app.inject({ method: 'GET', url: tool.path, query: example.input as Record<string, string>, headers: { 'x-api-key': apiKey } })
            : await t.call(tool.path, example.input, apiKey);
        const body = response.json();
        assert.equal(response.statusCode, 200, JSON.stringify(body));
        assert.equal(body.status, true);
        assert.deepEqual(body.result, example.output);
        // The output schema describes what the tool really returns.
        assert.doesNotThrow(() => tool.output.parse(body.result));
        // And /openapi.json says so: the whole answer matches the documented 200.
        const answer = { path: tool.path, method: tool.method, status: response.statusCode, contentType: response.headers['content-type'], body };
        assert.deepEqual(documented.problems(answer), [], `${tool.operationId}: ${example.title} as /openapi.json documents it`);
      });
    }
  }
});
