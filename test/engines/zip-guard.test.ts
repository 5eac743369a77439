import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { ServiceError } from '../../src/core/errors.ts';
import { checkZipBomb } from '../../src/engines/zip-guard.ts';
import { minimalDocx, zip } from '../support/fixtures.ts';

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
  const is422 = (error: unknown): boolean => error instanceof ServiceError && error.status === 422;

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
