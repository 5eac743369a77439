// poppler-utils on real PDFs made by code: text, HTML, info, bad and encrypted files.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { LibreOfficeEngine } from '../../src/engines/libreoffice.ts';
import { PopplerEngine } from '../../src/engines/poppler.ts';
import { findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { linesPdf } from '../support/fixtures.ts';

const available = (await findProgram('pdftotext')) !== null;
const haveSoffice = (await findProgram('soffice')) !== null;

describe('poppler engine', { skip: !available && 'poppler-utils not installed' }, () => {
  let dir: string;
  let engine: PopplerEngine;
  let pdf: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-poppler-test-'));
    engine = new PopplerEngine({ logger: silentLogger });
    pdf = path.join(dir, 'letter.pdf');
    await writeFile(pdf, linesPdf(['Quarterly report', 'Revenue grew (a lot)'], [612, 792]));
  });

  after(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('extracts the text, and writes it when asked', async () => {
    const output = path.join(dir, 'letter.txt');
    const text = await engine.pdfToText({ inputPath: pdf, outputPath: output });
    assert.match(text, /Quarterly report/);
    assert.match(text, /Revenue grew \(a lot\)/);
    assert.equal(await readFile(output, 'utf8'), text);
  });

  it('makes one HTML page holding the text, without the server path', async () => {
    const html = await engine.pdfToHtml({ inputPath: pdf, outputPath: path.join(dir, 'letter.html') });
    assert.match(html, /<html/i);
    assert.match(html, /Quarterly report/);
    assert.ok(!html.includes(dir), 'the temp folder does not leak into the HTML');
  });

  it('runs in a folder of its own, gone afterwards: nothing is added beside the PDF, and the HTML still names the file', async () => {
    const own = await mkdtemp(path.join(dir, 'call-'));
    const file = path.join(own, 'minutes.pdf');
    await writeFile(file, linesPdf(['Board minutes'], [612, 792]));
    const html = await engine.pdfToHtml({ inputPath: file });
    await engine.pdfToText({ inputPath: file });
    await engine.pdfInfo({ inputPath: file });
    assert.match(html, /<title>[^<]*minutes[^<]*<\/title>/i);
    assert.ok(!html.includes(own), 'the folder does not leak into the HTML');
    assert.deepEqual(await readdir(own), ['minutes.pdf']);
  });

  it('reads page count and size', async () => {
    const info = await engine.pdfInfo({ inputPath: pdf });
    assert.equal(info.pages, 1);
    assert.deepEqual(info.pageSize, { width: 612, height: 792 });
    assert.equal(info.encrypted, false);
  });

  it('answers 422 for a file that is not a PDF, and for an empty one', async () => {
    const bad = path.join(dir, 'bad.pdf');
    await writeFile(bad, 'PK\u0003\u0004 not a pdf');
    await assert.rejects(engine.pdfToText({ inputPath: bad }), (error) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 422);
      assert.equal(error.error, 'unprocessable_input');
      return true;
    });
    const empty = path.join(dir, 'empty.pdf');
    await writeFile(empty, '');
    await assert.rejects(engine.pdfToHtml({ inputPath: empty }), { status: 422 });
  });

  it('answers 422 for an encrypted PDF, and reads it with its password', { skip: !haveSoffice && 'needs LibreOffice to make an encrypted PDF' }, async () => {
    const lo = new LibreOfficeEngine({ instances: 1, logger: silentLogger, workDir: path.join(dir, 'lo') });
    const encrypted = path.join(dir, 'secret.pdf');
    try {
      const source = path.join(dir, 'secret.txt');
      await writeFile(source, 'Top secret words\n');
      await lo.convert({
        inputPath: source,
        outputPath: encrypted,
        format: 'pdf',
        inputFilter: 'Text (encoded)',
        inputFilterOptions: 'UTF8',
        filterData: { EncryptFile: true, DocumentOpenPassword: 'opensesame' },
      });
    } finally {
      await lo.close();
    }
    await assert.rejects(engine.pdfToText({ inputPath: encrypted }), (error) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 422);
      assert.match(error.message, /password/);
      return true;
    });
    assert.match(await engine.pdfToText({ inputPath: encrypted, password: 'opensesame' }), /Top secret words/);
    assert.equal((await engine.pdfInfo({ inputPath: encrypted, password: 'opensesame' })).encrypted, true);
  });

  it('reports its version', async () => {
    const status = await engine.status();
    assert.equal(status.name, 'poppler');
    assert.match(status.version ?? '', /^\d+\.\d+/);
    assert.equal(status.state, 'ready');
  });
});
