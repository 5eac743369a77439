// Every URL tool's examples, run through the whole app as a caller would: the example's pages are
// served on loopback as example.com, the tool fetches them through the real egress-safe fetcher,
// and the answer must fire and pass the rules the example names. Then the same call as
// format=markdown and format=json, and the credits of a fetch that failed come back. Every 200
// (the envelope, the Markdown, the bare JSON) must be what /openapi.json documents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCatalog } from '../../src/core/catalog.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { reportSchema, type Report } from '../../src/analysis/findings.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { documentedResponses, type DocumentedResponses } from '../support/documented-responses.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

const catalog = await loadCatalog();
const urlTools = catalog.tools.filter((t) => t.kind === 'url');

/** Every key of `expected` equals the same key of `actual`, recursively; arrays whole. */
function assertSubset(actual: unknown, expected: unknown, path = 'result'): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(actual !== null && typeof actual === 'object', `${path} is an object`);
    for (const [key, value] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  assert.deepEqual(actual, expected, path);
}

export function call(t: TestApp, tool: AnyTool, input: Record<string, unknown>, apiKey: string, format?: string) {
  if (tool.method === 'GET') {
    const query = Object.fromEntries(Object.entries({ ...input, ...(format ? { format } : {}) }).map(([k, v]) => [k, String(v)]));
    return t.app.inject({ method: 'GET', url: tool.path, query, headers: { 'x-api-key': apiKey } });
  }
  return t.app.inject({ method: 'POST', url: tool.path, query: format ? { format } : {}, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: JSON.stringify(input) });
}

describe('URL tools: examples are tests, through the whole app and the real fetcher', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let apiKey: string;
  let documented: DocumentedResponses;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    ({ apiKey } = await t.account({ plan: 'business', quota: 1_000_000 }));
    documented = documentedResponses((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  });
  /** What /openapi.json finds wrong with `response` as the 200 of `tool`: nothing, when the document tells the truth. */
  const problems = (tool: AnyTool, response: { statusCode: number; headers: Record<string, unknown> }, body: unknown) =>
    documented.problems({ path: tool.path, method: tool.method, status: response.statusCode, contentType: String(response.headers['content-type']), body });
  // Each closed if it was started, so a failed start cannot leave a server holding the run open.
  after(async () => {
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  it('there are URL tools, each with examples', () => {
    assert.ok(urlTools.length >= 1);
    for (const tool of urlTools) assert.ok((tool.urlExamples ?? []).length >= 1, `${tool.operationId} has examples`);
  });

  for (const tool of urlTools) {
    for (const example of tool.urlExamples ?? []) {
      it(`${tool.operationId}: ${example.title}`, async () => {
        web.serve(example.pages);
        const input = web.rewriteValue(example.input as Record<string, unknown>);
        const response = await call(t, tool, input, apiKey);
        const body = response.json();
        assert.equal(response.statusCode, 200, JSON.stringify(body).slice(0, 2000));
        assert.doesNotThrow(() => tool.output.parse(body.result), 'the output schema describes the result');
        assert.deepEqual(problems(tool, response, body), [], 'the answer is as /openapi.json documents it');
        const result = body.result as Record<string, unknown>;
        const { fires = [], passes = [], scores, result: expected } = example.expect;
        if (fires.length > 0 || passes.length > 0 || scores) {
          const report = reportSchema.parse(result['report']) as Report;
          const fired = new Set(report.findings.map((f) => f.rule));
          for (const rule of fires) assert.ok(fired.has(rule), `${rule} fires; fired: ${[...fired].join(', ') || 'none'}`);
          for (const rule of passes) {
            assert.equal(report.checks.find((c) => c.rule === rule)?.result, 'pass', `${rule} passes`);
            assert.ok(!fired.has(rule), `${rule} has no finding`);
          }
          if (scores) assertSubset(report.scores, scores, 'report.scores');
        }
        if (expected) assertSubset(result, web.rewriteValue(expected));
      });
    }

    it(`${tool.operationId}: format=markdown answers text/markdown, format=json the bare result`, async () => {
      const example = tool.urlExamples?.[0];
      assert.ok(example);
      web.serve(example.pages);
      const input = web.rewriteValue(example.input as Record<string, unknown>);
      const markdown = await call(t, tool, input, apiKey, 'markdown');
      assert.equal(markdown.statusCode, 200, markdown.body.slice(0, 500));
      assert.match(String(markdown.headers['content-type']), /^text\/markdown; charset=utf-8/);
      assert.ok(markdown.body.startsWith(`# ${tool.title}`), markdown.body.slice(0, 200));
      assert.deepEqual(problems(tool, markdown, markdown.body), [], 'the Markdown answer is as /openapi.json documents it');
      const json = await call(t, tool, input, apiKey, 'json');
      assert.equal(json.statusCode, 200);
      assert.match(String(json.headers['content-type']), /^application\/json/);
      assert.ok(json.body.includes('\n  "'), 'pretty-printed');
      assert.doesNotThrow(() => tool.output.parse(JSON.parse(json.body)));
      assert.deepEqual(problems(tool, json, JSON.parse(json.body)), [], 'the bare result of format=json is as /openapi.json documents it');
    });
  }

  it('/openapi.json documents every URL tool: its url field, format, the Markdown answer and an example', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const tool of urlTools) {
      const operation = doc.paths[tool.path]?.[tool.method.toLowerCase()];
      assert.ok(operation, `${tool.path} is documented`);
      const parameters = (operation.parameters ?? []) as { name?: string; in?: string }[];
      assert.ok(parameters.some((p) => p.name === 'format' && p.in === 'query'), `${tool.operationId} documents format`);
      const fields = Object.keys((tool.input as { shape?: Record<string, unknown> }).shape ?? {});
      if (tool.method === 'GET') for (const field of fields) assert.ok(parameters.some((p) => p.in === 'query' && p.name === field), `${tool.operationId} documents ${field}`);
      assert.ok(operation.responses['200'].content['text/markdown'], `${tool.operationId} documents text/markdown`);
      assert.ok(operation.responses['422'], `${tool.operationId} documents 422 fetch_failed`);
    }
  });

  it('answers 400 invalid_format for a format it does not know, as JSON', async () => {
    const tool = urlTools.find((x) => x.method === 'GET');
    assert.ok(tool);
    const response = await t.app.inject({ method: 'GET', url: tool.path, query: { url: 'https://example.com/', format: 'html' }, headers: { 'x-api-key': apiKey } });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error, 'invalid_format');
  });
});
