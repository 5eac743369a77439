// Ebook fixtures made by code: an EPUB (a zip with its mimetype first) and an FB2 (XML) holding a
// known sentence; MOBI and AZW3 are made from the EPUB by the calibre CLI, once per test file.
// Results are read back by independent means: pdftotext for PDF, the EPUB's XHTML, and the calibre
// CLI's own text output for MOBI/AZW3.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { constants, crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { escapeXml, zip } from '../../support/fixtures.ts';

const run = promisify(execFile);

export interface BookText {
  title: string;
  paragraphs: readonly string[];
  /** raw XHTML put in the chapter's body as it is (hostile content) */
  rawBody?: string;
}

/** A valid EPUB 2 with one chapter. */
export function epub(book: BookText): Buffer {
  const body = book.paragraphs.map((p) => `<p>${escapeXml(p)}</p>`).join('') + (book.rawBody ?? '');
  return zip([
    { name: 'mimetype', data: 'application/epub+zip', method: 0 },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    },
    {
      name: 'OEBPS/content.opf',
      data: `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" unique-identifier="id" version="2.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${escapeXml(book.title)}</dc:title><dc:identifier id="id">urn:uuid:6b3c4b57-57d4-4f6e-9a3f-0d3c2a1b9e11</dc:identifier><dc:language>en</dc:language></metadata><manifest><item id="c1" href="chapter.xhtml" media-type="application/xhtml+xml"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest><spine toc="ncx"><itemref idref="c1"/></spine></package>`,
    },
    {
      name: 'OEBPS/toc.ncx',
      data: `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head><meta name="dtb:uid" content="urn:uuid:6b3c4b57-57d4-4f6e-9a3f-0d3c2a1b9e11"/></head><docTitle><text>${escapeXml(book.title)}</text></docTitle><navMap><navPoint id="p1" playOrder="1"><navLabel><text>Chapter</text></navLabel><content src="chapter.xhtml"/></navPoint></navMap></ncx>`,
    },
    {
      name: 'OEBPS/chapter.xhtml',
      data: `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${escapeXml(book.title)}</title></head><body><h1>${escapeXml(book.title)}</h1>${body}</body></html>`,
    },
  ]);
}

/** A FictionBook 2 document; `doctype` goes before the root (entities, for hostile files). */
export function fb2(book: BookText, options: { doctype?: string; extraBody?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${options.doctype ?? ''}<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><genre>prose</genre><author><first-name>Test</first-name><last-name>Author</last-name></author><book-title>${escapeXml(book.title)}</book-title><lang>en</lang></title-info></description><body><section><title><p>${escapeXml(book.title)}</p></title>${book.paragraphs.map((p) => `<p>${escapeXml(p)}</p>`).join('')}${options.extraBody ?? ''}</section></body></FictionBook>`;
}

/** Converts with the calibre CLI (outside the service), for fixtures and independent reading. */
export async function calibreCli(input: string, output: string, args: readonly string[] = []): Promise<void> {
  await run('ebook-convert', [input, output, ...args], {
    env: { ...process.env, QTWEBENGINE_DISABLE_SANDBOX: '1', QTWEBENGINE_CHROMIUM_FLAGS: '--no-sandbox', QT_QPA_PLATFORM: 'offscreen' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** An ebook made from `source` (EPUB bytes) by the calibre CLI, as `format`. */
export async function madeByCalibre(source: Buffer, format: 'mobi' | 'azw3'): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ebook-fixture-'));
  try {
    await writeFile(path.join(dir, 'in.epub'), source);
    await calibreCli(path.join(dir, 'in.epub'), path.join(dir, `out.${format}`));
    return await readFile(path.join(dir, `out.${format}`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of a result, read independently of the engine under test. */
export async function textOf(format: string, content: Buffer): Promise<string> {
  if (format === 'txt') return content.toString('utf8');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ebook-read-'));
  try {
    const file = path.join(dir, `book.${format}`);
    await writeFile(file, content);
    if (format === 'pdf') return (await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).stdout;
    if (format === 'epub') return epubText(content);
    await calibreCli(file, path.join(dir, 'book.txt'));
    return await readFile(path.join(dir, 'book.txt'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of every (X)HTML entry of an EPUB, tags dropped; also checks the mimetype entry comes first. */
export function epubText(content: Buffer): string {
  if (content.toString('latin1', 30, 38) !== 'mimetype') throw new Error('not an EPUB: mimetype is not the first entry');
  const texts: string[] = [];
  let at = 0;
  while (at + 30 <= content.length && content.readUInt32LE(at) === 0x04034b50) {
    const method = content.readUInt16LE(at + 8);
    const flags = content.readUInt16LE(at + 6);
    let compressed = content.readUInt32LE(at + 18);
    const nameLength = content.readUInt16LE(at + 26);
    const extraLength = content.readUInt16LE(at + 28);
    const name = content.toString('utf8', at + 30, at + 30 + nameLength);
    const start = at + 30 + nameLength + extraLength;
    if (flags & 0x08) {
      // Sizes follow the data: find the data descriptor's signature.
      const end = content.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), start);
      compressed = end - start;
      at = end + 16;
    } else {
      at = start + compressed;
    }
    if (/\.x?html?$/i.test(name)) {
      const data = content.subarray(start, start + compressed);
      texts.push((method === 8 ? inflateRawSync(data) : data).toString('utf8').replace(/<[^>]+>/g, ' '));
    }
  }
  return texts.join('\n').replace(/\s+/g, ' ');
}

/**
 * An EPUB (mimetype first, so it is typed as one) whose chapter inflates to `megabytes` of spaces:
 * a few hundred KB on the wire.
 */
export function epubBomb(megabytes = 1024): Buffer {
  const block = Buffer.alloc(1024 * 1024, 0x20);
  const flush = { finishFlush: constants.Z_FULL_FLUSH };
  const deflated = deflateRawSync(block, flush);
  const pieces: Buffer[] = [];
  let crc = 0;
  for (let i = 0; i < megabytes; i++) {
    pieces.push(deflated);
    crc = crc32(block, crc);
  }
  pieces.push(deflateRawSync(Buffer.alloc(0)));
  return zip([
    { name: 'mimetype', data: 'application/epub+zip', method: 0 },
    { name: 'META-INF/container.xml', data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="chapter.xhtml" media-type="application/oebps-package+xml"/></rootfiles></container>' },
    { name: 'chapter.xhtml', data: '', precompressed: { data: Buffer.concat(pieces), crc32: crc, size: megabytes * block.length } },
  ]);
}
