// The 7-Zip engine on real archives with the real 7zz: conversions keep every entry's name,
// content and symlink; listings report what the archive declares.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SevenZipEngine, type ArchiveSourceFormat, type ArchiveTargetFormat } from '../../src/engines/sevenzip.ts';
import { build7z, buildTar, buildTarGz, buildZip, readArchive } from './support/archive-fixtures.ts';

const TREE = [
  { name: 'docs/', type: '5' as const },
  { name: 'docs/readme.txt', content: 'Read me first\n' },
  { name: 'docs/notes.md', content: '# Notes\n\nSecond file\n' },
  { name: 'data.csv', content: 'id,name\n1,alpha\n2,beta\n' },
  { name: 'latest', type: '2' as const, linkName: 'docs/readme.txt' },
];

const EXPECTED = {
  'data.csv': { type: 'file', content: 'id,name\n1,alpha\n2,beta\n' },
  docs: { type: 'directory' },
  'docs/notes.md': { type: 'file', content: '# Notes\n\nSecond file\n' },
  'docs/readme.txt': { type: 'file', content: 'Read me first\n' },
  latest: { type: 'symlink', target: 'docs/readme.txt' },
};

let engine: SevenZipEngine;
let dir: string;
let counter = 0;

async function convert(from: ArchiveSourceFormat, to: ArchiveTargetFormat, content: Buffer, level?: number): Promise<Buffer> {
  counter += 1;
  const workDir = await mkdtemp(join(dir, `job-${counter}-`));
  const inputPath = join(workDir, 'upload');
  await writeFile(inputPath, content);
  const outputPath = join(workDir, `result.${to}`);
  await engine.convert({ inputPath, from, to, workDir, outputPath, ...(level === undefined ? {} : { level }) });
  return readFile(outputPath);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sevenzip-test-'));
  engine = new SevenZipEngine();
});

after(async () => {
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('SevenZipEngine.convert', () => {
  test('tar to 7z keeps every name, content and the symlink', async () => {
    const out = await convert('tar', '7z', buildTar(TREE));
    assert.deepEqual(out.subarray(0, 6), Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]));
    assert.deepEqual(await readArchive(out), EXPECTED);
  });

  test('tar to zip, zip to tar, zip to 7z, 7z to zip round-trip the same tree', async () => {
    const zip = await convert('tar', 'zip', buildTar(TREE));
    assert.equal(zip.readUInt32LE(0), 0x04034b50);
    assert.deepEqual(await readArchive(zip), EXPECTED);
    const tar = await convert('zip', 'tar', zip);
    assert.equal(tar.subarray(257, 262).toString('latin1'), 'ustar');
    assert.deepEqual(await readArchive(tar), EXPECTED);
    const sevenZ = await convert('zip', '7z', zip, 9);
    assert.deepEqual(await readArchive(sevenZ), EXPECTED);
    const back = await convert('7z', 'zip', sevenZ, 0);
    assert.deepEqual(await readArchive(back), EXPECTED);
  });

  test('tar.gz to zip, and zip to tar.gz (one gzip stream holding a tar)', async () => {
    const zip = await convert('tar.gz', 'zip', buildTarGz(TREE));
    assert.deepEqual(await readArchive(zip), EXPECTED);
    const tgz = await convert('zip', 'tar.gz', zip);
    assert.deepEqual(tgz.subarray(0, 2), Buffer.from([0x1f, 0x8b]));
    const tar = gunzipSync(tgz);
    assert.equal(tar.subarray(257, 262).toString('latin1'), 'ustar');
    assert.deepEqual(await readArchive(tar, 'tar'), EXPECTED);
  });

  test('a 7z made by 7zz converts to tar with its contents', async () => {
    const sevenZ = await build7z({ 'a.txt': 'alpha', 'b/c.txt': 'gamma' });
    assert.deepEqual(await readArchive(await convert('7z', 'tar', sevenZ)), {
      'a.txt': { type: 'file', content: 'alpha' },
      b: { type: 'directory' },
      'b/c.txt': { type: 'file', content: 'gamma' },
    });
  });

  test('names outside ASCII survive', async () => {
    const zip = buildZip([{ name: 'résumé/日本.txt', content: 'ünïcödé' }]);
    const entries = await readArchive(await convert('zip', '7z', zip));
    assert.deepEqual(entries['résumé/日本.txt'], { type: 'file', content: 'ünïcödé' });
  });

  test('an empty archive converts to an empty archive', async () => {
    const zip = await convert('tar', 'zip', buildTar([]));
    assert.deepEqual(await readArchive(zip), {});
    const sevenZ = await convert('zip', '7z', zip);
    assert.deepEqual(await readArchive(sevenZ), {});
    const tar = await convert('7z', 'tar', sevenZ);
    assert.deepEqual(tar, Buffer.alloc(1024), 'an empty tar is its two zero end blocks');
  });
});

describe('SevenZipEngine.list', () => {
  test('lists names, types, sizes and packed sizes', async () => {
    const zip = buildZip([
      { name: 'a.txt', content: 'x'.repeat(1000) },
      { name: 'b.bin', content: 'abc', method: 0 },
    ]);
    const workDir = await mkdtemp(join(dir, 'list-'));
    await writeFile(join(workDir, 'upload'), zip);
    const listing = await engine.list({ inputPath: join(workDir, 'upload'), format: 'zip', workDir });
    assert.equal(listing.type, 'zip');
    assert.equal(listing.physicalSize, zip.length);
    assert.deepEqual(
      listing.entries.map((e) => [e.path, e.type, e.size, e.packedSize, e.encrypted]),
      [
        ['a.txt', 'file', 1000, listing.entries[0]!.packedSize, false],
        ['b.bin', 'file', 3, 3, false],
      ],
    );
    assert.ok(listing.entries[0]!.packedSize < 30, `deflated 1000 x's should pack small, got ${listing.entries[0]!.packedSize}`);
  });

  test('lists a tar.gz through its tar, links with their targets', async () => {
    const workDir = await mkdtemp(join(dir, 'list-'));
    await writeFile(join(workDir, 'upload'), buildTarGz(TREE));
    const listing = await engine.list({ inputPath: join(workDir, 'upload'), format: 'tar.gz', workDir });
    assert.equal(listing.type, 'tar');
    assert.deepEqual(
      listing.entries.map((e) => [e.path, e.type, e.linkTarget]),
      [
        ['docs', 'directory', null],
        ['docs/readme.txt', 'file', null],
        ['docs/notes.md', 'file', null],
        ['data.csv', 'file', null],
        ['latest', 'symlink', 'docs/readme.txt'],
      ],
    );
  });
});
