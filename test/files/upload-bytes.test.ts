// The held upload bytes (src/files/upload-bytes.ts) and the reader that serves them
// (src/files/file-reader.ts): a held file answers every read exactly as a FileHandle on the same
// bytes does, a held range streams exactly what fs.createReadStream streams, and the registry
// forgets on every path and never holds more than its bound.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { HeldFile, createRangeStream, openForReading } from '../../src/files/file-reader.ts';
import {
  HELD_UPLOAD_MAX_BYTES,
  HELD_UPLOADS_MAX_TOTAL_BYTES,
  forgetUploadBytes,
  forgetUploadBytesUnder,
  heldUploadBytes,
  heldUploadTotals,
  holdUploadBytes,
} from '../../src/files/upload-bytes.ts';
import { FilePipeline } from '../../src/files/file-pipeline.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { LinkSigner } from '../../src/files/signed-links.ts';
import * as fx from '../support/fixtures.ts';
import { minimalDocx, xxeDocx } from '../support/fixtures.ts';
import { typedSample } from '../support/documents.ts';
import { detectFileKind } from '../../src/files/file-kind.ts';
import { assertSafeDocument, type SafetyLimits } from '../../src/files/document-safety.ts';
import { ServiceError } from '../../src/core/errors.ts';

/** What a read gives, or how it fails: compared between the two readers. */
async function outcome(run: () => Promise<{ bytesRead: number; buffer: Buffer }>, buffer: Buffer): Promise<string> {
  try {
    const { bytesRead, buffer: returned } = await run();
    assert.equal(returned, buffer, 'the caller\'s own buffer comes back');
    return `read ${bytesRead}: ${buffer.toString('hex')}`;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return `throws ${e.name} ${e.code}`;
  }
}

async function drain(stream: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return chunks;
}

/** Deterministic content of `size` bytes. */
function content(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes;
}

describe('the held-upload reader answers as the disk does', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'upload-bytes-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const size of [0, 1, 10, 70_000]) {
    it(`positional reads at every edge of a ${size}-byte file: the same bytes, counts and errors as a FileHandle`, async () => {
      const bytes = content(size);
      const path = join(dir, `edges-${size}`);
      await writeFile(path, bytes);
      const real = await open(path, 'r');
      const held = new HeldFile(bytes);
      try {
        assert.equal((await held.stat()).size, (await real.stat()).size);
        const positions = [0, 1, Math.max(0, size - 1), size, size + 1, size + 5_000, Number.MAX_SAFE_INTEGER, -2, 1.5];
        const shapes: [number, number, number][] = [
          // [buffer size, offset, length]
          [16, 0, 16], [16, 0, 1], [16, 3, 5], [16, 15, 1], [16, 16, 0], [16, 17, 0], [16, 0, 0],
          [16, 0, 17], [16, 10, 7], [16, -1, 1], [16, 0, -1], [16, 1.5, 1], [0, 0, 1], [0, 0, 0], [80_000, 0, 80_000], [80_000, 100, 65_536],
        ];
        for (const position of positions) {
          for (const [bufferSize, offset, length] of shapes) {
            const a = Buffer.alloc(bufferSize, 0xaa);
            const b = Buffer.alloc(bufferSize, 0xaa);
            const fromDisk = await outcome(() => real.read(a, offset, length, position), a);
            const fromMemory = await outcome(() => held.read(b, offset, length, position), b);
            assert.equal(fromMemory, fromDisk, `size ${size}, buffer ${bufferSize}, offset ${offset}, length ${length}, position ${position}`);
          }
        }
      } finally {
        await real.close();
        await held.close();
      }
    });
  }

  it('reads from the file position (null or -1) advance it, as on a FileHandle, and positional reads do not', async () => {
    const bytes = content(100);
    const path = join(dir, 'cursor');
    await writeFile(path, bytes);
    const real = await open(path, 'r');
    const held = new HeldFile(bytes);
    try {
      const steps: [number, number | null][] = [[7, null], [5, -1], [3, 50], [40, null], [80, -1], [10, null], [4, 0], [1, null]];
      for (const [length, position] of steps) {
        const a = Buffer.alloc(length);
        const b = Buffer.alloc(length);
        assert.equal(await outcome(() => held.read(b, 0, length, position), b), await outcome(() => real.read(a, 0, length, position), a), `length ${length} at ${position}`);
      }
    } finally {
      await real.close();
    }
  });

  it('a closed reader refuses reads and stat with EBADF, as a closed FileHandle', async () => {
    const path = join(dir, 'closed');
    await writeFile(path, 'abc');
    const real = await open(path, 'r');
    await real.close();
    const held = new HeldFile(Buffer.from('abc'));
    await held.close();
    const a = Buffer.alloc(3);
    const b = Buffer.alloc(3);
    assert.equal(await outcome(() => held.read(b, 0, 3, 0), b), await outcome(() => real.read(a, 0, 3, 0), a));
    await assert.rejects(held.stat(), { code: 'EBADF' });
    await assert.rejects(real.stat(), { code: 'EBADF' });
  });

  it('a held range streams the chunks fs.createReadStream streams, edges included', async () => {
    const size = 200_000;
    const bytes = content(size);
    const path = join(dir, 'ranges');
    await writeFile(path, bytes);
    holdUploadBytes(path, bytes);
    try {
      const ranges: { start?: number; end?: number; highWaterMark?: number }[] = [
        {}, { start: 0, end: 0 }, { start: 0, end: size - 1 }, { start: 0, end: size + 10 }, { start: size - 1 }, { start: size },
        { start: size + 3, end: size + 9 }, { start: 65_535, end: 131_072 }, { start: 10, end: 99, highWaterMark: 7 }, { start: 5, highWaterMark: 65_536 },
      ];
      for (const range of ranges) {
        const disk = (await drain(createReadStream(path, range))).map((c) => c.toString('hex'));
        const memory = (await drain(createRangeStream(path, range))).map((c) => c.toString('hex'));
        assert.deepEqual(memory, disk, JSON.stringify(range));
      }
      // A start past the end is the caller's mistake, thrown at once by both.
      assert.throws(() => createReadStream(path, { start: 5, end: 4 }), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
      assert.throws(() => createRangeStream(path, { start: 5, end: 4 }), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
      // Its chunks are the reader's own: changing one leaves the held bytes as they were.
      const [first] = await drain(createRangeStream(path, { start: 0, end: 15 }));
      first!.fill(0);
      assert.equal(heldUploadBytes(path)!.subarray(0, 16).equals(content(16)), true);
    } finally {
      forgetUploadBytes(path);
    }
  });

  it('opens the disk when nothing is held, the held bytes when they are, and the disk again once they are forgotten', async () => {
    const path = join(dir, 'switch');
    await writeFile(path, 'on disk');
    const read = async () => {
      const handle = await openForReading(path);
      try {
        const buffer = Buffer.alloc((await handle.stat()).size);
        await handle.read(buffer, 0, buffer.length, 0);
        return { text: buffer.toString(), held: handle instanceof HeldFile };
      } finally {
        await handle.close();
      }
    };
    assert.deepEqual(await read(), { text: 'on disk', held: false });
    holdUploadBytes(join(dir, '.', 'switch'), Buffer.from('in memory'));
    assert.deepEqual(await read(), { text: 'in memory', held: true }, 'the same path, however it is spelt');
    forgetUploadBytes(path);
    assert.deepEqual(await read(), { text: 'on disk', held: false });
  });
});

describe('typing and the safety checks decide the same from held bytes as from the disk', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'upload-bytes-verdicts-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const docx = minimalDocx(['A sample paragraph']);
  const corpus: Record<string, Buffer> = {
    ...Object.fromEntries(['txt', 'html', 'csv', 'rtf', 'pdf', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'doc', 'xls', 'ppt', 'png'].map((kind) => [kind, typedSample(kind).content])),
    'xxe docx': xxeDocx(),
    'bomb docx (100 MB)': fx.docxBomb({ gigabytes: 0.1 }),
    'bomb docx lying about its size': fx.docxBomb({ gigabytes: 0.1, lie: true }),
    'overlapping docx': fx.overlappingDocx(4, 0.25),
    'encrypted OOXML (OLE2)': fx.encryptedOoxmlLike(),
    'encrypted legacy doc': fx.legacyDoc({ encrypted: true }),
    'encrypted pdf': fx.encryptedPdf(),
    'encrypted odt': fx.minimalOdt(['secret'], { encrypted: true }),
    ...Object.fromEntries([4, 30, 200, Math.floor(docx.length / 2), docx.length - 23, docx.length - 1].map((keep) => [`docx cut to ${keep} bytes`, fx.truncated(docx, keep)])),
    'gif': fx.gif(),
    'empty': Buffer.alloc(0),
  };
  /** Tight limits as well as the defaults, so that the streaming checks refuse small files too. */
  const limitSets: Partial<SafetyLimits>[] = [{}, { maxRatio: 2, ratioFloorBytes: 64 }, { maxPartBytes: 512 }, { maxUncompressedBytes: 1000 }, { maxEntries: 2 }];

  async function verdict(path: string, limits: Partial<SafetyLimits>): Promise<string> {
    const detected = await detectFileKind(path);
    try {
      await assertSafeDocument(path, detected.kind, limits);
      return `${JSON.stringify(detected)} passes`;
    } catch (error) {
      assert.ok(error instanceof ServiceError, String(error));
      return `${JSON.stringify(detected)} refused ${error.status} ${error.error}: ${error.detail}`;
    }
  }

  for (const [name, bytes] of Object.entries(corpus)) {
    it(name, async () => {
      assert.ok(bytes.length <= HELD_UPLOAD_MAX_BYTES, `${bytes.length} bytes: small enough to be held`);
      const path = join(dir, `${name.replace(/\W+/g, '-')}-upload`);
      for (const limits of limitSets) {
        await writeFile(path, bytes);
        const fromDisk = await verdict(path, limits);
        // Held, with the file gone from the disk: a read that went there would fail.
        holdUploadBytes(path, bytes);
        await rm(path);
        try {
          assert.equal(await verdict(path, limits), fromDisk, JSON.stringify(limits));
        } finally {
          forgetUploadBytes(path);
        }
      }
    });
  }
});

describe('the held-upload registry', () => {
  afterEach(() => {
    forgetUploadBytesUnder('/');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });

  it('holds up to HELD_UPLOAD_MAX_BYTES per upload; a larger one is not held and drops an earlier hold of its path', () => {
    assert.equal(holdUploadBytes('/w/a/upload', Buffer.alloc(HELD_UPLOAD_MAX_BYTES)), true);
    assert.deepEqual(heldUploadTotals(), { uploads: 1, bytes: HELD_UPLOAD_MAX_BYTES });
    assert.equal(holdUploadBytes('/w/a/upload', Buffer.alloc(HELD_UPLOAD_MAX_BYTES + 1)), false);
    assert.equal(heldUploadBytes('/w/a/upload'), undefined);
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });

  it('a second hold of a path replaces the first, counted once', () => {
    holdUploadBytes('/w/a/upload', Buffer.from('first'));
    holdUploadBytes('/w/a/upload', Buffer.from('second!'));
    assert.equal(heldUploadBytes('/w/a/upload')!.toString(), 'second!');
    assert.deepEqual(heldUploadTotals(), { uploads: 1, bytes: 7 });
  });

  it('forgets by path and by work folder, and only there', () => {
    holdUploadBytes('/w/a/upload', Buffer.from('a'));
    holdUploadBytes('/w/ab/upload', Buffer.from('ab'));
    holdUploadBytes('/w/b/upload', Buffer.from('b'));
    forgetUploadBytes('/w/b/other');
    assert.equal(heldUploadTotals().uploads, 3);
    forgetUploadBytesUnder('/w/a');
    assert.equal(heldUploadBytes('/w/a/upload'), undefined);
    assert.equal(heldUploadBytes('/w/ab/upload')?.toString(), 'ab', 'a folder whose name merely starts the same is another folder');
    forgetUploadBytes('/w/b/upload');
    assert.deepEqual(heldUploadTotals(), { uploads: 1, bytes: 2 });
  });

  it('never holds more than HELD_UPLOADS_MAX_TOTAL_BYTES: the oldest go first', () => {
    const per = HELD_UPLOAD_MAX_BYTES;
    const count = HELD_UPLOADS_MAX_TOTAL_BYTES / per + 5;
    for (let i = 0; i < count; i++) {
      holdUploadBytes(`/w/${i}/upload`, Buffer.alloc(per - (i % 3)));
      assert.ok(heldUploadTotals().bytes <= HELD_UPLOADS_MAX_TOTAL_BYTES, `after ${i + 1} holds`);
    }
    assert.equal(heldUploadBytes('/w/0/upload'), undefined, 'the oldest was forgotten');
    assert.ok(heldUploadBytes(`/w/${count - 1}/upload`) !== undefined, 'the newest is held');
    // The survivors are the newest ones, in one unbroken run.
    const kept = Array.from({ length: count }, (_, i) => heldUploadBytes(`/w/${i}/upload`) !== undefined);
    const firstKept = kept.indexOf(true);
    assert.ok(firstKept > 0 && kept.slice(firstKept).every(Boolean), kept.join(','));
  });
});

describe('the file pipeline forgets held bytes on every way out', () => {
  let root: string;
  let files: FilePipeline;
  const tool = { operationId: 'docx-to-pdf', upload: { field: 'file', accept: ['docx'] } };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'upload-bytes-pipeline-'));
    files = new FilePipeline({
      workRoot: join(root, 'work'),
      store: {} as FileStore,
      signer: new LinkSigner('x'.repeat(32)),
      publicBaseUrl: 'http://localhost',
      urlTtlSeconds: 60,
      retentionMs: 60_000,
      outputLimitBytes: 1_000_000,
    });
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** A work folder with `bytes` written as its upload and held, as the REST reader leaves it. */
  async function received(bytes: Buffer) {
    const dir = await files.createWorkDir();
    const path = join(dir, 'upload');
    await writeFile(path, bytes);
    assert.equal(holdUploadBytes(path, bytes), true);
    return { dir, upload: { path, sizeBytes: bytes.length, originalName: 'a.docx' } };
  }

  it('when the call ends after its checks passed and its tool ran (doneWith), not before', async () => {
    const { dir, upload } = await received(minimalDocx(['fine']));
    const inspected = await files.inspect(tool, upload);
    assert.equal(inspected.kind, 'docx');
    assert.ok(heldUploadBytes(upload.path), 'held between typing and the checks');
    await files.assertSafe(inspected);
    // The tool runs now, and its engine's own zip check (engines/zip-guard.ts) reads them too.
    assert.ok(heldUploadBytes(upload.path), 'held while the tool runs');
    files.doneWith(upload);
    assert.equal(heldUploadBytes(upload.path), undefined);
    await files.removeWorkDir(dir);
  });

  it('after the safety checks refuse the file', async () => {
    const { dir, upload } = await received(xxeDocx());
    const inspected = await files.inspect(tool, upload);
    await assert.rejects(files.assertSafe(inspected), { status: 422 });
    assert.equal(heldUploadBytes(upload.path), undefined);
    await files.removeWorkDir(dir);
  });

  it('when typing refuses the file (wrong kind, empty)', async () => {
    const { dir, upload } = await received(Buffer.from('plain text, not a docx'));
    await assert.rejects(files.inspect(tool, upload), { status: 415 });
    assert.equal(heldUploadBytes(upload.path), undefined);
    const empty = await received(Buffer.alloc(0));
    await assert.rejects(files.inspect(tool, { ...empty.upload, sizeBytes: 0 }), { status: 400 });
    assert.equal(heldUploadBytes(empty.upload.path), undefined);
    await files.removeWorkDir(dir);
    await files.removeWorkDir(empty.dir);
  });

  it('when the call ends before its checks (doneWith) and when its work folder is removed', async () => {
    const first = await received(minimalDocx(['a']));
    files.doneWith(first.upload);
    assert.equal(heldUploadBytes(first.upload.path), undefined);
    files.doneWith(undefined);
    const second = await received(minimalDocx(['b']));
    await files.removeWorkDir(second.dir);
    assert.equal(heldUploadBytes(second.upload.path), undefined);
    await files.removeWorkDir(first.dir);
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });
});
