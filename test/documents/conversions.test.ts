import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import { extractText, sourceFile } from '../support/documents.ts';

/**
 * Examples are tests for file tools too: for every conversion, a source file of the accepted
 * format holding the example's sample text is generated, converted through HTTP, downloaded by
 * its presigned link, and its text read back by independent means (pdftotext, the OOXML XML).
 */
describe('every conversion example, through HTTP, yields a file holding the sample text', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  before(async () => {
    ({ t, base, apiKey } = await startFileApp());
  });
  after(() => t?.close());

  it('covers the documents (25) and office (8+) families', () => {
    const count = (family: string) => t.services.catalog.tools.filter((tool) => tool.family === family && tool.kind === 'file').length;
    assert.equal(count('documents'), 25);
    assert.ok(count('office') >= 8, `office: ${count('office')}`);
  });

  it('documents its conversions at /api/v1/<family>/supported-conversions, derived from the catalog', async () => {
    const res = await fetch(`${base}/api/v1/documents/supported-conversions`);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.deepEqual(body.supported_conversions.docx, ['html', 'md', 'odt', 'pdf', 'txt']);
    assert.deepEqual(body.supported_conversions.pdf, ['docx', 'html', 'txt']);
    const pairs = Object.values(body.supported_conversions as Record<string, string[]>).flat().length;
    assert.equal(pairs, 25);
    assert.equal(body.limits.maxUploadBytes, 100 * 1024 * 1024);
    assert.equal(body.limits.downloadUrlValiditySeconds, 3600);
    assert.equal(typeof body.message, 'string');
    const office = await json(await fetch(`${base}/api/v1/office/supported-conversions`));
    assert.deepEqual(office.supported_conversions.pptx, ['pdf', 'txt']);
  });

  for (const family of ['documents', 'office']) {
    it(`converts every ${family} example; the answer and download are as /openapi.json documents them`, async () => {
      const documented = await documentedResponsesAt(base);
      const tools = (await import('../../src/core/catalog.ts')).loadCatalog().then((c) => c.tools.filter((tool) => tool.family === family && tool.kind === 'file'));
      for (const tool of await tools) {
        for (const example of tool.fileExamples ?? []) {
          const source = await sourceFile(tool.upload!.accept[0]!, example.sampleText);
          const fields = Object.fromEntries(Object.entries(example.input as Record<string, string>));
          const res = await upload(base, tool.path, apiKey, { name: source.name, content: source.content }, fields);
          const body = await json(res);
          assert.equal(res.status, 200, `${tool.operationId}: ${JSON.stringify(body)}`);
          assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), [], tool.operationId);
          assert.equal(body.result.mimeType, example.expect.mimeType, tool.operationId);
          assert.equal(body.result.fileName, `sample.${example.expect.extension}`, tool.operationId);
          const content = await downloadDocumented(documented, base, body, tool.operationId);
          assert.equal(content.length, body.result.sizeBytes, tool.operationId);
          const text = await extractText(example.expect.extension, content);
          for (const expected of example.expect.contains) {
            assert.ok(text.includes(expected), `${tool.operationId}: the result holds "${expected}"; it holds: ${text.slice(0, 400)}`);
          }
        }
      }
    });
  }
});
