// A mistyped tool path answers as MCP's unknown_tool does: 404 unknown_tool naming the nearest
// tools' paths, so a client can correct itself; a path that is no tool path stays not_found.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('REST: a mistyped tool slug suggests the near tools', () => {
  let t: TestApp;
  let apiKey = '';
  before(async () => {
    t = await startTestApp();
    apiKey = (await t.account()).apiKey;
  });
  after(() => t.close());

  it('names the tool meant for a misspelt slug, in the detail and in suggestions', async () => {
    const res = await t.call('/api/v1/seo-apis/meta-tag-analyser', { url: 'https://example.com/' }, apiKey);
    assert.equal(res.statusCode, 404);
    const body = res.json() as { code: number; error: string; message: string; detail: string; suggestions: string[] };
    assert.equal(body.error, 'unknown_tool');
    assert.match(body.message, /No tool at \/api\/v1\/seo-apis\/meta-tag-analyser/);
    const suggestions = body.suggestions;
    assert.equal(suggestions[0], '/api/v1/seo-apis/meta-tags-analyzer');
    assert.ok(suggestions.length <= 3);
    assert.match(body.detail, /Did you mean \/api\/v1\/seo-apis\/meta-tags-analyzer/);
  });

  it('a family typo finds the tool too; a path that is no tool path stays not_found', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/calculator/emi-calculator', headers: { 'x-api-key': apiKey } });
    assert.equal(res.statusCode, 404);
    const body = res.json() as { error: string; suggestions: string[] };
    assert.equal(body.error, 'unknown_tool');
    assert.ok(body.suggestions.includes('/api/v1/calculators/emi-calculator'));
    const other = await t.app.inject({ method: 'GET', url: '/nothing/here' });
    assert.equal(other.statusCode, 404);
    assert.equal((other.json() as { error: string }).error, 'not_found');
  });
});
