import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { downloadResult, json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import type { ImageExample } from '../../src/catalog/convertors/image-tools.ts';
import { HOSTILE_SVGS, animatedGif, bmp, heicHead, inspect, manyFrameGif, near, pixelFloodPng, solidImage, solidSvg } from './support/images.ts';

/** The source an example describes, generated with sharp (BMP and SVG written by hand: sharp writes neither). */
async function exampleSource(source: ImageExample['source']): Promise<Buffer> {
  const { format, width, height, colour, right, alpha, frames } = source;
  if (format === 'svg') return Buffer.from(solidSvg(width, height, colour, right, alpha));
  if (format === 'bmp') return bmp(width, height, (x) => (right !== undefined && x >= width / 2 ? right : colour));
  if (frames !== undefined) return animatedGif(width, height, Array.from({ length: frames }, (_, i) => (i === 0 ? colour : ([i * 40, 255 - i * 40, 0] as const))));
  if (right !== undefined) {
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(x < width / 2 ? colour : right, (y * width + x) * 3);
    return sharp(raw, { raw: { width, height, channels: 3 } }).toFormat(format as 'png').toBuffer();
  }
  // Stored, not compressed: image-metadata's examples answer the upload's sizeBytes, which then
  // depends on no deflate or JPEG encoder's version or CPU path, only on the image's size.
  if (format === 'png' || format === 'tiff') {
    const channels = alpha === undefined ? 3 : 4;
    const image = sharp({ create: { width, height, channels, background: { r: colour[0], g: colour[1], b: colour[2], alpha: (alpha ?? 255) / 255 } } });
    return format === 'png' ? image.png({ compressionLevel: 0 }).toBuffer() : image.tiff({ compression: 'none' }).toBuffer();
  }
  return solidImage(format as 'jpeg', width, height, colour, alpha);
}

/**
 * The convertors family through the real app over HTTP: every example converted and its result
 * downloaded and read back (format, size, sampled colour, or the exact JSON/text answer), the
 * spec's short error body of to-jpg, validated options, and hostile files answering 4xx JSON.
 */
describe('convertors over REST', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  before(async () => {
    ({ t, base, apiKey } = await startFileApp());
  });
  after(async () => {
    await t?.close();
  });

  const tool = (slug: string) => t.services.catalog.tools.find((x) => x.family === 'convertors' && x.path.endsWith(`/${slug}`))!;

  it('lists the family: 9 image tools and the 3 that answer in the body', () => {
    const slugs = t.services.catalog.tools.filter((x) => x.family === 'convertors').map((x) => x.path.split('/').pop()).sort();
    assert.deepEqual(slugs, ['compress', 'csv-2-json', 'image-metadata', 'resize', 'rotate', 'strip-metadata', 'to-avif', 'to-base64', 'to-gif', 'to-jpg', 'to-png', 'to-webp']);
    assert.equal(tool('to-jpg').upload?.field, 'image');
    assert.equal(tool('to-jpg').errorBody, 'status-message');
    assert.deepEqual([tool('to-base64').answer, tool('image-metadata').answer, tool('csv-2-json').answer], ['text', 'json', 'json']);
  });

  it('runs every example and checks the content of the result, and its answer and download against /openapi.json', async () => {
    const documented = await documentedResponsesAt(base);
    for (const x of t.services.catalog.tools.filter((x) => x.family === 'convertors')) {
      for (const example of x.fileExamples ?? []) {
        const label = `${x.operationId}: ${example.title}`;
        const source = example.source as ImageExample['source'] | undefined;
        const content = source ? await exampleSource(source) : Buffer.from(example.sampleText);
        const name = source ? `sample.${source.format === 'jpeg' ? 'jpg' : source.format}` : 'sample.csv';
        const res = await upload(base, x.path, apiKey, { field: x.upload!.field, name, content }, example.input as Record<string, string>);
        const documentedAs = (body: unknown) => documented.problems({ path: x.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body });
        if (x.answer === 'text') {
          assert.equal(res.status, 200, label);
          assert.equal(res.headers.get('content-type'), example.expect.mimeType, label);
          const text = await res.text();
          assert.deepEqual(documentedAs(text), [], label);
          for (const expected of example.expect.contains) assert.ok(text.startsWith(expected), `${label}: ${text.slice(0, 80)}`);
          assert.deepEqual(Buffer.from(text.replace(/^data:[^,]*,/, ''), 'base64'), content, `${label}: decodes to the upload`);
          continue;
        }
        const body = await json(res);
        assert.equal(res.status, 200, `${label}: ${JSON.stringify(body)}`);
        assert.deepEqual(documentedAs(body), [], label);
        if (x.answer === 'json') {
          // The facts are what /openapi.json shows as the example's result: the whole answer.
          assert.deepEqual(body.result, example.expect.facts, label);
          continue;
        }
        assert.equal(body.result.mimeType, example.expect.mimeType, label);
        assert.equal(body.result.fileName, `sample.${example.expect.extension}`, label);
        const download = await downloadDocumented(documented, base, body, label);
        assert.equal(download.length, body.result.sizeBytes, label);
        const want = example.expect.facts as ImageExample['expect'];
        const got = await inspect(download, want.at?.[0] ?? 0, want.at?.[1] ?? 0);
        assert.deepEqual([got.format, got.width, got.height], [want.format, want.width, want.height], label);
        if (want.frames !== undefined) assert.equal(got.frames, want.frames, label);
        assert.ok(near(got.pixel, want.colour, 16), `${label}: pixel ${got.pixel} near ${want.colour}`);
      }
    }
  });

  it('to-jpg answers failures with the spec\'s short body {status, message}', async () => {
    const wrongType = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'image', name: 'a.txt', content: 'not an image at all' });
    assert.equal(wrongType.status, 415);
    const body = await json(wrongType);
    assert.deepEqual(Object.keys(body).sort(), ['message', 'status']);
    assert.equal(body.status, 415);
    assert.match(body.message, /not png or jpeg/);
    const noKey = await upload(base, '/api/v1/convertors/to-jpg', undefined, { field: 'image', name: 'a.png', content: await solidImage('png', 2, 2, [0, 0, 0]) });
    assert.equal(noKey.status, 401);
    assert.deepEqual(await json(noKey), { status: 401, message: 'An API key is required: Send your API key in the X-Api-Key header' });
    const wrongField = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'picture', name: 'a.png', content: await solidImage('png', 2, 2, [0, 0, 0]) });
    assert.equal(wrongField.status, 400);
    const wrongFieldBody = await json(wrongField);
    assert.match(wrongFieldBody.message, /"image" or "file"/);
    // The document describes this short body, not the envelope, for every one of them.
    const documented = await documentedResponsesAt(base);
    for (const [res, answer] of [[wrongType, body], [noKey, { status: 401, message: 'x' }], [wrongField, wrongFieldBody]] as const) {
      assert.deepEqual(documented.problems({ path: '/api/v1/convertors/to-jpg', method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body: answer }), []);
    }
  });

  it('every image convertor takes its file in "image", the spec\'s field, and in "file"', async () => {
    const png = await solidImage('png', 4, 4, [10, 120, 200]);
    const imageTools = t.services.catalog.tools.filter((x) => x.family === 'convertors' && x.upload?.accept.includes('png'));
    // the nine image tools, to-base64 and image-metadata
    assert.equal(imageTools.length, 11);
    for (const imageTool of imageTools) {
      assert.equal(imageTool.upload?.field, 'image');
      for (const field of ['image', 'file']) {
        const options: Record<string, string> = imageTool.path.endsWith('/resize') ? { width: '2' } : imageTool.path.endsWith('/rotate') ? { angle: '90' } : {};
        const res = await upload(base, imageTool.path, apiKey, { field, name: 'a.png', content: png }, options);
        assert.equal(res.status, 200, `${imageTool.path} with "${field}": ${await res.clone().text()}`);
      }
    }
  });

  it('binds an Idempotency-Key to the uploaded bytes: the same file replays, another file under the same name is a 409', async () => {
    const blue = await solidImage('png', 6, 6, [10, 120, 200]);
    const red = await solidImage('png', 6, 6, [200, 10, 10]);
    const headers = { 'idempotency-key': 'upload-bound-1' };
    const first = await upload(base, '/api/v1/convertors/to-webp', apiKey, { name: 'a.png', content: blue }, {}, headers);
    assert.equal(first.status, 200);
    const again = await upload(base, '/api/v1/convertors/to-webp', apiKey, { name: 'a.png', content: blue }, {}, headers);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await json(again), await json(first));
    const other = await upload(base, '/api/v1/convertors/to-webp', apiKey, { name: 'a.png', content: red }, {}, headers);
    const body = await json(other);
    assert.equal(other.status, 409);
    assert.equal(body.error, 'idempotency_key_reused');
  });

  it('validates options: a quality of 0 or 500 is a 400 naming the field, nothing charged', async () => {
    const png = await solidImage('png', 4, 4, [1, 2, 3]);
    const remaining = new Set<string | null>();
    for (const quality of ['0', '500']) {
      const res = await upload(base, '/api/v1/convertors/to-webp', apiKey, { name: 'a.png', content: png }, { quality });
      const body = await json(res);
      assert.equal(res.status, 400);
      assert.equal(body.error, 'validation_error');
      assert.equal(body.issues[0].field, 'quality');
      remaining.add(res.headers.get('x-credits-remaining'));
      const jpg = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'image', name: 'a.png', content: png }, { quality });
      assert.equal(jpg.status, 400);
      const short = await json(jpg);
      assert.equal(short.status, 400);
      assert.match(short.message, /quality/);
      remaining.add(jpg.headers.get('x-credits-remaining'));
    }
    assert.equal(remaining.size, 1, 'no refused call was charged');
    const fit = await json(await upload(base, '/api/v1/convertors/resize', apiKey, { name: 'a.png', content: png }, { width: '10', fit: 'squash' }));
    assert.equal(fit.issues[0].field, 'fit');
    const noAngle = await json(await upload(base, '/api/v1/convertors/rotate', apiKey, { name: 'a.png', content: png }));
    assert.equal(noAngle.issues[0].field, 'angle');
  });

  it('image-metadata reads EXIF and ICC; csv-2-json refuses broken quoting', async () => {
    const photo = await sharp(await solidImage('png', 12, 8, [9, 9, 9])).withExif({ IFD0: { Make: 'Acme', Model: 'X100' } }).withIccProfile('p3').jpeg().toBuffer();
    const meta = await json(await upload(base, '/api/v1/convertors/image-metadata', apiKey, { name: 'p.jpg', content: photo }));
    assert.deepEqual([meta.result.format, meta.result.width, meta.result.height, meta.result.exif.Make, meta.result.exif.Model, meta.result.icc.colorSpace], ['jpeg', 12, 8, 'Acme', 'X100', 'RGB']);
    const broken = await upload(base, '/api/v1/convertors/csv-2-json', apiKey, { name: 'a.csv', content: 'a,b\n"open,2\n' });
    const body = await json(broken);
    assert.equal(broken.status, 422);
    assert.equal(body.error, 'invalid_csv');
    assert.equal(body.detail, 'The quoted field opened on line 2 is never closed');
  });

  describe('hostile files answer 4xx JSON and the service keeps working', () => {
    const cases: [string, () => Promise<Buffer> | Buffer, number, string][] = [
      ['a pixel flood (a PNG declaring 100,000 x 100,000)', () => pixelFloodPng(), 422, 'image_too_large'],
      ['a GIF of 10,000 frames', () => manyFrameGif(10_000), 422, 'image_too_large'],
      ['a truncated PNG', async () => (await sharp(Buffer.alloc(32 * 32 * 3, 7), { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer()).subarray(0, 60), 422, 'image_unreadable'],
      ['a truncated JPEG', async () => {
        const noisy = await sharp(Buffer.from(Array.from({ length: 64 * 64 * 3 }, (_, i) => (i * 131) % 256)), { raw: { width: 64, height: 64, channels: 3 } }).jpeg().toBuffer();
        return noisy.subarray(0, Math.floor(noisy.length / 2));
      }, 422, 'image_unreadable'],
      ['a 0-byte file', () => Buffer.alloc(0), 400, 'empty_file'],
      ['a polyglot (a PNG signature over a ZIP and a script)', () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('PK\x03\x04<script>alert(1)</script>')]), 422, 'image_unreadable'],
    ];
    for (const [name, make, status, error] of cases) {
      it(name, async () => {
        for (const slug of ['to-png', 'image-metadata']) {
          const res = await upload(base, `/api/v1/convertors/${slug}`, apiKey, { name: 'x.png', content: await make() });
          const body = await json(res);
          assert.equal(res.status, status, `${slug}: ${JSON.stringify(body)}`);
          assert.equal(body.error, error, slug);
          assert.equal(body.result, undefined);
        }
        const jpg = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'image', name: 'x.png', content: await make() });
        assert.deepEqual(Object.keys(await json(jpg)).sort(), ['message', 'status']);
        assert.equal(jpg.status, status);
        const ok = await upload(base, '/api/v1/convertors/to-png', apiKey, { name: 'ok.png', content: await solidImage('png', 3, 3, [1, 2, 3]) });
        assert.equal(ok.status, 200, 'the service still converts');
      });
    }
  });

  describe('SVG and HEIC uploads', () => {
    let dir = '';
    let redPng = '';
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'convertors-svg-'));
      redPng = join(dir, 'red.png');
      await writeFile(redPng, await solidImage('png', 20, 20, [255, 0, 0]));
    });
    after(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Every pixel of a downloaded result: the RGB channels' minimum and maximum and the alpha minimum. */
    async function pixelRange(res: Response): Promise<{ min: number[]; max: number[]; alphaMin: number; width: number; height: number }> {
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      const image = await downloadResult(base, body);
      const { channels } = await sharp(image).stats();
      const meta = await sharp(image).metadata();
      return { min: channels.slice(0, 3).map((c) => c.min), max: channels.slice(0, 3).map((c) => c.max), alphaMin: channels[3]?.min ?? 255, width: meta.width!, height: meta.height! };
    }

    async function stillConverts(): Promise<void> {
      const ok = await upload(base, '/api/v1/convertors/to-png', apiKey, { name: 'ok.svg', content: solidSvg(3, 3, [1, 2, 3]) });
      assert.equal(ok.status, 200, 'the service still converts');
    }

    it('renders SVGs that point at /etc/passwd and at a file on disk without reading either', async () => {
      // The control: librsvg itself, given the SVG as a file beside the red PNG, does load it.
      const beside = join(dir, 'beside.svg');
      await writeFile(beside, HOSTILE_SVGS.fileImage(redPng));
      assert.deepEqual([...(await sharp(beside).raw().toBuffer()).subarray(0, 3)], [255, 0, 0], 'librsvg follows the reference when left to itself');
      const cases: [string, string][] = [
        ['file:///etc/passwd and the red PNG as images', HOSTILE_SVGS.fileImage(redPng)],
        ['XInclude of /etc/passwd as text', HOSTILE_SVGS.xinclude],
        ['CSS @import and url() of files', HOSTILE_SVGS.cssImport(redPng)],
        ['an external DTD', `<?xml version="1.0"?><!DOCTYPE svg SYSTEM "file:///etc/passwd"><svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#00ff00"/></svg>`],
      ];
      for (const [label, svg] of cases) {
        const res = await upload(base, '/api/v1/convertors/to-png', apiKey, { name: 'x.svg', content: svg });
        // Only the green rectangle is drawn: no pixel of the red PNG, no glyph of /etc/passwd.
        assert.deepEqual(await pixelRange(res), { min: [0, 255, 0], max: [0, 255, 0], alphaMin: 255, width: 20, height: 20 }, label);
      }
      await stillConverts();
    });

    it('refuses SVGs that declare entities (external entities, billion laughs) and pixel floods, for every image tool', async () => {
      const cases: [string, string, string, RegExp][] = [
        ['an external entity', HOSTILE_SVGS.externalEntity, 'unsafe_image', /declares XML entities/],
        ['billion laughs', HOSTILE_SVGS.billionLaughs, 'unsafe_image', /declares XML entities/],
        ['a 100,000 x 100,000 SVG', '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="100000" height="100000"/></svg>', 'image_too_large', /declares 100000 x 100000 pixels/],
      ];
      for (const [label, svg, error, detail] of cases) {
        // to-base64 never decodes the image: the refusal is the upload's safety step, for every image tool.
        for (const slug of ['to-png', 'image-metadata', 'to-base64']) {
          const res = await upload(base, `/api/v1/convertors/${slug}`, apiKey, { name: 'x.svg', content: svg });
          const text = await res.text();
          assert.equal(res.status, 422, `${label} ${slug}: ${text}`);
          assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
          const body = JSON.parse(text);
          assert.equal(body.error, error, `${label} ${slug}`);
          assert.match(body.detail, detail, `${label} ${slug}`);
          assert.doesNotMatch(text, /root:/, 'nothing of /etc/passwd in the answer');
        }
        const jpg = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'image', name: 'x.svg', content: svg });
        const short = await json(jpg);
        assert.deepEqual([jpg.status, Object.keys(short).sort()], [422, ['message', 'status']], label);
      }
      await stillConverts();
    });

    it('answers HEIC with a 415 that says this server cannot decode HEVC', async () => {
      const res = await upload(base, '/api/v1/convertors/to-png', apiKey, { name: 'photo.heic', content: heicHead() });
      const body = await json(res);
      assert.equal(res.status, 415, JSON.stringify(body));
      assert.equal(body.error, 'unsupported_file_type');
      assert.equal(body.detectedType, 'heic');
      assert.match(body.detail, /^Its content looks like HEIC \(HEVC-coded HEIF\), which this server cannot read: its libvips \(sharp's bundled build\) has no HEVC decoder/);
      const jpg = await upload(base, '/api/v1/convertors/to-jpg', apiKey, { field: 'image', name: 'photo.heic', content: heicHead() });
      const short = await json(jpg);
      assert.equal(short.status, 415);
      assert.match(short.message, /no HEVC decoder/);
    });
  });
});
