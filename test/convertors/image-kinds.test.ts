// The image file kinds in the file-kind registry: every format typed by its content (AVIF, TIFF,
// BMP and SVG beside PNG, JPEG, GIF and WebP; HEIC detected so its 415 can say why), SVG told
// from other XML and HTML, and the image kinds' safety check (the header check) run by the upload
// pipeline with the configured limits, for every image tool.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { assertSafeDocument } from '../../src/files/document-safety.ts';
import { detectFileKind } from '../../src/files/file-kind.ts';
import { FILE_CONTAINERS, acceptedKind, detectedKind, kindMatches } from '../../src/files/kinds/file-kind-registry.ts';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { json, upload } from '../support/http.ts';
import { HOSTILE_SVGS, animatedGif, bmp, heicHead, solidImage, solidSvg } from './support/images.ts';

let dir = '';
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'image-kinds-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function file(content: Buffer | string): Promise<string> {
  const path = join(dir, `f${n++}`);
  await writeFile(path, content);
  return path;
}

async function detect(content: Buffer | string): Promise<{ kind: string; mimeType: string }> {
  const { kind, mimeType } = await detectFileKind(await file(content));
  return { kind, mimeType };
}

const GREEN = [0, 200, 0] as const;

describe('image kinds', () => {
  it('types every image format by its content', async () => {
    const bigEndianTiff = Buffer.concat([Buffer.from('MM\0*\0\0\0\x08', 'latin1'), Buffer.alloc(32)]);
    const cases: [string, Buffer | string, string, string][] = [
      ['png', await solidImage('png', 4, 4, GREEN), 'png', 'image/png'],
      ['jpeg', await solidImage('jpeg', 4, 4, GREEN), 'jpeg', 'image/jpeg'],
      ['gif', await solidImage('gif', 4, 4, GREEN), 'gif', 'image/gif'],
      ['webp', await solidImage('webp', 4, 4, GREEN), 'webp', 'image/webp'],
      ['avif', await solidImage('avif', 4, 4, GREEN), 'avif', 'image/avif'],
      ['tiff (little-endian)', await solidImage('tiff', 4, 4, GREEN), 'tiff', 'image/tiff'],
      ['tiff (big-endian)', bigEndianTiff, 'tiff', 'image/tiff'],
      ['bmp', bmp(4, 4, () => GREEN), 'bmp', 'image/bmp'],
      ['bmp (8-bit palette)', bmp(4, 4, () => GREEN, 8), 'bmp', 'image/bmp'],
      ['heic', heicHead(), 'heic', 'image/heic'],
    ];
    for (const [label, content, kind, mimeType] of cases) assert.deepEqual(await detect(content), { kind, mimeType }, label);
  });

  it('types SVG by its root element, past any prolog, and nothing else as SVG', async () => {
    const svg = { kind: 'svg', mimeType: 'image/svg+xml' };
    const text = { kind: 'text', mimeType: 'text/plain' };
    const cases: [string, string, { kind: string; mimeType: string }][] = [
      ['bare', '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>', svg],
      ['BOM, declaration, comment, public DOCTYPE', '\uFEFF<?xml version="1.0"?>\n<!-- drawn by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg"></svg>', svg],
      ['a stylesheet processing instruction', '<?xml-stylesheet href="a.css"?><svg xmlns="http://www.w3.org/2000/svg"/>', svg],
      ['a DOCTYPE whose subset holds ">" and "]"', '<!DOCTYPE svg [<!ENTITY a "<b>]>">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>', svg],
      ['billion laughs (typed, so that its check refuses it)', HOSTILE_SVGS.billionLaughs, svg],
      ['a namespace prefix', '<s:svg xmlns:s="http://www.w3.org/2000/svg"/>', svg],
      ['HTML holding an inline SVG', '<html><body><svg xmlns="http://www.w3.org/2000/svg"/></body></html>', { kind: 'text', mimeType: 'text/html' }],
      ['another XML root', '<?xml version="1.0"?><svgish/>', text],
      ['a comment never closed', '<!-- <svg>', text],
      ['text starting with BM', 'BMW 320i, 1998, blue', text],
    ];
    for (const [label, content, expected] of cases) assert.deepEqual(await detect(content), expected, label);
  });

  it('registers SVG before text, the formats with their MIME types and extensions, and lets the text formats take SVG', () => {
    const names = FILE_CONTAINERS.map((c) => c.name);
    assert.deepEqual(names.slice(-2), ['svg', 'text']);
    assert.deepEqual([acceptedKind('tiff').extensions, acceptedKind('avif').mimeType, acceptedKind('bmp').mimeType, acceptedKind('svg').mimeType], [['tiff', 'tif'], 'image/avif', 'image/bmp', 'image/svg+xml']);
    assert.equal(kindMatches('svg', 'svg'), true);
    assert.equal(kindMatches('svg', 'text'), false, 'plain XML is not an SVG');
    assert.deepEqual(['xml', 'txt', 'html'].map((k) => kindMatches(k as 'xml', 'svg')), [true, true, true]);
    assert.equal(kindMatches('png', 'heic'), false);
    assert.match(detectedKind('heic').describedAs, /no HEVC decoder/);
  });

  it('refuses, in the safety check, what declares more pixels or frames than the limits given', async () => {
    const limits = { image: { maxPixels: 1000, maxFrames: 2 } };
    const refusedWith = (error: string, detail: RegExp) => (thrown: unknown) => {
      assert.ok(thrown instanceof ServiceError);
      assert.deepEqual([thrown.status, thrown.error], [422, error]);
      assert.match(thrown.detail ?? '', detail);
      return true;
    };
    const cases: [string, Buffer | string, RegExp][] = [
      ['png', await solidImage('png', 40, 40, GREEN), /The PNG declares 40 x 40 pixels \(1,600\); the limit is 1,000 pixels/],
      ['avif', await solidImage('avif', 40, 40, GREEN), /The AVIF declares 40 x 40 pixels/],
      ['tiff', await solidImage('tiff', 40, 40, GREEN), /The TIFF declares 40 x 40 pixels/],
      ['bmp', bmp(40, 40, () => GREEN), /The BMP declares 40 x 40 pixels/],
      ['svg', solidSvg(40, 40, GREEN), /The SVG declares 40 x 40 pixels/],
      ['gif', await animatedGif(4, 4, [GREEN, [200, 0, 0], [0, 0, 200]]), /The GIF holds 3 frames; the limit is 2/],
    ];
    for (const [kind, content, detail] of cases) {
      const path = await file(content);
      await assert.rejects(assertSafeDocument(path, kind as 'png', limits), refusedWith('image_too_large', detail), kind);
      // The defaults (100 megapixels, 500 frames) let it through.
      await assertSafeDocument(path, kind as 'png');
    }
    const cutTiff = (await solidImage('tiff', 40, 40, GREEN)).subarray(0, 6);
    await assert.rejects(assertSafeDocument(await file(cutTiff), 'tiff'), refusedWith('image_unreadable', /truncated/));
    await assert.rejects(assertSafeDocument(await file(HOSTILE_SVGS.externalEntity), 'svg'), refusedWith('unsafe_image', /declares XML entities/));
  });
});

describe('the configured image limits (IMAGE_MAX_PIXELS, IMAGE_MAX_FRAMES) hold for every image tool', () => {
  let t: TestApp | undefined;
  let base = '';
  let apiKey = '';
  before(async () => {
    ({ t, base, apiKey } = await startFileApp({ quota: 1000, env: { IMAGE_MAX_PIXELS: '1000', IMAGE_MAX_FRAMES: '2' } }));
  });
  after(async () => {
    await t?.close();
  });

  it('refuses a 40 x 40 PNG and a 3-frame GIF, even for to-base64 (which decodes nothing), and takes a 30 x 30 PNG', async () => {
    for (const slug of ['to-base64', 'to-webp']) {
      const big = await upload(base, `/api/v1/convertors/${slug}`, apiKey, { name: 'a.png', content: await solidImage('png', 40, 40, GREEN) });
      const body = await json(big);
      assert.equal(big.status, 422, JSON.stringify(body));
      assert.deepEqual([body.error, body.maxPixels, body.maxFrames], ['image_too_large', 1000, 2], slug);
      const frames = await json(await upload(base, `/api/v1/convertors/${slug}`, apiKey, { name: 'a.gif', content: await animatedGif(4, 4, [GREEN, [200, 0, 0], [0, 0, 200]]) }));
      assert.equal(frames.detail, 'The GIF holds 3 frames; the limit is 2', slug);
      const small = await upload(base, `/api/v1/convertors/${slug}`, apiKey, { name: 'a.png', content: await solidImage('png', 30, 30, GREEN) });
      assert.equal(small.status, 200, slug);
      await small.arrayBuffer();
    }
  });
});
