// The calibre engine on ebooks made by code (EPUB, FB2) and by the calibre CLI (MOBI, AZW3): every
// conversion the ebook family offers, read back independently (pdftotext, the EPUB's XHTML, the
// calibre CLI's text), the PDF page options, and bad input (cut files, empty, external entities,
// a zip bomb, references to host files).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ServiceError } from '../../src/core/errors.ts';
import { CalibreEngine, type EbookInput, type EbookOutput } from '../../src/engines/calibre.ts';
import { silentLogger } from '../../src/engines/engine-types.ts';
import { epub, epubBomb, fb2, madeByCalibre, textOf } from './support/ebook-fixtures.ts';

const run = promisify(execFile);
const SENTENCE = 'The lighthouse keeper counted seven ships before dawn';
const BOOK = { title: 'Harbour Log', paragraphs: [SENTENCE, 'A second paragraph about the tide.'] };

describe('calibre engine', () => {
  let dir: string;
  let engine: CalibreEngine;
  const sources = {} as Record<EbookInput, string>;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ebook-calibre-test-'));
    engine = new CalibreEngine({ logger: silentLogger });
    const book = epub(BOOK);
    sources.epub = path.join(dir, 'book.epub');
    await writeFile(sources.epub, book);
    sources.fb2 = path.join(dir, 'book.fb2');
    await writeFile(sources.fb2, fb2(BOOK));
    for (const format of ['mobi', 'azw3'] as const) {
      sources[format] = path.join(dir, `book.${format}`);
      await writeFile(sources[format], await madeByCalibre(book, format));
    }
  });

  after(async () => {
    await engine?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reports its version', async () => {
    const probe = await engine.availability();
    assert.equal(probe.ok, true);
    assert.match(probe.ok ? probe.version : '', /^\d+\.\d+/);
  });

  const pairs: [EbookInput, EbookOutput][] = [
    ['mobi', 'pdf'], ['epub', 'pdf'], ['epub', 'mobi'], ['mobi', 'epub'], ['azw3', 'epub'], ['epub', 'txt'], ['fb2', 'epub'],
  ];
  for (const [from, to] of pairs) {
    it(`${from} to ${to} keeps the text`, async () => {
      const output = path.join(dir, `${from}-to-${to}.${to}`);
      await engine.convert({ inputPath: sources[from], from, outputPath: output, to });
      const text = (await textOf(to, await readFile(output))).replace(/\s+/g, ' ');
      assert.ok(text.includes(SENTENCE), `${from}->${to}: ${text.slice(0, 300)}`);
      // Nothing of the engine's working folder is left beside the output.
      assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith('calibre-')), []);
    });
  }

  it('lays the PDF out on the page size, orientation and margins asked for', async () => {
    const output = path.join(dir, 'a5-landscape.pdf');
    await engine.convert({ inputPath: sources.epub, from: 'epub', outputPath: output, to: 'pdf', page: { pageSize: 'A5', orientation: 'landscape', margin: '30mm' } });
    const info = (await run('pdfinfo', [output])).stdout;
    const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
    assert.ok(size, info);
    // A5 landscape: 210 x 148 mm = 595.3 x 419.5 pt.
    assert.ok(Math.abs(Number(size[1]) - 595.3) < 2 && Math.abs(Number(size[2]) - 419.5) < 2, `${size[1]} x ${size[2]}`);
    const bbox = (await run('pdftotext', ['-bbox', output, '-'])).stdout;
    const xMin = Math.min(...[...bbox.matchAll(/xMin="([\d.]+)"/g)].map((m) => Number(m[1])).filter((x) => x > 0));
    // 30 mm is 85 pt: no word starts left of the margin.
    assert.ok(xMin >= 80, `leftmost word at ${xMin} pt`);
  });

  it('answers 422 for an empty file and for cut ones', async () => {
    const empty = path.join(dir, 'empty.epub');
    await writeFile(empty, '');
    await assert.rejects(engine.convert({ inputPath: empty, from: 'epub', outputPath: path.join(dir, 'empty.pdf'), to: 'pdf' }), (e: unknown) => e instanceof ServiceError && e.status === 422);
    for (const from of ['epub', 'mobi', 'azw3', 'fb2'] as const) {
      const whole = await readFile(sources[from]);
      const cut = path.join(dir, `cut.${from}`);
      await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 3)));
      await assert.rejects(engine.convert({ inputPath: cut, from, outputPath: path.join(dir, `cut-${from}.epub`), to: 'epub' }), (e: unknown) => {
        assert.ok(e instanceof ServiceError, String(e));
        assert.equal(e.status, 422, `${from}: ${e.message}`);
        assert.ok(!e.detail.includes(dir), e.detail);
        return true;
      }, from);
    }
  });

  it('reads no external entity of an FB2 and no host file an EPUB points at', async () => {
    const secretDir = await mkdtemp(path.join(os.tmpdir(), 'ebook-secret-'));
    const secret = path.join(secretDir, 'secret.txt');
    await writeFile(secret, 'TOPSECRET-CALIBRE-4711');
    try {
      const xxe = path.join(dir, 'xxe.fb2');
      await writeFile(xxe, fb2(BOOK, { doctype: `<!DOCTYPE FictionBook [<!ENTITY leak SYSTEM "file://${secret}">]>\n`, extraBody: '<p>&leak;</p>' }));
      const xxeOut = path.join(dir, 'xxe.epub');
      await engine.convert({ inputPath: xxe, from: 'fb2', outputPath: xxeOut, to: 'epub' }).catch((e: unknown) => assert.ok(e instanceof ServiceError && e.status === 422, String(e)));
      const xxeText = await readFile(xxeOut).then((b) => textOf('epub', b), () => '');
      assert.ok(!xxeText.includes('TOPSECRET'), 'the entity was not resolved');

      const linking = path.join(dir, 'linking.epub');
      await writeFile(linking, epub({ ...BOOK, rawBody: `<img src="file://${secret}"/><iframe src="file://${secret}"></iframe><object data="file://${secret}"></object><p><a href="file://${secret}">x</a></p>` }));
      const pdf = path.join(dir, 'linking.pdf');
      await engine.convert({ inputPath: linking, from: 'epub', outputPath: pdf, to: 'pdf' });
      const text = await textOf('pdf', await readFile(pdf));
      assert.ok(text.includes(SENTENCE));
      assert.ok(!text.includes('TOPSECRET'), 'no host file was rendered');
    } finally {
      await rm(secretDir, { recursive: true, force: true });
    }
  });

  it('refuses an EPUB that would inflate past the zip limits before calibre opens it', async () => {
    const bomb = path.join(dir, 'bomb.epub');
    await writeFile(bomb, epubBomb(1024));
    await assert.rejects(engine.convert({ inputPath: bomb, from: 'epub', outputPath: path.join(dir, 'bomb.pdf'), to: 'pdf' }), (e: unknown) => e instanceof ServiceError && e.status === 422 && /expands to more than the server accepts/.test(e.message));
  });
});
