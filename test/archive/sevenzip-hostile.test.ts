// Hostile archives against the 7-Zip engine directly (issue 12 §8): each is refused with the
// exact 422 code, and nothing is written outside the job's folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isServiceError } from '../../src/core/errors.ts';
import { SevenZipEngine, type ArchiveSourceFormat } from '../../src/engines/sevenzip.ts';
import { watchExtraction } from '../../src/engines/archive-walk.ts';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/engines/archive-entry-policy.ts';
import { build7z, buildTar, buildZip } from './support/archive-fixtures.ts';

let engine: SevenZipEngine;
let small: SevenZipEngine;
let dir: string;
let counter = 0;

/** Converts `content` (as `from`) to 7z and returns the refusal's status, code and detail. */
async function refusal(from: ArchiveSourceFormat, content: Buffer, use: SevenZipEngine = engine): Promise<{ status: number; error: string; detail: string; leftovers: string[] }> {
  counter += 1;
  const jobRoot = await mkdtemp(join(dir, `job-${counter}-`));
  const workDir = join(jobRoot, 'work');
  await mkdir(workDir);
  await writeFile(join(workDir, 'upload'), content);
  try {
    await use.convert({ inputPath: join(workDir, 'upload'), from, to: '7z', workDir, outputPath: join(workDir, 'result.7z') });
  } catch (error) {
    if (!isServiceError(error)) throw error;
    // Nothing may land beside the work folder (zip slip writes to ../ of the extraction folder's parent).
    return { status: error.status, error: error.error, detail: error.detail, leftovers: (await readdir(jobRoot)).filter((name) => name !== 'work') };
  }
  assert.fail('the hostile archive was converted');
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sevenzip-hostile-'));
  engine = new SevenZipEngine();
  small = new SevenZipEngine({ limits: { maxUncompressedBytes: 2 * 1024 * 1024, maxPartBytes: 1024 * 1024, maxEntries: 50 } });
});

after(async () => {
  await engine?.close();
  await small?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('paths and links that leave the folder', () => {
  test('zip slip: a ../ entry', async () => {
    const r = await refusal('zip', buildZip([{ name: 'ok.txt', content: 'fine' }, { name: '../../evil.txt', content: 'pwned' }]));
    assert.deepEqual([r.status, r.error, r.leftovers], [422, 'unsafe_document', []]);
    assert.equal(r.detail, 'entry "../../evil.txt" has a ".." segment (it would climb out of the folder)');
  });

  test('zip slip with backslashes (a Windows name)', async () => {
    const r = await refusal('zip', buildZip([{ name: '..\\..\\evil.txt', content: 'pwned' }]));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
  });

  test('an absolute path in a tar', async () => {
    const r = await refusal('tar', buildTar([{ name: '/etc/cron.d/evil', content: '* * * * * root id' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'entry "/etc/cron.d/evil" has an absolute path']);
  });

  test('a tar symlink pointing out, then a file written through it', async () => {
    const r = await refusal('tar', buildTar([{ name: 'escape', type: '2', linkName: '../../../../etc' }, { name: 'escape/passwd', content: 'root::0:0::/:/bin/sh' }]));
    assert.deepEqual([r.status, r.error, r.leftovers], [422, 'unsafe_document', []]);
    assert.equal(r.detail, 'symbolic link "escape" points outside the archive ("../../../../etc")');
  });

  test('a tar symlink to an absolute path', async () => {
    const r = await refusal('tar', buildTar([{ name: 'pw', type: '2', linkName: '/etc/passwd' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'symbolic link "pw" points outside the archive ("/etc/passwd")']);
  });

  test('a tar hard link to a file outside', async () => {
    const r = await refusal('tar', buildTar([{ name: 'shadow', type: '1', linkName: '../../etc/shadow' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'hard link "shadow" points outside the archive ("../../etc/shadow")']);
  });

  test('a symlink chain that is harmless lexically but climbs out on disk', async () => {
    // `here -> .` then `up -> here/..`: "here/.." normalises to ".", but on disk it is the parent.
    const r = await refusal('tar', buildTar([{ name: 'here', type: '2', linkName: '.' }, { name: 'up', type: '2', linkName: 'here/..' }]));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
  });

  test('a zip symlink entry (Unix mode 120777) pointing out is refused on disk', async () => {
    const r = await refusal('zip', buildZip([{ name: 'link', content: '../../../etc/passwd', method: 0, unixMode: 0o120777 }]));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
  });
});

describe('entries that are not files', () => {
  test('a character device', async () => {
    const r = await refusal('tar', buildTar([{ name: 'null', type: '3' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'entry "null" is a device node, not a file']);
  });

  test('a FIFO', async () => {
    const r = await refusal('tar', buildTar([{ name: 'pipe', type: '6' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'entry "pipe" is a fifo, not a file']);
  });
});

describe('bombs', () => {
  test('overlapping entries: one deflate stream counted by every central record', async () => {
    const big = Buffer.alloc(1024 * 1024, 0x61);
    const entries = Array.from({ length: 20 }, (_, i) => ({ name: `part${i}.txt`, content: big }));
    const r = await refusal('zip', buildZip(entries, { overlap: true }), small);
    assert.deepEqual([r.status, r.error, r.detail], [422, 'document_bomb', 'entries "part0.txt" and "part1.txt" share the same data (overlapping entries)']);
  });

  test('declared sizes past the total limit', async () => {
    const entries = Array.from({ length: 3 }, (_, i) => ({ name: `f${i}.bin`, content: 'x', declaredSize: 900 * 1024 }));
    const r = await refusal('zip', buildZip(entries, {}), small);
    assert.deepEqual([r.status, r.error, r.detail], [422, 'document_bomb', `the entries expand to more than ${2 * 1024 * 1024} bytes`]);
  });

  test('too many entries', async () => {
    const r = await refusal('tar', buildTar(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, content: 'x' }))), small);
    assert.deepEqual([r.status, r.error, r.detail], [422, 'document_bomb', '51 entries; the limit is 50']);
  });

  test('an entry that lies about its size (declares 10 bytes, inflates to 1 MB) is a data error, not 1 MB on disk', async () => {
    const r = await refusal('zip', buildZip([{ name: 'liar.txt', content: Buffer.alloc(1024 * 1024, 0x41), declaredSize: 10 }]));
    assert.deepEqual([r.status, r.error], [422, 'corrupt_document']);
    assert.match(r.detail, /Data Error/);
  });

  test('a gzip bomb inside tar.gz stops while it inflates', async () => {
    const tgz = gzipSync(buildTar([{ name: 'zeros', content: Buffer.alloc(3 * 1024 * 1024) }]));
    const r = await refusal('tar.gz', tgz, small);
    assert.deepEqual([r.status, r.error], [422, 'document_bomb']);
    assert.match(r.detail, /^the gzip stream inflates (past|more than)/);
  });

  test('42.zip style: zips of zips of zips are refused at the depth limit', async () => {
    const bottom = buildZip([{ name: 'zeros.bin', content: Buffer.alloc(256 * 1024) }]);
    const middle = buildZip(Array.from({ length: 16 }, (_, i) => ({ name: `${i.toString(16)}.zip`, content: bottom })));
    const top = buildZip(Array.from({ length: 16 }, (_, i) => ({ name: `lib ${i.toString(16)}.zip`, content: middle })));
    const r = await refusal('zip', top);
    assert.deepEqual([r.status, r.error], [422, 'document_bomb']);
    assert.match(r.detail, /^nested archive "lib [0-9a-f]\.zip" holds another archive \("0\.zip"\): archives nest at most 2 deep$/);
  });

  test('a nested archive that declares past the limits', async () => {
    const inner = buildZip([{ name: 'huge.bin', content: 'x', declaredSize: 3 * 1024 * 1024 }]);
    const r = await refusal('zip', buildZip([{ name: 'inner.zip', content: inner }]), small);
    assert.deepEqual([r.status, r.error, r.detail], [422, 'document_bomb', `nested archive "inner.zip" declares 1 entries of ${3 * 1024 * 1024} bytes, past the limits`]);
  });

  test('the watcher reports a folder growing past the limit while it is written', async () => {
    const folder = await mkdtemp(join(dir, 'watch-'));
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxUncompressedBytes: 100_000 };
    const exceeded = new Promise<Error>((resolve) => {
      const watch = watchExtraction(folder, limits, (error) => {
        resolve(error);
        void watch.stop();
      }, 5);
    });
    await writeFile(join(folder, 'a'), Buffer.alloc(60_000));
    await writeFile(join(folder, 'b'), Buffer.alloc(60_000));
    const error = await exceeded;
    assert.ok(isServiceError(error));
    assert.deepEqual([error.status, error.error, error.detail], [422, 'document_bomb', 'extraction wrote more than 100000 bytes']);
  });
});

describe('encrypted, damaged and disguised', () => {
  test('a zip whose entries carry the encryption flag', async () => {
    const r = await refusal('zip', buildZip([{ name: 'secret.txt', content: 'x', encryptedFlag: true, method: 0 }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'encrypted_document', 'entry "secret.txt" is encrypted']);
  });

  test('a 7z with an encrypted entry (7zz -p)', async () => {
    const r = await refusal('7z', await build7z({ 'secret.txt': 'classified' }, { password: 'hunter2' }));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'encrypted_document', 'entry "secret.txt" is encrypted']);
  });

  test('a 7z with encrypted headers (7zz -mhe)', async () => {
    const r = await refusal('7z', await build7z({ 'secret.txt': 'classified' }, { password: 'hunter2', encryptHeaders: true }));
    assert.deepEqual([r.status, r.error], [422, 'encrypted_document']);
    assert.match(r.detail, /Wrong password/);
  });

  for (const [format, make] of [
    ['zip', () => buildZip([{ name: 'a.txt', content: 'hello world '.repeat(100) }])],
    ['tar', () => buildTar([{ name: 'a.txt', content: 'hello world '.repeat(100) }])],
    ['7z', () => build7z({ 'a.txt': 'hello world '.repeat(100) })],
  ] as const) {
    test(`a truncated ${format}`, async () => {
      const whole = await make();
      const r = await refusal(format, whole.subarray(0, Math.floor(whole.length / 2)));
      assert.deepEqual([r.status, r.error], [422, 'corrupt_document']);
    });
  }

  test('a truncated tar.gz', async () => {
    const whole = gzipSync(buildTar([{ name: 'a.txt', content: 'hello world '.repeat(1000) }]));
    const r = await refusal('tar.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    assert.deepEqual([r.status, r.error], [422, 'corrupt_document']);
  });

  test('a 0-byte file', async () => {
    const r = await refusal('zip', Buffer.alloc(0));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'corrupt_document', 'the file is empty']);
  });

  test('a polyglot: a PDF head with a zip after it', async () => {
    const zip = buildZip([{ name: 'payload.txt', content: 'hidden' }]);
    const r = await refusal('zip', Buffer.concat([Buffer.from('%PDF-1.7\n% a document\n'), zip]));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
    assert.match(r.detail, /^the zip archive starts at byte \d+: other data comes first/);
  });

  test('a file that is not the format it is said to be', async () => {
    const r = await refusal('7z', buildTar([{ name: 'a.txt', content: 'x' }]));
    assert.deepEqual([r.status, r.error], [422, 'corrupt_document']);
  });
});
