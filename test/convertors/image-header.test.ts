import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ImageHeaderError, checkImageHeader, readImageHeader } from '../../src/files/kinds/image-header.ts';
import { GREEN_SVG, HOSTILE_SVGS, animatedGif, bmp, manyFrameGif, pixelFloodPng, solidImage } from './support/images.ts';

/** Dimensions and frames come from the headers alone, so floods are refused before any decoder runs. */
describe('image headers', () => {
  let dir: string;
  let n = 0;
  const limits = { maxPixels: 100_000_000, maxFrames: 500 };
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'image-header-test-'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function file(content: Buffer | string): Promise<string> {
    const p = path.join(dir, `f${n++}`);
    await writeFile(p, content);
    return p;
  }

  it('reads width, height and frames of every image kind', async () => {
    const cases: [string, Buffer | string, [number, number, number]][] = [
      ['png', await solidImage('png', 321, 123, [1, 2, 3]), [321, 123, 1]],
      ['jpeg', await sharp(await solidImage('png', 321, 123, [1, 2, 3])).withExif({ IFD0: { Make: 'x' } }).jpeg().toBuffer(), [321, 123, 1]],
      ['gif', await animatedGif(17, 9, [[255, 0, 0], [0, 255, 0], [0, 0, 255]]), [17, 9, 3]],
      ['webp', await solidImage('webp', 321, 123, [1, 2, 3]), [321, 123, 1]],
      ['webp', await sharp(await animatedGif(17, 9, [[255, 0, 0], [0, 255, 0]]), { animated: true }).webp().toBuffer(), [17, 9, 2]],
      ['webp', await sharp(await solidImage('png', 33, 22, [1, 2, 3], 100)).webp({ lossless: true }).toBuffer(), [33, 22, 1]],
      ['avif', await solidImage('avif', 64, 40, [1, 2, 3]), [64, 40, 1]],
      ['tiff', await solidImage('tiff', 321, 123, [1, 2, 3]), [321, 123, 1]],
      ['bmp', bmp(7, 5, () => [0, 0, 0]), [7, 5, 1]],
      ['svg', GREEN_SVG, [40, 30, 1]],
      ['svg', '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 80"/>', [120, 80, 1]],
      ['svg', '<svg xmlns="http://www.w3.org/2000/svg" width="1in" height="2cm"/>', [96, 76, 1]],
    ];
    for (const [kind, content, [width, height, frames]] of cases) {
      assert.deepEqual(await readImageHeader(await file(content), kind), { width, height, frames }, kind);
    }
    assert.equal(await readImageHeader(await file('plain'), 'txt'), undefined);
  });

  it('refuses a pixel flood from the header: a 100,000 x 100,000 PNG of a few hundred bytes', async () => {
    const flood = pixelFloodPng();
    assert.ok(flood.length < 2000, `${flood.length} bytes`);
    await assert.rejects(checkImageHeader(await file(flood), 'png', limits), (error: unknown) => {
      assert.ok(error instanceof ImageHeaderError);
      assert.equal(error.reason, 'too_large');
      assert.equal(error.message, 'The PNG declares 100000 x 100000 pixels (10,000,000,000); the limit is 100,000,000 pixels');
      return true;
    });
  });

  it('refuses a GIF of 10,000 frames by counting its blocks', async () => {
    const gif = manyFrameGif(10_000);
    assert.deepEqual(await readImageHeader(await file(gif), 'gif'), { width: 1, height: 1, frames: 10_000 });
    await assert.rejects(checkImageHeader(await file(gif), 'gif', limits), /holds 10000 frames; the limit is 500/);
  });

  it('refuses an SVG declaring entities, and one declaring a huge canvas', async () => {
    await assert.rejects(checkImageHeader(await file(HOSTILE_SVGS.billionLaughs), 'svg', limits), /entities/);
    await assert.rejects(checkImageHeader(await file('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>'), 'svg', limits), /declares 100000 x 100000/);
  });

  it('refuses headers cut short, and zero-sized images', async () => {
    const png = await solidImage('png', 10, 10, [0, 0, 0]);
    for (const [kind, content] of [['png', png.subarray(0, 20)], ['gif', (await animatedGif(4, 4, [[1, 1, 1]])).subarray(0, 30)], ['jpeg', (await solidImage('jpeg', 8, 8, [0, 0, 0])).subarray(0, 40)], ['bmp', bmp(2, 2, () => [0, 0, 0]).subarray(0, 20)]] as const) {
      await assert.rejects(checkImageHeader(await file(content), kind, limits), (error: unknown) => error instanceof ImageHeaderError && error.reason === 'unreadable', kind);
    }
    await assert.rejects(checkImageHeader(await file(pixelFloodPng(0, 10)), 'png', limits), /declares 0 x 10 pixels/);
  });
});
