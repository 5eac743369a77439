// The document says what the server answers: to-base64 the text itself, image-metadata, csv-2-json
// and archive list the envelope with their JSON (no link), a conversion the envelope with a link.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Response200 = { description: string; content: Record<string, { examples?: Record<string, { value: { result: unknown } }> }> };

describe('file tools answers, as documented', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, { responses: Record<string, Response200> }>> };
  before(async () => {
    t = await startTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as typeof doc;
  });
  after(() => t.close());

  const ok = (path: string): Response200 => {
    const op = doc.paths[path]?.['post'];
    assert.ok(op, path);
    return op.responses['200'] as Response200;
  };

  it('to-base64 answers text/plain, and says nothing of a link', () => {
    const res = ok('/api/v1/convertors/to-base64');
    assert.deepEqual(Object.keys(res.content), ['text/plain']);
    assert.doesNotMatch(res.description, /link/i);
  });

  it('the JSON-answer tools show their JSON in the examples, never a file result', () => {
    const paths = Object.keys(doc.paths).filter((p) => /\/(image-metadata|csv-2-json)$/.test(p) || /\/archive\/list$/.test(p));
    assert.ok(paths.length >= 3, paths.join(', '));
    for (const path of paths) {
      const res = ok(path);
      assert.doesNotMatch(res.description, /download link/);
      for (const example of Object.values(res.content['application/json']?.examples ?? {})) {
        assert.equal(JSON.stringify(example.value.result).includes('downloadUrl'), false, path);
      }
    }
  });

  it('a conversion still documents its signed link', () => {
    const conversion = Object.keys(doc.paths).find((p) => p.endsWith('/to-png'));
    assert.ok(conversion);
    assert.match(ok(conversion).description, /presigned download link/);
  });
});

describe('the routes a client follows are documented', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>> };
  before(async () => {
    t = await startTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as typeof doc;
  });
  after(() => t.close());

  it('the signed download, with no key and its 403, 410 and 503 (the result store out)', () => {
    const download = doc.paths['/files/{fileId}/{fileName}']?.['get'];
    assert.ok(download);
    assert.deepEqual(download.security, []);
    assert.deepEqual(Object.keys(download.responses).sort(), ['200', '403', '410', '503']);
  });

  it("a POST JSON tool's 415", () => {
    assert.ok(doc.paths['/api/v1/calculators/emi-calculator']?.['post']?.responses['415']);
  });
});
