import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { ServiceError } from '../../src/core/errors.ts';
import { checkZipBomb } from '../../src/engines/zip-guard.ts';
import { HELD_UPLOAD_MAX_BYTES, forgetUploadBytes, forgetUploadBytesUnder, heldUploadTotals, holdUploadBytes } from '../../src/files/upload-bytes.ts';
import type { ZipSafetyLimits } from '../../src/files/zip-limits.ts';
import { docxBomb, minimalDocx, overlappingDocx, truncated, zip } from '../support/fixtures.ts';

const is422 = (error: unknown): boolean => error instanceof ServiceError && error.status === 422;

describe('checkZipBomb', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-zip-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string, data: Buffer | string): Promise<string> => {
    const p = path.join(dir, name);
    await writeFile(p, data);
    return p;
  };
  it('lets a normal docx and a non-zip file through', async () => {
    await checkZipBomb(await file('ok.docx', minimalDocx(['hello'])));
    await checkZipBomb(await file('plain.txt', 'just text'));
  });

  it('refuses a docx whose XML inflates past the limit', async () => {
    // 64 MiB of XML deflates to ~64 KiB; the limit is set below it.
    const xml = Buffer.alloc(64 * 1024 * 1024, '<w:p/>');
    const bomb = await file('bomb.docx', zip([{ name: 'word/document.xml', data: xml }]));
    assert.ok(deflateRawSync(xml).length < 1024 * 1024);
    await assert.rejects(checkZipBomb(bomb, { maxUncompressedBytes: 32 * 1024 * 1024 }), is422);
  });

  it('refuses a zip declaring gigabytes', async () => {
    const liar = await file('liar.docx', zip([{ name: 'word/document.xml', data: '<x/>', declaredSize: 3_000_000_000 }]));
    await assert.rejects(checkZipBomb(liar), is422);
  });

  it('refuses a truncated zip', async () => {
    const whole = minimalDocx(['hello world']);
    const truncated = await file('truncated.docx', whole.subarray(0, Math.floor(whole.length / 2)));
    await assert.rejects(checkZipBomb(truncated), is422);
  });
});

// A small REST upload's bytes stay held in memory while its tool runs (src/files/upload-bytes.ts);
// the guard reads them through src/files/file-reader.ts as the upload checks do. Held bytes are
// judged with the file gone from the disk (a read that went there would fail with ENOENT) or
// with other bytes on the disk, so a verdict can only have come from memory.
describe('checkZipBomb on a held upload', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-zip-held-'));
  });
  afterEach(() => {
    forgetUploadBytesUnder(dir);
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** What the guard answers: passes, or the refusal a caller reads; any other error by name and code. */
  async function verdict(file: string, limits?: Partial<ZipSafetyLimits>): Promise<string> {
    try {
      await checkZipBomb(file, limits);
      return 'passes';
    } catch (error) {
      if (error instanceof ServiceError) return `${error.status} ${error.error}: ${error.message} | ${error.detail}`;
      const e = error as NodeJS.ErrnoException;
      return `throws ${e.name} ${e.code}`;
    }
  }

  const docx = minimalDocx(['held']);
  const xml = Buffer.alloc(64 * 1024 * 1024, '<w:p/>');
  /** The docx with its first central header's signature broken: a damaged, not a truncated, zip. */
  const badCentral = Buffer.from(docx);
  badCentral.writeUInt32LE(0x09024b50, badCentral.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])));
  const entries = (n: number) => zip(Array.from({ length: n }, (_, i) => ({ name: `word/part${i}.xml`, data: '<x/>' })));
  const inputs: Record<string, Buffer> = {
    'a docx': docx,
    'plain text': Buffer.from('just text'),
    'empty': Buffer.alloc(0),
    '3 bytes of a zip head': Buffer.from('PK\x03'),
    'a local header alone': Buffer.from('PK\x03\x04'),
    'a self-extractor (a stub before the zip)': zip([{ name: 'a.txt', data: 'a' }], { prefix: Buffer.from('MZ stub') }),
    'an XML bomb (64 MiB deflated)': zip([{ name: 'word/document.xml', data: xml }]),
    'a 0.1 GB docx bomb': docxBomb({ gigabytes: 0.1 }),
    'a 0.5 GB docx bomb': docxBomb({ gigabytes: 0.5 }),
    'a damaged central directory': badCentral,
    'a docx bomb lying about its size': docxBomb({ gigabytes: 0.1, lie: true }),
    'a zip declaring gigabytes': zip([{ name: 'word/document.xml', data: '<x/>', declaredSize: 3_000_000_000 }]),
    'a zip64 container': zip([{ name: 'word/document.xml', data: '<x/>' }], { zip64: true }),
    'overlapping entries': overlappingDocx(4, 0.25),
    'forty entries': entries(40),
    ...Object.fromEntries([5, 30, Math.floor(docx.length / 2), docx.length - 22, docx.length - 1].map((keep) => [`a docx cut to ${keep} bytes`, truncated(docx, keep)])),
  };
  const limitSets: Partial<ZipSafetyLimits>[] = [{}, { maxUncompressedBytes: 32 * 1024 * 1024 }, { maxUncompressedBytes: 1000 }, { maxEntries: 2 }];

  it('answers as from the disk for every input and limit: the same pass, the same refusal', async () => {
    const refusals = new Set<string>();
    for (const [name, bytes] of Object.entries(inputs)) {
      assert.ok(bytes.length <= HELD_UPLOAD_MAX_BYTES, `${name}: ${bytes.length} bytes, small enough to be held`);
      const file = path.join(dir, `${name.replace(/\W+/g, '-')}-upload`);
      for (const limits of limitSets) {
        await writeFile(file, bytes);
        const fromDisk = await verdict(file, limits);
        assert.doesNotMatch(fromDisk, /^throws/, `${name}: from the disk`);
        assert.equal(holdUploadBytes(file, bytes), true);
        await rm(file);
        try {
          assert.equal(await verdict(file, limits), fromDisk, `${name} ${JSON.stringify(limits)}`);
        } finally {
          forgetUploadBytes(file);
        }
        if (fromDisk !== 'passes') refusals.add(fromDisk.replace(/ \|.*/, ''));
      }
    }
    // The inputs reach every answer the guard has: a pass and each of its refusals.
    assert.deepEqual([...refusals].sort(), [
      '422 unprocessable_input: The document expands to more than the server accepts (a zip bomb?)',
      '422 unprocessable_input: The document is too large to convert',
      '422 unprocessable_input: The file is a damaged zip container',
      '422 unprocessable_input: The file is a damaged zip container (truncated?)',
    ]);
  });

  it('judges the held bytes, not the file on disk', async () => {
    const bomb = zip([{ name: 'word/document.xml', data: xml }]);
    const text = Buffer.from('plain text, not a zip');
    const limits = { maxUncompressedBytes: 32 * 1024 * 1024 };
    const file = path.join(dir, 'swapped-upload');
    // A bomb on disk, text held: the held text is checked, and text is no zip.
    await writeFile(file, bomb);
    await assert.rejects(checkZipBomb(file, limits), is422);
    holdUploadBytes(file, text);
    await checkZipBomb(file, limits);
    holdUploadBytes(file, docx);
    await checkZipBomb(file, limits);
    // And the other way round: text on disk, the bomb held.
    await writeFile(file, text);
    holdUploadBytes(file, bomb);
    await assert.rejects(checkZipBomb(file, limits), is422);
    forgetUploadBytes(file);
    await checkZipBomb(file, limits);
  });

  it('refuses a held zip bomb as it refuses one on disk', async () => {
    const file = path.join(dir, 'bomb-upload');
    // Past the default limit (300 MiB): the engines' own setting unless config says otherwise.
    const bomb = docxBomb({ gigabytes: 0.5 });
    await writeFile(file, bomb);
    const fromDisk = await verdict(file);
    assert.match(fromDisk, /^422 unprocessable_input: The document expands to more than the server accepts \(a zip bomb\?\)/);
    holdUploadBytes(file, bomb);
    await rm(file);
    assert.equal(await verdict(file), fromDisk);
    await assert.rejects(checkZipBomb(file), (error: unknown) => is422(error) && (error as ServiceError).detail.includes('declared uncompressed size over'));
  });

  it('reads a file that is not held from the disk: one too large to hold, or forgotten', async () => {
    const file = path.join(dir, 'large-upload');
    const bomb = zip([{ name: 'word/document.xml', data: xml }]);
    const limits = { maxUncompressedBytes: 32 * 1024 * 1024 };
    await writeFile(file, bomb);
    // Past HELD_UPLOAD_MAX_BYTES nothing is held (as the REST reader does for a large upload):
    // the bomb on disk is what the guard sees.
    const large = Buffer.concat([docx, Buffer.alloc(HELD_UPLOAD_MAX_BYTES + 1 - docx.length)]);
    assert.equal(holdUploadBytes(file, large), false);
    await assert.rejects(checkZipBomb(file, limits), is422);
    assert.deepEqual(await readFile(file), bomb);
    // Held and then forgotten (the call has ended): the disk again.
    holdUploadBytes(file, docx);
    await checkZipBomb(file, limits);
    forgetUploadBytes(file);
    await assert.rejects(checkZipBomb(file, limits), is422);
    // Nothing held and nothing on disk: the disk's own error, as before.
    await rm(file);
    assert.equal(await verdict(file), 'throws Error ENOENT');
  });
});
