// The ebook family through the real app over HTTP: every tool's example converted from a book
// holding the example's sentence (EPUB and FB2 made by code, MOBI and AZW3 by the calibre CLI),
// downloaded by its link and read back independently (the PDF's text with pdftotext, the EPUB's
// XHTML, the calibre CLI's text of MOBI/AZW3); PDF options validated; hostile uploads answer 4xx
// JSON, the service keeps working, nothing is left behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp, workFolders } from '../support/file-app.ts';
import { json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import { epub, epubBomb, fb2, madeByCalibre, textOf } from './support/ebook-fixtures.ts';

const run = promisify(execFile);

async function bookOf(format: string, sentence: string): Promise<Buffer> {
  const book = { title: 'Sample Book', paragraphs: [sentence] };
  if (format === 'epub') return epub(book);
  if (format === 'fb2') return Buffer.from(fb2(book));
  if (format === 'mobi' || format === 'azw3') return madeByCalibre(epub(book), format);
  throw new Error(`no fixture for ${format}`);
}

describe('ebook tools over HTTP', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ebook-tools-test-'));
    ({ t, base, apiKey } = await startFileApp());
  });
  after(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('offers the spec\'s mobi-to-pdf and the issue\'s conversions, listed at /api/v1/ebook/supported-conversions', async () => {
    const slugs = t.services.catalog.tools.filter((tool) => tool.family === 'ebook').map((tool) => tool.slug).sort();
    for (const slug of ['mobi-to-pdf', 'epub-to-pdf', 'epub-to-mobi', 'mobi-to-epub', 'azw3-to-epub', 'epub-to-txt', 'fb2-to-epub']) assert.ok(slugs.includes(slug), slug);
    assert.equal(slugs.length, 13);
    const body = await json(await fetch(`${base}/api/v1/ebook/supported-conversions`));
    assert.deepEqual(body.supported_conversions.epub, ['azw3', 'mobi', 'pdf', 'txt']);
    assert.deepEqual(body.supported_conversions.mobi, ['epub', 'pdf', 'txt']);
  });

  it('converts every example, and the result holds the sentence; the answer and download are as /openapi.json documents them', async () => {
    const documented = await documentedResponsesAt(base);
    const tools = t.services.catalog.tools.filter((tool) => tool.family === 'ebook');
    for (const tool of tools) {
      for (const example of tool.fileExamples ?? []) {
        const from = tool.conversion!.from;
        const content = await bookOf(from, example.sampleText);
        const res = await upload(base, tool.path, apiKey, { name: `sample.${from}`, content }, example.input as Record<string, string>);
        const body = await json(res);
        assert.equal(res.status, 200, `${tool.operationId}: ${JSON.stringify(body)}`);
        assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), [], tool.operationId);
        assert.equal(body.result.mimeType, example.expect.mimeType);
        assert.equal(body.result.fileName, `sample.${example.expect.extension}`);
        const download = await downloadDocumented(documented, base, body, tool.operationId);
        assert.equal(download.length, body.result.sizeBytes);
        const text = (await textOf(example.expect.extension, download)).replace(/\s+/g, ' ');
        for (const expected of example.expect.contains) assert.ok(text.includes(expected), `${tool.operationId}: ${text.slice(0, 300)}`);
        if (example.expect.extension === 'pdf') {
          // The example asks for A5: 420 x 595 pt.
          const file = path.join(dir, `${tool.slug}.pdf`);
          await writeFile(file, download);
          const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec((await run('pdfinfo', [file])).stdout);
          assert.ok(size && Math.abs(Number(size[1]) - 419.5) < 2 && Math.abs(Number(size[2]) - 595.3) < 2, `${tool.operationId}: ${size?.[0]}`);
        }
      }
    }
  });

  it('answers 400 naming the field for bad PDF options, and for options a non-PDF target does not take', async () => {
    const content = await bookOf('epub', 'Options are checked first');
    for (const [route, fields, field] of [
      ['/api/v1/ebook/epub-to-pdf', { page_size: 'Napkin' }, 'page_size'],
      ['/api/v1/ebook/epub-to-pdf', { margin: 'wide' }, 'margin'],
      ['/api/v1/ebook/epub-to-pdf', { orientation: 'diagonal' }, 'orientation'],
      ['/api/v1/ebook/epub-to-txt', { page_size: 'A4' }, 'page_size'],
    ] as const) {
      const res = await upload(base, route, apiKey, { name: 'book.epub', content }, fields);
      const body = await json(res);
      assert.equal(res.status, 400, `${route}: ${JSON.stringify(body)}`);
      assert.ok(JSON.stringify(body).includes(field), JSON.stringify(body));
    }
  });

  describe('hostile files (issue 12 §8)', () => {
    async function refused(route: string, name: string, content: Buffer | string, status: number, error: string): Promise<void> {
      const res = await upload(base, route, apiKey, { name, content });
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      const body = await json(res);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(body)}`);
      assert.equal(body.error, error, `${name}: ${JSON.stringify(body)}`);
      assert.ok(!JSON.stringify(body).includes(t.dataDir), 'no server path in the answer');
    }

    it('a truncated file of each type: 422', async () => {
      for (const from of ['epub', 'mobi', 'azw3', 'fb2']) {
        const whole = await bookOf(from, 'This book was cut in half');
        const res = await upload(base, `/api/v1/ebook/${from}-to-${from === 'epub' ? 'txt' : 'epub'}`, apiKey, { name: `cut.${from}`, content: whole.subarray(0, Math.floor(whole.length / 2)) });
        const body = await json(res);
        assert.equal(res.status, 422, `${from}: ${JSON.stringify(body)}`);
        assert.equal(body.error, 'corrupt_document', `${from}: ${JSON.stringify(body)}`);
      }
    });

    it('a 0-byte file: 400 empty_file', async () => {
      await refused('/api/v1/ebook/mobi-to-pdf', 'empty.mobi', Buffer.alloc(0), 400, 'empty_file');
    });

    it('an FB2 with entities (billion laughs, external entity): 422 unsafe_document', async () => {
      const hostile = fb2({ title: 'Laughs', paragraphs: ['x'] }, { doctype: '<!DOCTYPE FictionBook [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY x SYSTEM "file:///etc/passwd">]>\n', extraBody: '<p>&b;&x;</p>' });
      await refused('/api/v1/ebook/fb2-to-epub', 'laughs.fb2', hostile, 422, 'unsafe_document');
    });

    it('an EPUB zip bomb: 422 before calibre opens it', async () => {
      await refused('/api/v1/ebook/epub-to-pdf', 'bomb.epub', epubBomb(1024), 422, 'document_bomb');
    });

    it('a MOBI named as an EPUB is read as what it is: 415 on the EPUB route', async () => {
      await refused('/api/v1/ebook/epub-to-pdf', 'book.epub', await bookOf('mobi', 'Not an EPUB at all'), 415, 'unsupported_file_type');
    });

    it('leaves the service working and no work folder behind', async () => {
      const res = await upload(base, '/api/v1/ebook/fb2-to-epub', apiKey, { name: 'after.fb2', content: await bookOf('fb2', 'Still working afterwards') });
      assert.equal(res.status, 200);
      assert.deepEqual(await workFolders(t), []);
    });
  });
});
