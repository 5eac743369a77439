// Ebook kinds by content (files/kinds/ebook.ts): MOBI and AZW3 made by the calibre CLI are told
// apart by the MOBI header's version, FB2 by its root; other XML and Palm files are not ebooks;
// the safety check refuses cut files and an FB2 with a DOCTYPE.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ebookFiles } from '../../src/files/kinds/ebook.ts';
import { detectWith, refusedWith } from '../support/file-kinds.ts';
import { epub, fb2, madeByCalibre } from './support/ebook-fixtures.ts';

const BOOK = { title: 'Kinds', paragraphs: ['A sentence to carry.'] };

const detect = (file: string): Promise<string | undefined> => detectWith(ebookFiles, file);

describe('ebook file kinds', () => {
  let dir: string;
  const files: Record<string, string> = {};
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ebook-kinds-test-'));
    const book = epub(BOOK);
    for (const format of ['mobi', 'azw3'] as const) {
      files[format] = path.join(dir, `book-${format}.bin`);
      await writeFile(files[format], await madeByCalibre(book, format));
    }
    files.fb2 = path.join(dir, 'book.xml');
    await writeFile(files.fb2, fb2(BOOK));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('recognises MOBI, AZW3 and FB2 by content', async () => {
    assert.equal(await detect(files.mobi!), 'mobi');
    assert.equal(await detect(files.azw3!), 'azw3');
    assert.equal(await detect(files.fb2!), 'fb2');
    const withBom = path.join(dir, 'bom.fb2');
    await writeFile(withBom, `\uFEFF${fb2(BOOK)}`);
    assert.equal(await detect(withBom), 'fb2');
  });

  it('takes no other XML, Palm file or EPUB for these kinds', async () => {
    const palmDoc = Buffer.alloc(100);
    palmDoc.write('TEXtREAd', 60, 'latin1');
    for (const [name, content] of [
      ['svg.fb2', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'],
      ['mention.fb2', '<html><body>&lt;FictionBook&gt; is a format</body></html>'],
      ['palmdoc.mobi', palmDoc],
      ['book.mobi', epub(BOOK)],
    ] as const) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      assert.equal(await detect(file), undefined, name);
    }
  });

  it('passes whole files and refuses cut ones', async () => {
    for (const kind of ['mobi', 'azw3', 'fb2'] as const) {
      await ebookFiles.assertSafe!(files[kind]!, kind, undefined as never);
      const { readFile } = await import('node:fs/promises');
      const whole = await readFile(files[kind]!);
      const cut = path.join(dir, `cut-${kind}`);
      await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 2)));
      await assert.rejects(ebookFiles.assertSafe!(cut, kind, undefined as never), refusedWith('corrupt_document'), kind);
    }
  });

  it('refuses an FB2 that declares entities (billion laughs, external entities)', async () => {
    const laughs = path.join(dir, 'laughs.fb2');
    await writeFile(laughs, fb2(BOOK, { doctype: '<!DOCTYPE FictionBook [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n', extraBody: '<p>&b;</p>' }));
    assert.equal(await detect(laughs), 'fb2');
    await assert.rejects(ebookFiles.assertSafe!(laughs, 'fb2', undefined as never), refusedWith('unsafe_document'));
  });
});
