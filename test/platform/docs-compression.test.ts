// /openapi.json and the /docs assets go out compressed to clients that accept it (the document is
// over a megabyte of JSON); tool answers are not touched by it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('compressed docs', () => {
  let t: TestApp;
  let apiKey = '';
  before(async () => {
    t = await startTestApp();
    apiKey = (await t.account()).apiKey;
  });
  after(() => t.close());

  it('/openapi.json: brotli or gzip as asked, the same document, a fraction of the size', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: sent as it is');
    const doc = plain.json() as { openapi: string; paths: Record<string, unknown> };
    assert.ok(Object.keys(doc.paths).length > 150);
    for (const [encoding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': encoding } });
      assert.equal(res.headers['content-encoding'], encoding);
      assert.deepEqual(JSON.parse(decode(res.rawPayload).toString('utf8')), doc);
      assert.ok(res.rawPayload.length * 5 < plain.rawPayload.length, `${encoding}: ${res.rawPayload.length} of ${plain.rawPayload.length} bytes`);
    }
  });

  it('the docs page and its script bundle are compressed; a tool answer is not', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs', headers: { 'accept-encoding': 'gzip' } });
    assert.ok([200, 302].includes(page.statusCode), String(page.statusCode));
    const bundle = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(bundle.statusCode, 200);
    assert.equal(bundle.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(bundle.rawPayload).toString('utf8').slice(0, 2000), /swagger|SwaggerUI|function/i);
    const tool = await t.app.inject({ method: 'POST', url: '/api/v1/calculators/emi-calculator', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'accept-encoding': 'gzip' }, payload: { principal: 100000, rate: 10, tenure: 12 } });
    assert.equal(tool.statusCode, 200);
    assert.equal(tool.headers['content-encoding'], undefined);
    assert.equal((tool.json() as { result: { emi: number } }).result.emi, 8791.59);
  });
});

describe('the docs page as a newcomer meets it', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('is branded, searchable, and lists the getting-started calls first, every group described', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(index.statusCode, 200);
    assert.match(index.body, /<title>Utility Tool Service API<\/title>/);
    assert.doesNotMatch(index.body, /<title>Swagger UI<\/title>/);
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.match(init.body, /"filter":\s*true/);
    // The top bar shows the product's mark (inlined by the initializer), not the framework's.
    const inlined = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body);
    assert.ok(inlined, 'the logo is inlined');
    assert.match(Buffer.from(inlined[1] ?? '', 'base64').toString('utf8'), /Utility Tool Service/);
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { tags: { name: string; description: string }[]; paths: Record<string, Record<string, { description?: string }>> };
    assert.deepEqual(doc.tags.slice(0, 4).map((tag) => tag.name), ['accounts', 'api-keys', 'usage', 'catalog']);
    assert.deepEqual(doc.tags.slice(-2).map((tag) => tag.name), ['webhooks', 'mcp']);
    for (const tag of doc.tags) assert.ok(tag.description.length > 20 && !/^The \S+ tools\.$/.test(tag.description), `${tag.name}: ${tag.description}`);
    // No raw HTML left outside code spans: the docs page would read it as markup.
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const outside = (op.description ?? '').split(/`[^`]*`/).join('');
        assert.doesNotMatch(outside, /<\/?[A-Za-z!][^<>]*>/, `${method} ${path}`);
      }
    }
  });
});
