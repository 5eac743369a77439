// How a result leaves an engine's folder (job-folder.ts takeResult, LibreOffice's exchange folder among them): one
// rename on the same filesystem; across filesystems a copy of a regular file only, so that a link
// the sandboxed soffice might leave there is never followed to a host file.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { takeResult } from '../../src/engines/job-folder.ts';

// /dev/shm is a tmpfs of its own on Linux: a rename from there to the temp folder fails with EXDEV.
const otherFs = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(os.tmpdir()).dev;

describe('LibreOffice result hand-over', () => {
  let dir: string;
  let shm: string | undefined;
  let secret: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lo-take-'));
    secret = path.join(dir, 'host-secret.txt');
    await writeFile(secret, 'a host file the sandbox must never hand out');
    if (otherFs) shm = await mkdtemp('/dev/shm/lo-take-');
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
    if (shm) await rm(shm, { recursive: true, force: true });
  });

  it('moves a result on the same filesystem in one rename', async () => {
    const from = path.join(dir, 'job-out.pdf');
    const to = path.join(dir, 'result.pdf');
    await writeFile(from, '%PDF-1.7 same filesystem');
    const inode = statSync(from).ino;
    await takeResult(from, to);
    assert.equal(existsSync(from), false);
    assert.equal(await readFile(to, 'utf8'), '%PDF-1.7 same filesystem');
    assert.equal(statSync(to).ino, inode, 'renamed, not copied');
  });

  it('a missing result is an error, as a failed copy was', async () => {
    await assert.rejects(takeResult(path.join(dir, 'never-written.pdf'), path.join(dir, 'none.pdf')), { code: 'ENOENT' });
  });

  it('copies a regular file across filesystems and removes the original', { skip: !otherFs && '/dev/shm is not a filesystem of its own here' }, async () => {
    const from = path.join(shm!, 'job-out.pdf');
    const to = path.join(dir, 'copied.pdf');
    await writeFile(from, '%PDF-1.7 other filesystem');
    await takeResult(from, to);
    assert.equal(existsSync(from), false);
    assert.equal(await readFile(to, 'utf8'), '%PDF-1.7 other filesystem');
  });

  it('never follows a link across filesystems: nothing is taken', { skip: !otherFs && '/dev/shm is not a filesystem of its own here' }, async () => {
    const from = path.join(shm!, 'job-out.pdf');
    const to = path.join(dir, 'linked.pdf');
    await symlink(secret, from);
    await takeResult(from, to);
    assert.equal(existsSync(to), false, 'the host file was not copied');
    assert.throws(() => lstatSync(from), { code: 'ENOENT' });
  });

  it('a link renamed on the same filesystem stays a link, which the engine refuses as no output', async () => {
    const from = path.join(dir, 'link-out.pdf');
    const to = path.join(dir, 'link-result.pdf');
    await symlink(secret, from);
    await takeResult(from, to);
    // Moved as it is, never dereferenced: convert() then lstats the result and takes only a regular file.
    assert.equal(lstatSync(to).isSymbolicLink(), true);
  });
});
