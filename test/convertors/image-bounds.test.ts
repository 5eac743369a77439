// The image engine's output is bounded like its input, its pool is sized by cores, and its EXIF
// walk is bounded: hostile images generated here, through the real app over HTTP. A 64 x 64 PNG
// resized to 16384 x 16384 (268 megapixels), a 1-pixel-wide PNG resized to the widest width, and a
// rotation that takes a picture at the limit past it are refused before any work (422
// image_too_large, naming the requested and the allowed size; no image job starts); a 24 KB JPEG
// with 2,000 EXIF entries of count 0xFFFFFFFF is read within the walk's bounds; and another
// account's conversion still runs while a flooder sends all of these.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.ts';
import { MAX_ENTRIES, MAX_ENTRIES_PER_IFD, readExif } from '../../src/engines/image-exif.ts';
import { plannedOutputSize } from '../../src/engines/image-output-size.ts';
import { runImageJob } from '../../src/engines/image-process.ts';
import type { JobStart } from '../../src/engines/supervisor.ts';
import { startFileApp, type FileApp } from '../support/file-app.ts';
import { json, upload } from '../support/http.ts';
import { inspect, solidImage } from './support/images.ts';

/** The pixel limit of this suite's app: a megapixel, so a picture at the limit is small to make. */
const MAX_PIXELS = 1_000_000;
const RESIZE = '/api/v1/convertors/resize';
const ROTATE = '/api/v1/convertors/rotate';
const TO_PNG = '/api/v1/convertors/to-png';
const METADATA = '/api/v1/convertors/image-metadata';

/** A TIFF block of one IFD holding `entries` entries, each of type `type` declaring 0xFFFFFFFF values. */
function exifBomb(entries: number, type = 4): Buffer {
  const tiff = Buffer.alloc(8 + 2 + entries * 12 + 4);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(entries, 8);
  for (let i = 0; i < entries; i++) {
    const at = 10 + i * 12;
    tiff.writeUInt16LE(0x9000 + (i % 0x6000), at);
    tiff.writeUInt16LE(type, at + 2);
    tiff.writeUInt32LE(0xffffffff, at + 4);
    tiff.writeUInt32LE(8, at + 8);
  }
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
}

/** A small JPEG carrying `exif` as its APP1 segment, right after SOI. */
async function jpegWithExif(exif: Buffer): Promise<Buffer> {
  const jpeg = await solidImage('jpeg', 64, 64, [200, 30, 30]);
  const marker = Buffer.alloc(4);
  marker.writeUInt16BE(0xffe1, 0);
  marker.writeUInt16BE(exif.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), marker, exif, jpeg.subarray(2)]);
}

describe('image output bounds, pool size and the EXIF walk', () => {
  let app: FileApp;
  const starts: JobStart[] = [];
  before(async () => {
    app = await startFileApp({ env: { IMAGE_MAX_PIXELS: String(MAX_PIXELS), IMAGE_WORKERS: '2' } });
    app.t.services.engines.image.supervisor.onJobStart((job) => starts.push(job));
  });
  after(async () => {
    await app?.t.close();
  });

  async function refusedTooLarge(path: string, content: Buffer, fields: Record<string, string>, requested: { width: number; height: number }): Promise<void> {
    const res = await upload(app.base, path, app.apiKey, { name: 'in.png', content }, fields);
    const body = await json(res);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.equal(body.error, 'image_too_large');
    assert.deepEqual(body.requested, { ...requested, frames: 1, pixels: requested.width * requested.height }, JSON.stringify(body));
    assert.equal(body.maxPixels, MAX_PIXELS);
    assert.match(body.detail, new RegExp(`${requested.width} x ${requested.height} pixels`));
    assert.match(body.detail, /at most 1,000,000 pixels are written \(IMAGE_MAX_PIXELS\)/);
  }

  it('refuses a resize whose result is over the pixel limit before any image job starts: a box, one side, a ratio kept outside', async () => {
    const small = await solidImage('png', 64, 64, [10, 120, 200]);
    const sliver = await solidImage('png', 1, 4096, [10, 120, 200]);
    const before = starts.length;
    await refusedTooLarge(RESIZE, small, { width: '16384', height: '16384', fit: 'fill' }, { width: 16384, height: 16384 });
    await refusedTooLarge(RESIZE, small, { width: '16384' }, { width: 16384, height: 16384 });
    // One side within 16384, the other follows the ratio: 1 x 4096 to width 300 is 300 x 1,228,800.
    await refusedTooLarge(RESIZE, sliver, { width: '300' }, { width: 300, height: 1_228_800 });
    await refusedTooLarge(RESIZE, small, { width: '2000', height: '10', fit: 'outside' }, { width: 2000, height: 2000 });
    assert.equal(starts.length, before, 'no image job started for a refused result');
  });

  it('refuses a rotation that takes a picture at the limit past it, and still rotates by quarter turns', async () => {
    const atLimit = await solidImage('png', 1000, 1000, [30, 160, 60]);
    await refusedTooLarge(ROTATE, atLimit, { angle: '45' }, { width: 1415, height: 1415 });
    const res = await upload(app.base, ROTATE, app.apiKey, { name: 'in.png', content: atLimit }, { angle: '90' });
    assert.equal(res.status, 200, JSON.stringify(await json(res)));
  });

  it('resizes within the limit as before (the boundary itself included)', async () => {
    const small = await solidImage('png', 64, 32, [200, 30, 30]);
    const res = await upload(app.base, RESIZE, app.apiKey, { name: 'in.png', content: small }, { width: '1000', height: '1000', fit: 'inside' });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    const out = Buffer.from(await (await fetch(body.result.downloadUrl.replace(/^https?:\/\/[^/]+/, app.base))).arrayBuffer());
    const facts = await inspect(out);
    assert.deepEqual([facts.width, facts.height], [1000, 500]);
    await refusedTooLarge(RESIZE, small, { width: '1001', height: '1000', fit: 'fill' }, { width: 1001, height: 1000 });
    const exact = await upload(app.base, RESIZE, app.apiKey, { name: 'in.png', content: small }, { width: '1000', height: '1000', fit: 'fill' });
    assert.equal(exact.status, 200, JSON.stringify(await json(exact)));
  });

  it('the worker checks the result again with the decoder\'s own header (a second line behind the parent)', async () => {
    const dir = app.t.dataDir;
    const input = `${dir}/worker-check.png`;
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#123456' } }).png().toFile(input);
    await assert.rejects(
      runImageJob({ op: 'convert', inputPath: input, inputKind: 'png', outputPath: `${dir}/worker-check-out.png`, format: 'png', resize: { width: 16384, height: 16384, fit: 'fill' }, limits: { maxPixels: MAX_PIXELS, maxFrames: 10 } }),
      (error: Error & { code?: string }) => error.code === 'image_too_large' && /16384 x 16384 pixels/.test(error.message),
    );
    assert.deepEqual(plannedOutputSize({ width: 100, height: 50 }, { rotate: 90, resize: { height: 10, fit: 'inside' } }), { width: 5, height: 10 });
  });

  it('reads a 24 KB JPEG with 2,000 EXIF entries of count 0xFFFFFFFF within the walk\'s bounds, and converts it', async () => {
    const bomb = await jpegWithExif(exifBomb(2000));
    assert.ok(bomb.length < 30_000, `${bomb.length} bytes`);
    const res = await upload(app.base, METADATA, app.apiKey, { name: 'exif.jpg', content: bomb });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
    assert.deepEqual([body.result.width, body.result.height], [64, 64]);
    // No value of 2^32 - 1 items is read: nothing of the bomb's entries shows.
    assert.equal(Object.keys(body.result.exif ?? {}).length, 0);
    const png = await upload(app.base, TO_PNG, app.apiKey, { name: 'exif.jpg', content: bomb });
    assert.equal(png.status, 200, JSON.stringify(await json(png)));
  });

  it('bounds the walk itself: entries per IFD and in all, and counts that do not fit the block', () => {
    const fits = exifBomb(2000, 4);
    // Give the first 600 entries one value each (it fits in the entry): the walk reads MAX_ENTRIES_PER_IFD of them.
    const tiff = fits.subarray(6);
    for (let i = 0; i < 600; i++) tiff.writeUInt32LE(1, 10 + i * 12 + 4);
    const read = readExif(fits);
    assert.ok(read);
    assert.equal(Object.keys(read).length, MAX_ENTRIES_PER_IFD);
    assert.ok(MAX_ENTRIES_PER_IFD <= MAX_ENTRIES);
    for (const type of [1, 2, 3, 5, 7, 10, 12]) assert.deepEqual(readExif(exifBomb(2000, type)), {}, `type ${type}`);
  });

  it("sizes the image pool by cores, and another account's conversion runs while a flooder sends the bombs", async () => {
    const cores = availableParallelism();
    assert.equal(loadConfig({}).engines.image.IMAGE_WORKERS, Math.min(8, Math.max(2, Math.floor(cores / 2))));
    assert.equal((await app.t.services.engines.image.status()).concurrency, 2);

    const flooder = await app.t.account({ plan: 'pro', quota: 10_000 });
    const other = await app.t.account({ plan: 'pro', quota: 10_000 });
    const small = await solidImage('png', 64, 64, [10, 120, 200]);
    const exif = await jpegWithExif(exifBomb(2000));
    const first = starts.length;
    const flood = [
      ...Array.from({ length: 6 }, () => upload(app.base, RESIZE, flooder.apiKey, { name: 'bomb.png', content: small }, { width: '16384', height: '16384', fit: 'fill' })),
      ...Array.from({ length: 4 }, () => upload(app.base, METADATA, flooder.apiKey, { name: 'exif.jpg', content: exif })),
    ];
    const res = await upload(app.base, TO_PNG, other.apiKey, { name: 'mine.jpg', content: await solidImage('jpeg', 32, 32, [1, 2, 3]) });
    assert.equal(res.status, 200, JSON.stringify(await json(res)));
    const answers = await Promise.all(flood.map(async (pending) => (await pending).status));
    assert.deepEqual(answers.slice(0, 6), [422, 422, 422, 422, 422, 422]);
    for (const status of answers.slice(6)) assert.ok(status === 200 || status === 429, String(status));
    const flooderStarts = starts.slice(first).filter((s) => s.owner === flooder.accountId).length;
    assert.ok(flooderStarts <= 4, `only the EXIF reads reached a worker (${flooderStarts})`);
    assert.ok(starts.slice(first).some((s) => s.owner === other.accountId), "the other account's job ran");
  });
});
