// Typing uploads by content (magic bytes, ZIP central directory, OLE2 directory), never by name,
// and the minimal ZIP reader underneath.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectFileKind, kindMatches, type AcceptedKind, type FileDetection } from '../../src/files/file-kind.ts';
import { ZipError, listZipEntries, readEntry, streamEntry } from '../../src/files/zip-inspect.ts';
import * as fx from '../support/fixtures.ts';

let dir = '';
let counter = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-kind-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `data` to a temp file; the name is deliberately unrelated to the content. */
async function file(data: Buffer | string, name = `upload-${++counter}.bin`): Promise<string> {
  const path = join(dir, `${++counter}-${name}`);
  await writeFile(path, data);
  return path;
}

async function detect(data: Buffer | string, name?: string): Promise<FileDetection> {
  return detectFileKind(await file(data, name));
}

async function zipError(promise: Promise<unknown>): Promise<ZipError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ZipError, `expected a ZipError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ZipError');
}

describe('detectFileKind: Office and OpenDocument packages', () => {
  it('types a docx, xlsx, pptx and odt by their content', async () => {
    assert.deepEqual(await detect(fx.minimalDocx(['Hello'])), {
      kind: 'docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    assert.deepEqual(await detect(fx.minimalXlsx([['a', 1]])), {
      kind: 'xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    assert.deepEqual(await detect(fx.minimalPptx(['One', 'Two'])), {
      kind: 'pptx',
      mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    });
    assert.deepEqual(await detect(fx.minimalOdt(['Hello'])), { kind: 'odt', mimeType: 'application/vnd.oasis.opendocument.text' });
  });

  it('types ODF spreadsheets, presentations and EPUB by the stored mimetype entry', async () => {
    const odf = (mimetype: string) =>
      fx.zip([
        { name: 'mimetype', data: mimetype, method: 0 },
        { name: 'content.xml', data: '<x/>' },
      ]);
    assert.equal((await detect(odf('application/vnd.oasis.opendocument.spreadsheet'))).kind, 'ods');
    assert.equal((await detect(odf('application/vnd.oasis.opendocument.presentation'))).kind, 'odp');
    assert.equal((await detect(odf('application/vnd.oasis.opendocument.text'))).kind, 'odt');
    assert.deepEqual(await detect(odf('application/epub+zip')), { kind: 'epub', mimeType: 'application/epub+zip' });
    assert.equal((await detect(odf('application/vnd.oasis.opendocument.graphics'))).kind, 'zip');
    const manifestOnly = fx.zip([
      {
        name: 'META-INF/manifest.xml',
        data: '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>',
      },
      { name: 'content.xml', data: '<x/>' },
    ]);
    assert.equal((await detect(manifestOnly)).kind, 'ods');
  });

  it('calls any other ZIP a zip, including one with Office-like names but no [Content_Types].xml', async () => {
    assert.deepEqual(await detect(fx.zip([{ name: 'readme.txt', data: 'hi' }])), { kind: 'zip', mimeType: 'application/zip' });
    assert.equal((await detect(fx.zip([{ name: 'word/document.xml', data: '<w:document/>' }]))).kind, 'zip');
    assert.equal((await detect(fx.zip([]))).kind, 'zip');
  });

  it('falls back to [Content_Types].xml when the main part has another name', async () => {
    const types =
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/main.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
    const detected = await detect(fx.zip([{ name: '[Content_Types].xml', data: types }, { name: 'word/main.xml', data: '<w:document/>' }]));
    assert.equal(detected.kind, 'docx');
  });

  it('flags macros, encrypted entries and encrypted ODF packages', async () => {
    const docm = fx.zip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'word/document.xml', data: '<w:document/>' },
      { name: 'word/vbaProject.bin', data: Buffer.alloc(64) },
    ]);
    assert.equal((await detect(docm)).macros, true);
    const locked = fx.zip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'word/document.xml', data: 'xxxxxxxx', encryptedFlag: true },
    ]);
    assert.deepEqual(await detect(locked), { kind: 'docx', mimeType: (await detect(fx.minimalDocx([]))).mimeType, encrypted: true });
    assert.equal((await detect(fx.minimalOdt(['secret'], { encrypted: true }))).encrypted, true);
    assert.equal((await detect(fx.minimalOdt(['open']))).encrypted, undefined);
  });

  it('still names a truncated docx a docx (marked corrupt) so the safety check can say what is wrong', async () => {
    const docx = fx.minimalDocx(['Hello', 'World']);
    const detected = await detect(fx.truncated(docx, docx.length - 30));
    assert.equal(detected.kind, 'docx');
    assert.equal(detected.corrupt, true);
    const early = await detect(fx.truncated(docx, 200));
    assert.equal(early.corrupt, true);
    assert.ok(early.kind === 'docx' || early.kind === 'zip', early.kind);
  });

  it('never throws on damaged archives', async () => {
    const docx = fx.minimalDocx(['Hello', 'World']);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 150; i++) {
      const damaged = Buffer.from(docx);
      for (let j = 0; j < 4; j++) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
      const detected = await detect(damaged);
      assert.ok(typeof detected.kind === 'string');
    }
  });
});

describe('detectFileKind: OLE2', () => {
  it('recognises a password-protected OOXML file (EncryptedPackage) in version 3 and 4 containers', async () => {
    for (const version of [3, 4] as const) {
      assert.deepEqual(await detect(fx.encryptedOoxmlLike({ version })), {
        kind: 'ole2',
        mimeType: 'application/x-ole-storage',
        oleType: 'encrypted-ooxml',
        encrypted: true,
      });
    }
  });

  it('recognises a legacy Word file and its encryption flag', async () => {
    assert.deepEqual(await detect(fx.legacyDoc()), { kind: 'ole2', mimeType: 'application/msword', oleType: 'doc' });
    assert.equal((await detect(fx.legacyDoc({ version: 4 }))).oleType, 'doc');
    assert.equal((await detect(fx.legacyDoc({ encrypted: true }))).encrypted, true);
  });

  it('finds EncryptedPackage by scanning when the directory is damaged', async () => {
    const damaged = fx.encryptedOoxmlLike();
    damaged.writeUInt32LE(0x7fffffff, 0x30); // first directory sector: far outside the file
    const detected = await detect(damaged);
    assert.equal(detected.kind, 'ole2');
    assert.equal(detected.encrypted, true);
    assert.equal(detected.corrupt, true);
  });

  it('types by the streams at the root, not those of an embedded object', async () => {
    const embeddedWord = { name: 'MBD0001', children: [{ name: 'WordDocument', data: Buffer.alloc(4096) }, { name: '1Table', data: Buffer.alloc(10) }] };
    const xls = fx.ole2([{ name: 'Workbook', data: Buffer.from([0x09, 0x08, 0x00, 0x00]) }, embeddedWord]);
    assert.deepEqual(await detect(xls), { kind: 'ole2', mimeType: 'application/vnd.ms-excel', oleType: 'xls' });
    assert.equal((await detect(fx.ole2([embeddedWord]))).oleType, 'other');
  });

  it('calls an OLE2 file without known streams "other"', async () => {
    assert.equal((await detect(fx.ole2([{ name: 'Something', data: Buffer.alloc(10) }]))).oleType, 'other');
  });
});

describe('detectFileKind: PDF, RTF, images, text', () => {
  it('types a PDF and flags an /Encrypt trailer entry', async () => {
    assert.deepEqual(await detect(fx.minimalPdf('Hi')), { kind: 'pdf', mimeType: 'application/pdf' });
    assert.deepEqual(await detect(fx.encryptedPdf()), { kind: 'pdf', mimeType: 'application/pdf', encrypted: true });
  });

  it('finds /Encrypt in the trailer of a large PDF, past the head', async () => {
    const pdf = fx.encryptedPdf();
    const padded = Buffer.concat([pdf.subarray(0, 15), Buffer.from(`%${'x'.repeat(300_000)}\n`), pdf.subarray(15)]);
    assert.equal((await detect(padded)).encrypted, true);
    const plain = fx.minimalPdf();
    const big = Buffer.concat([plain.subarray(0, 15), Buffer.from(`%${'x'.repeat(300_000)}\n`), plain.subarray(15)]);
    assert.equal((await detect(big)).encrypted, undefined);
  });

  it('types RTF and images by their signatures', async () => {
    assert.deepEqual(await detect(fx.rtf('Hello')), { kind: 'rtf', mimeType: 'application/rtf' });
    assert.deepEqual(await detect(fx.png()), { kind: 'png', mimeType: 'image/png' });
    assert.deepEqual(await detect(fx.jpegSignature()), { kind: 'jpeg', mimeType: 'image/jpeg' });
    assert.deepEqual(await detect(fx.gif()), { kind: 'gif', mimeType: 'image/gif' });
    assert.deepEqual(await detect(fx.webpSignature()), { kind: 'webp', mimeType: 'image/webp' });
  });

  it('ignores the file name: a PNG named report.docx is a PNG', async () => {
    const detected = await detect(fx.png(), 'report.docx');
    assert.equal(detected.kind, 'png');
    assert.equal(kindMatches('docx', detected), false);
  });

  it('types zero bytes as empty', async () => {
    assert.deepEqual(await detect(Buffer.alloc(0)), { kind: 'empty', mimeType: 'application/x-empty' });
  });

  it('types valid UTF-8 without NUL bytes as text, with or without a BOM', async () => {
    assert.deepEqual(await detect('Hello, world\n'), { kind: 'text', mimeType: 'text/plain' });
    assert.deepEqual(await detect('\uFEFFname,qty\napples,3\n'), { kind: 'text', mimeType: 'text/plain' });
    assert.equal((await detect('# Title\n\nSome *markdown* with ünïcödé and emoji 🎉\n')).kind, 'text');
    assert.equal((await detect('short')).kind, 'text');
  });

  it('allows a multibyte character cut at the 64 KB boundary, but not a cut at the end of the file', async () => {
    const text = Buffer.concat([Buffer.alloc(65535, 'a'), Buffer.from('€ and more text')]); // € is 3 bytes at 65535..65537
    assert.equal((await detect(text)).kind, 'text');
    assert.equal((await detect(Buffer.concat([Buffer.from('abc'), Buffer.from('€').subarray(0, 2)]))).kind, 'unknown');
  });

  it('types invalid UTF-8, NUL bytes and binary junk as unknown', async () => {
    assert.deepEqual(await detect(Buffer.from('caf\xe9 latin-1', 'latin1')), { kind: 'unknown', mimeType: 'application/octet-stream' });
    assert.equal((await detect(Buffer.from('text\0with a NUL'))).kind, 'unknown');
    assert.equal((await detect(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x80]))).kind, 'unknown');
  });

  it('flags HTML documents and fragments', async () => {
    const html = async (s: string) => (await detect(s)).isHtml === true;
    assert.equal(await html('<!DOCTYPE html><html><body>Hi</body></html>'), true);
    assert.equal(await html('<!doctype HTML>\n<title>x</title>'), true);
    assert.equal(await html('\uFEFF  \n<!-- generated -->\n<html lang="en">'), true);
    assert.equal(await html('<?xml version="1.0"?>\n<!-- c --><html xmlns="http://www.w3.org/1999/xhtml">'), true);
    assert.equal(await html('<head><meta charset="utf-8"></head>'), true);
    assert.equal(await html('<body>hi</body>'), true);
    assert.equal(await html('Some intro\n<p>A paragraph</p>'), true);
    assert.equal(await html('<div class="x">fragment</div>'), true);
    assert.equal(await html('<h1>Title</h1>'), true);
    assert.equal(await html('# Markdown\n\nNo tags here, just a < b and c > d.'), false);
    assert.equal(await html('plain text'), false);
    assert.equal((await detect('<p>x</p>')).kind, 'text');
    assert.deepEqual(await detect('<!DOCTYPE html><html></html>'), { kind: 'text', mimeType: 'text/html', isHtml: true });
    assert.deepEqual(await detect('<p>x</p>'), { kind: 'text', mimeType: 'text/plain', isHtml: true });
  });
});

describe('kindMatches', () => {
  const d = (kind: FileDetection['kind'], extra: Partial<FileDetection> = {}): FileDetection => ({ kind, mimeType: 'x', ...extra });
  const cases: [AcceptedKind, FileDetection, boolean][] = [
    ['docx', d('docx'), true],
    ['docx', d('zip'), false],
    ['docx', d('png'), false],
    ['docx', d('ole2', { oleType: 'encrypted-ooxml', encrypted: true }), true],
    ['docx', d('ole2', { oleType: 'doc' }), false],
    ['xlsx', d('xlsx'), true],
    ['xlsx', d('docx'), false],
    ['pptx', d('pptx'), true],
    ['doc', d('ole2', { oleType: 'doc' }), true],
    ['doc', d('ole2', { oleType: 'other' }), true],
    ['doc', d('ole2', { oleType: 'xls' }), false],
    ['doc', d('ole2', { oleType: 'encrypted-ooxml', encrypted: true }), false],
    ['doc', d('docx'), false],
    ['xls', d('ole2', { oleType: 'xls' }), true],
    ['ppt', d('ole2', { oleType: 'ppt' }), true],
    ['ppt', d('ole2'), true],
    ['odt', d('odt'), true],
    ['ods', d('odt'), false],
    ['odp', d('odp'), true],
    ['epub', d('epub'), true],
    ['rtf', d('rtf'), true],
    ['rtf', d('text'), false],
    ['pdf', d('pdf'), true],
    ['pdf', d('text'), false],
    ['txt', d('text'), true],
    ['txt', d('text', { isHtml: true }), true],
    ['md', d('text'), true],
    ['csv', d('text'), true],
    ['html', d('text', { isHtml: true }), true],
    ['html', d('text'), true],
    ['txt', d('empty'), false],
    ['txt', d('unknown'), false],
    ['html', d('pdf'), false],
  ];
  for (const [accepted, detected, expected] of cases) {
    it(`${accepted} ${expected ? 'accepts' : 'rejects'} ${detected.kind}${detected.oleType ? ` (${detected.oleType})` : ''}${detected.isHtml ? ' (html)' : ''}`, () => {
      assert.equal(kindMatches(accepted, detected), expected);
    });
  }

  it('takes a bare kind too', () => {
    assert.equal(kindMatches('pdf', 'pdf'), true);
    assert.equal(kindMatches('xls', 'ole2'), true);
  });
});

describe('zip-inspect', () => {
  it('lists entries with methods, sizes and offsets, and reads them back', async () => {
    const path = await file(
      fx.zip([
        { name: 'stored.txt', data: 'stored content', method: 0 },
        { name: 'deflated.txt', data: 'deflated '.repeat(100) },
        { name: 'dir/', data: '', method: 0 },
      ]),
    );
    const { entries, zip64 } = await listZipEntries(path);
    assert.equal(zip64, false);
    assert.deepEqual(
      entries.map((e) => [e.name, e.method, e.uncompressedSize, e.encrypted, e.isDirectory]),
      [
        ['stored.txt', 0, 14, false, false],
        ['deflated.txt', 8, 900, false, false],
        ['dir/', 0, 0, false, true],
      ],
    );
    assert.equal(entries[0]!.localHeaderOffset, 0);
    assert.ok(entries[1]!.compressedSize < 900);
    assert.equal((await readEntry(path, entries[0]!, 1000)).toString(), 'stored content');
    assert.equal((await readEntry(path, entries[1]!, 1000)).toString(), 'deflated '.repeat(100));
  });

  it('reads ZIP64 archives', async () => {
    const path = await file(fx.zip([{ name: 'a.xml', data: '<a/>' }, { name: 'b.bin', data: Buffer.alloc(5000, 1), method: 0 }], { zip64: true }));
    const { entries, zip64 } = await listZipEntries(path);
    assert.equal(zip64, true);
    assert.deepEqual(entries.map((e) => [e.name, e.uncompressedSize]), [['a.xml', 4], ['b.bin', 5000]]);
    assert.equal((await readEntry(path, entries[0]!, 100)).toString(), '<a/>');
    assert.equal((await readEntry(path, entries[1]!, 5000)).length, 5000);
  });

  it('finds the end record behind an archive comment and copes with a prepended stub', async () => {
    const path = await file(fx.zip([{ name: 'x.txt', data: 'x' }], { comment: 'PK\x05\x06 looks like a signature', prefix: Buffer.alloc(1000, 0x4d) }));
    const { entries, prefixBytes } = await listZipEntries(path);
    assert.equal(prefixBytes, 1000);
    assert.equal((await readEntry(path, entries[0]!, 10)).toString(), 'x');
  });

  it('stops inflating at maxBytes whatever the entry declares', async () => {
    const path = await file(fx.docxBomb({ lie: true }));
    const { entries } = await listZipEntries(path);
    const part = entries.find((e) => e.name === 'word/document.xml')!;
    assert.equal(part.uncompressedSize, 4096);
    const error = await zipError(readEntry(path, part, 1024 * 1024));
    assert.equal(error.code, 'too_large');
    let seen = 0;
    await zipError(streamEntry(path, part, 2 * 1024 * 1024, (chunk) => (seen += chunk.length)));
    assert.ok(seen <= 2 * 1024 * 1024);
  });

  it('rejects entries whose content disagrees with the directory: size, CRC, deflate data', async () => {
    const lying = await file(fx.zip([{ name: 'a.txt', data: 'a'.repeat(100), declaredSize: 10 }]));
    assert.equal((await zipError(readEntry(lying, (await listZipEntries(lying)).entries[0]!, 1000))).code, 'corrupt');

    const stored = fx.zip([{ name: 'a.txt', data: 'hello world', method: 0 }]);
    const first = 30 + 'a.txt'.length; // the first data byte
    stored.writeUInt8(stored.readUInt8(first) ^ 0xff, first);
    const badCrc = await file(stored);
    assert.match((await zipError(readEntry(badCrc, (await listZipEntries(badCrc)).entries[0]!, 100))).message, /CRC/);

    const deflated = fx.zip([{ name: 'a.txt', data: 'some text that deflates '.repeat(20) }]);
    const entry = (await listZipEntries(await file(deflated))).entries[0]!;
    for (let i = 0; i < entry.compressedSize; i++) deflated[30 + 'a.txt'.length + i] = 0xff;
    const garbage = await file(deflated);
    assert.equal((await zipError(readEntry(garbage, entry, 10_000))).code, 'corrupt');
  });

  it('refuses encrypted entries and unsupported methods', async () => {
    const locked = await file(fx.zip([{ name: 'a.txt', data: 'x', encryptedFlag: true }]));
    const entry = (await listZipEntries(locked)).entries[0]!;
    assert.equal(entry.encrypted, true);
    assert.equal((await zipError(readEntry(locked, entry, 10))).code, 'encrypted');

    const bzip = await file(fx.zip([{ name: 'a.txt', data: 'x' }]));
    const e = (await listZipEntries(bzip)).entries[0]!;
    assert.equal((await zipError(readEntry(bzip, { ...e, method: 12 }, 10))).code, 'unsupported_method');
  });

  it('reports truncated and non-ZIP files as truncated', async () => {
    const docx = fx.minimalDocx(['Hello']);
    for (const keep of [10, 200, docx.length - 100, docx.length - 1]) {
      const error = await zipError(listZipEntries(await file(fx.truncated(docx, keep))));
      assert.ok(['truncated', 'corrupt'].includes(error.code), `${keep}: ${error.code}`);
    }
    assert.equal((await zipError(listZipEntries(await file('not a zip at all, just text that is long enough')))).code, 'truncated');
  });

  it('refuses archives with more entries than allowed', async () => {
    const path = await file(fx.zip(Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, data: '' }))));
    assert.equal((await zipError(listZipEntries(path, { maxEntries: 5 }))).code, 'too_many_entries');
    assert.equal((await listZipEntries(path, { maxEntries: 6 })).entries.length, 6);
  });
});
