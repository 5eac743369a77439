// A conversion's result goes into the store only as a regular file of its own (FilePipeline.store),
// and an engine's output is read back only as one (readEngineOutput). Engines run sandboxed and
// cannot read the host's files, but a symbolic link one leaves where its output should be names a
// host path, which the host would read on the engine's behalf: such an output is refused, and
// nothing is stored. A FIFO left there is refused at once rather than waited on. And what the host
// writes into a call's folder afterwards is created new, never through a link planted at its name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { readEngineOutput, writeNewFile } from '../../src/files/engine-output.ts';
import { FilePipeline } from '../../src/files/file-pipeline.ts';
import { LocalFileStore } from '../../src/files/file-store.ts';
import { LinkSigner } from '../../src/files/signed-links.ts';

describe('FilePipeline.store takes a result only as a regular file', () => {
  let root: string;
  let storeDir: string;
  let work: string;
  let secret: string;
  let pipeline: FilePipeline;
  let store: LocalFileStore;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'result-links-'));
    storeDir = join(root, 'files');
    work = join(root, 'work', 'call');
    await mkdir(work, { recursive: true });
    secret = join(root, 'service-secret.txt');
    await writeFile(secret, 'FILE_SIGNING_SECRET=never-leaves-the-host');
    store = new LocalFileStore(storeDir);
    pipeline = new FilePipeline({
      workRoot: join(root, 'work'),
      store,
      signer: new LinkSigner('s'.repeat(32)),
      publicBaseUrl: 'http://localhost',
      urlTtlSeconds: 60,
      retentionMs: 60_000,
      outputLimitBytes: 1_000_000,
    });
  });

  after(() => rm(root, { recursive: true, force: true }));

  const storedIds = async () => (await readdir(storeDir).catch(() => [] as string[])).filter((name) => /^[0-9a-f-]{36}$/.test(name));

  it('stores a regular result and answers its link', async () => {
    const path = join(work, 'out.pdf');
    await writeFile(path, '%PDF-1.7 a real result');
    const result = await pipeline.store({ path, fileName: 'out.pdf', mimeType: 'application/pdf' }, 'acct-1');
    assert.equal(result.sizeBytes, '%PDF-1.7 a real result'.length);
    const copy = join(work, 'copy.pdf');
    await store.copyTo(result.fileId, copy);
    assert.equal(await readFile(copy, 'utf8'), '%PDF-1.7 a real result');
  });

  it('refuses a link to a host file: 500 missing_output, the file neither stored nor kept', async () => {
    const before = await storedIds();
    const path = join(work, 'linked.pdf');
    const keepAt = join(work, 'kept.pdf');
    await symlink(secret, path);
    await assert.rejects(pipeline.store({ path, fileName: 'linked.pdf', mimeType: 'application/pdf' }, 'acct-1', keepAt), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 500);
      assert.equal(error.error, 'missing_output');
      assert.match(error.detail ?? '', /link/);
      assert.doesNotMatch(JSON.stringify(error), /never-leaves-the-host/);
      return true;
    });
    assert.deepEqual(await storedIds(), before, 'nothing was stored');
    await assert.rejects(readFile(keepAt), { code: 'ENOENT' });
  });

  it('never writes the kept copy through a link planted at its name', async () => {
    const path = join(work, 'real.pdf');
    const keepAt = join(work, 'planted-keep.pdf');
    await writeFile(path, '%PDF-1.7 the engine\'s bytes');
    await symlink(secret, keepAt);
    await assert.rejects(pipeline.store({ path, fileName: 'real.pdf', mimeType: 'application/pdf' }, 'acct-1', keepAt), { code: 'EEXIST' });
    assert.equal(await readFile(secret, 'utf8'), 'FILE_SIGNING_SECRET=never-leaves-the-host', 'the link\'s target is untouched');
  });

  it('refuses a link to a folder and a missing result alike', async () => {
    const folderLink = join(work, 'folder-link');
    await symlink(root, folderLink);
    for (const path of [folderLink, join(work, 'never-written.pdf')]) {
      await assert.rejects(pipeline.store({ path, fileName: 'x.pdf', mimeType: 'application/pdf' }, 'acct-1'), { status: 500, error: 'missing_output' });
    }
  });
});

describe('readEngineOutput reads an engine\'s output only as a regular file', () => {
  let dir: string;
  let secret: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-output-'));
    secret = join(dir, 'host-secret.txt');
    await writeFile(secret, 'a host file the engine could not read');
  });

  after(() => rm(dir, { recursive: true, force: true }));

  const refused = (error: unknown): boolean => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.status, 500);
    assert.equal(error.error, 'missing_output');
    return true;
  };

  it('reads a regular file as bytes and as text', async () => {
    const path = join(dir, 'frame.jpg');
    await writeFile(path, Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    assert.deepEqual(await readEngineOutput(path), Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    await writeFile(path, 'slide one\fslide two ü');
    assert.equal(await readEngineOutput(path, 'utf8'), 'slide one\fslide two ü');
  });

  it('refuses a link to a host file without reading it', async () => {
    const path = join(dir, 'slides.txt');
    await symlink(secret, path);
    await assert.rejects(readEngineOutput(path, 'utf8'), refused);
  });

  it('refuses a FIFO at once, with nothing writing to it', async () => {
    const path = join(dir, 'rendered.html');
    execFileSync('mkfifo', [path]);
    await assert.rejects(readEngineOutput(path, 'utf8'), refused);
  });

  it('writeNewFile creates a result, and never writes through a link planted at its name', async () => {
    const fresh = join(dir, 'out.txt');
    await writeNewFile(fresh, 'slide text');
    assert.equal(await readFile(fresh, 'utf8'), 'slide text');
    const planted = join(dir, 'planted.txt');
    await symlink(secret, planted);
    await assert.rejects(writeNewFile(planted, 'attacker bytes'), { code: 'EEXIST' });
    assert.equal(await readFile(secret, 'utf8'), 'a host file the engine could not read');
  });

  it('refuses a folder; a missing output is the error it was', async () => {
    await mkdir(join(dir, 'a-folder'));
    await assert.rejects(readEngineOutput(join(dir, 'a-folder')), refused);
    await assert.rejects(readEngineOutput(join(dir, 'never-written')), { code: 'ENOENT' });
  });
});
