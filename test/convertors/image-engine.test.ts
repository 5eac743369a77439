import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { defaultImageWorkers, ImageEngine } from '../../src/engines/image.ts';
import type { ImageInputKind } from '../../src/engines/image-job.ts';
import { ServiceError } from '../../src/core/errors.ts';
import { GREEN_SVG, HOSTILE_SVGS, animatedGif, bmp, inspect, near, solidImage, twoColourPng } from './support/images.ts';

/**
 * The image engine on real files with real libvips, in its sandboxed worker processes (and once
 * without the sandbox): every result is read back with sharp and its size and colours checked.
 */
describe('image engine (sharp in worker processes)', () => {
  let dir: string;
  let engine: ImageEngine;
  let plain: ImageEngine;
  let n = 0;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'image-engine-test-'));
    engine = new ImageEngine({ limits: { maxPixels: 50_000_000, maxFrames: 100 } });
    plain = new ImageEngine({ sandbox: 'none' });
  });
  after(async () => {
    await engine?.close();
    await plain?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function file(content: Buffer | string, name = `in-${n++}`): Promise<string> {
    const p = path.join(dir, name);
    await writeFile(p, content);
    return p;
  }

  async function convert(e: ImageEngine, content: Buffer | string, kind: ImageInputKind, job: Record<string, unknown>): Promise<{ facts: Awaited<ReturnType<typeof inspect>>; result: Awaited<ReturnType<ImageEngine['convert']>>; bytes: Buffer }> {
    const inputPath = await file(content);
    const outputPath = path.join(dir, `out-${n++}`);
    const result = await e.convert({ inputPath, inputKind: kind, outputPath, format: 'jpeg', ...job });
    const bytes = await readFile(outputPath);
    return { facts: await inspect(bytes), result, bytes };
  }

  async function refused(promise: Promise<unknown>): Promise<ServiceError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof ServiceError, String(error));
      return error;
    }
    assert.fail('expected a refusal');
  }

  it('reports itself ready with the sharp version, in a bwrap sandbox', async () => {
    await engine.warm();
    const status = await engine.status();
    assert.equal(status.state, 'ready');
    assert.equal(status.name, 'image');
    assert.match(status.version ?? '', /^sharp \d+\.\d+\.\d+$/);
    // The pool is sized by cores (half of them, 2 to 8), so one long job never holds every image job.
    assert.equal(status.workers, defaultImageWorkers());
    assert.ok(status.workers >= 2);
  });

  for (const [kind, format] of [['png', 'png'], ['webp', 'webp'], ['avif', 'avif'], ['gif', 'gif'], ['tiff', 'tiff'], ['jpeg', 'jpeg']] as const) {
    it(`converts ${kind} to JPEG with its size and colour`, async () => {
      const { facts, result } = await convert(engine, await solidImage(format, 64, 48, [200, 30, 40]), kind, { format: 'jpeg' });
      assert.deepEqual({ format: facts.format, width: facts.width, height: facts.height }, { format: 'jpeg', width: 64, height: 48 });
      assert.deepEqual({ format: result.format, width: result.width, height: result.height, frames: result.frames }, { format: 'jpeg', width: 64, height: 48, frames: 1 });
      assert.ok(near(facts.pixel, [200, 30, 40], 12), `pixel ${facts.pixel}`);
    });
  }

  it('flattens transparency onto white for JPEG, keeps it for PNG and WebP', async () => {
    const transparent = await solidImage('png', 10, 10, [0, 0, 255], 0);
    assert.ok(near((await convert(engine, transparent, 'png', { format: 'jpeg' })).facts.pixel, [255, 255, 255], 2));
    assert.ok(near((await convert(engine, transparent, 'png', { format: 'jpeg', background: '#000000' })).facts.pixel, [0, 0, 0], 2));
    const png = await convert(engine, transparent, 'png', { format: 'png' });
    assert.equal(png.facts.hasAlpha, true);
    assert.equal(png.facts.pixel[3], 0);
    assert.equal((await convert(engine, transparent, 'png', { format: 'webp' })).facts.pixel[3], 0);
  });

  it('resizes with each fit', async () => {
    const source = await twoColourPng(200, 100, [255, 0, 0], [0, 0, 255]);
    const sized = async (resize: Record<string, unknown>) => (await convert(engine, source, 'png', { format: 'png', resize })).facts;
    assert.deepEqual(await sized({ width: 50, fit: 'inside' }).then((f) => [f.width, f.height]), [50, 25]);
    assert.deepEqual(await sized({ width: 50, height: 50, fit: 'inside' }).then((f) => [f.width, f.height]), [50, 25]);
    assert.deepEqual(await sized({ width: 50, height: 50, fit: 'cover' }).then((f) => [f.width, f.height]), [50, 50]);
    assert.deepEqual(await sized({ width: 60, height: 10, fit: 'fill' }).then((f) => [f.width, f.height]), [60, 10]);
    const contained = await sized({ width: 50, height: 50, fit: 'contain' });
    assert.deepEqual([contained.width, contained.height], [50, 50]);
    assert.ok(near((await sized({ width: 20, fit: 'inside' })).pixel, [255, 0, 0], 2), 'the left stays red');
  });

  it('rotates by quarter turns without loss and by other angles onto a larger canvas', async () => {
    const source = await twoColourPng(40, 20, [255, 0, 0], [0, 0, 255]);
    const quarter = await convert(engine, source, 'png', { format: 'same', rotate: 90 });
    assert.deepEqual([quarter.facts.format, quarter.facts.width, quarter.facts.height], ['png', 20, 40]);
    // Clockwise: the red left half is now on top.
    assert.deepEqual(quarter.facts.pixel.slice(0, 3), [255, 0, 0]);
    const bottom = await inspect(quarter.bytes, 0, 39);
    assert.deepEqual(bottom.pixel.slice(0, 3), [0, 0, 255]);
    const tilted = await convert(engine, source, 'png', { format: 'png', rotate: 45, background: '#ffffff' });
    assert.ok(tilted.facts.width > 40 && tilted.facts.height > 20);
    assert.ok(near(tilted.facts.pixel, [255, 255, 255], 2), `corner ${tilted.facts.pixel}`);
  });

  it('compresses: a lower JPEG quality makes a smaller file', async () => {
    const noisy = await sharp(Buffer.from(Array.from({ length: 128 * 128 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 128, height: 128, channels: 3 } }).png().toBuffer();
    const high = await convert(engine, noisy, 'png', { format: 'jpeg', quality: 95 });
    const low = await convert(engine, noisy, 'png', { format: 'jpeg', quality: 20 });
    assert.ok(low.result.sizeBytes < high.result.sizeBytes / 2, `${low.result.sizeBytes} < ${high.result.sizeBytes} / 2`);
  });

  it('strips EXIF by default after applying its orientation, and keeps it on request', async () => {
    // Stored 40x20 (red left), EXIF orientation 6: shown rotated 90° clockwise (20x40, red on top).
    const oriented = await sharp(await twoColourPng(40, 20, [255, 0, 0], [0, 0, 255])).withExif({ IFD0: { Make: 'TestCam', Model: 'M1' } }).withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    const before = await engine.metadata({ inputPath: await file(oriented), inputKind: 'jpeg' });
    assert.equal(before.orientation, 6);
    assert.equal(before.exif?.['Make'], 'TestCam');
    assert.equal(before.exif?.['Model'], 'M1');
    const stripped = await convert(engine, oriented, 'jpeg', { format: 'same' });
    const meta = await sharp(stripped.bytes).metadata();
    assert.equal(meta.exif, undefined);
    assert.equal(meta.orientation, undefined);
    assert.deepEqual([stripped.facts.width, stripped.facts.height], [20, 40]);
    assert.ok(near(stripped.facts.pixel, [255, 0, 0], 30), `top is red: ${stripped.facts.pixel}`);
    const kept = await convert(engine, oriented, 'jpeg', { format: 'same', keepMetadata: true });
    const keptMeta = await engine.metadata({ inputPath: await file(kept.bytes), inputKind: 'jpeg' });
    assert.equal(keptMeta.exif?.['Make'], 'TestCam');
  });

  it('reads metadata: format, dimensions, frames, alpha, ICC', async () => {
    const p3 = await sharp(await solidImage('png', 30, 20, [10, 20, 30], 128)).withIccProfile('p3').png().toBuffer();
    const meta = await engine.metadata({ inputPath: await file(p3), inputKind: 'png' });
    assert.deepEqual([meta.format, meta.width, meta.height, meta.frames, meta.hasAlpha, meta.channels], ['png', 30, 20, 1, true, 4]);
    assert.equal(meta.icc?.colorSpace, 'RGB');
    assert.match(meta.icc?.description ?? '', /P3/);
    const gif = await engine.metadata({ inputPath: await file(await animatedGif(8, 6, [[255, 0, 0], [0, 255, 0], [0, 0, 255]])), inputKind: 'gif' });
    assert.deepEqual([gif.width, gif.height, gif.frames], [8, 6, 3]);
  });

  it('takes the first frame of a GIF for JPEG, keeps the animation for GIF and WebP', async () => {
    const gif = await animatedGif(8, 6, [[255, 0, 0], [0, 255, 0], [0, 0, 255]]);
    const jpeg = await convert(engine, gif, 'gif', { format: 'jpeg' });
    assert.deepEqual([jpeg.facts.width, jpeg.facts.height, jpeg.facts.frames], [8, 6, 1]);
    assert.ok(near(jpeg.facts.pixel, [255, 0, 0], 20));
    const webp = await convert(engine, gif, 'gif', { format: 'webp', animated: true });
    assert.deepEqual([webp.facts.format, webp.facts.width, webp.facts.height, webp.facts.frames], ['webp', 8, 6, 3]);
    assert.equal(webp.result.frames, 3);
  });

  it('decodes uncompressed BMP (24 bits and 8-bit palette)', async () => {
    const picture = (x: number) => (x < 3 ? ([255, 0, 0] as const) : ([0, 0, 255] as const));
    for (const bits of [24, 8] as const) {
      const { facts } = await convert(engine, bmp(6, 4, picture, bits), 'bmp', { format: 'png' });
      assert.deepEqual([facts.format, facts.width, facts.height], ['png', 6, 4]);
      assert.deepEqual(facts.pixel, [255, 0, 0]);
      assert.deepEqual((await inspect((await convert(engine, bmp(6, 4, picture, bits), 'bmp', { format: 'png' })).bytes, 5, 3)).pixel, [0, 0, 255]);
    }
    const rle = bmp(4, 4, () => [0, 0, 0]);
    rle.writeUInt32LE(1, 30); // BI_RLE8
    const error = await refused(convert(engine, rle, 'bmp', {}));
    assert.equal(error.status, 422);
    assert.equal(error.error, 'image_unreadable');
    assert.match(error.detail, /compression 1/);
  });

  it('renders SVG at its declared size', async () => {
    const { facts } = await convert(engine, GREEN_SVG, 'svg', { format: 'png' });
    assert.deepEqual([facts.width, facts.height], [40, 30]);
    assert.deepEqual(facts.pixel, [0, 255, 0, 255]);
  });

  describe('SVG: nothing outside the upload is read', () => {
    it('librsvg alone would load a file beside the SVG; the engine does not', async () => {
      const red = await file(await solidImage('png', 20, 20, [255, 0, 0]), 'red.png');
      const svg = HOSTILE_SVGS.fileImage(red);
      // The finding the engine's design rests on: from a file path, librsvg reads files beside it.
      const direct = await sharp(await file(svg, 'direct.svg')).raw().toBuffer();
      assert.deepEqual([...direct.subarray(0, 3)], [255, 0, 0], 'librsvg reads the neighbouring file from a path');
      for (const e of [engine, plain]) {
        const { facts } = await convert(e, svg, 'svg', { format: 'png' });
        assert.deepEqual(facts.pixel, [0, 255, 0, 255], 'only the SVG itself is drawn');
      }
    });

    it('refuses external entities and billion laughs before parsing them', async () => {
      for (const svg of [HOSTILE_SVGS.externalEntity, HOSTILE_SVGS.billionLaughs]) {
        const error = await refused(convert(engine, svg, 'svg', {}));
        assert.equal(error.status, 422);
        assert.equal(error.error, 'unsafe_image');
        assert.match(error.detail, /entit/);
      }
    });

    it('drops XInclude and CSS imports and external url()s', async () => {
      const red = await file(await solidImage('png', 20, 20, [255, 0, 0]), 'red2.png');
      for (const svg of [HOSTILE_SVGS.xinclude, HOSTILE_SVGS.cssImport(red)]) {
        const { facts } = await convert(plain, svg, 'svg', { format: 'png' });
        assert.deepEqual(facts.pixel, [0, 255, 0, 255]);
      }
    });
  });

  describe('hostile and broken inputs answer 422 and leave the engine working', () => {
    it('a truncated PNG, JPEG, GIF and WebP', async () => {
      for (const [kind, format] of [['png', 'png'], ['jpeg', 'jpeg'], ['gif', 'gif'], ['webp', 'webp']] as const) {
        const whole = await sharp(Buffer.from(Array.from({ length: 64 * 64 * 3 }, (_, i) => (i * 31) % 256)), { raw: { width: 64, height: 64, channels: 3 } }).toFormat(format).toBuffer();
        const error = await refused(convert(engine, whole.subarray(0, Math.floor(whole.length / 2)), kind, {}));
        assert.equal(error.status, 422, kind);
        assert.equal(error.error, 'image_unreadable', kind);
      }
    });

    it('more pixels than the limit, even when the header is all there is', async () => {
      const big = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#000' } }).png().toBuffer();
      const error = await refused(convert(engine, big, 'png', {}));
      assert.equal(error.status, 422);
      assert.equal(error.error, 'image_too_large');
    });

    it('an animation of more frames than the limit, when the animation is kept', async () => {
      const colours = Array.from({ length: 101 }, (_, i) => [(i * 37) % 256, (i * 11) % 256, i % 2 ? 255 : 0] as const);
      const gif = await animatedGif(2, 2, colours);
      assert.equal((await sharp(gif).metadata()).pages, 101);
      const error = await refused(convert(engine, gif, 'gif', { format: 'gif', animated: true }));
      assert.equal(error.error, 'image_too_large');
      assert.match(error.detail, /101 frames/);
    });

    it('still converts afterwards', async () => {
      const { facts } = await convert(engine, await solidImage('png', 5, 5, [1, 2, 3]), 'png', { format: 'png' });
      assert.deepEqual(facts.pixel, [1, 2, 3]);
    });
  });
});
