// sandboxedCommand / runSandboxed: the one way a program engine (pandoc, poppler, and the coming
// ffmpeg, calibre, 7-Zip) builds and runs a command: memory limit outside, bubblewrap around,
// only the job's folders writable, no network, a time limit that kills the whole group.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bubblewrap, findProgram } from '../../src/engines/process.ts';
import { runSandboxed, sandboxedCommand } from '../../src/engines/sandbox.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';

const bwrap = await bubblewrap();
const prlimit = await findProgram('prlimit');
const sh = (await findProgram('sh'))!;

describe('sandboxedCommand', () => {
  let dir: string;
  let other: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sandboxed-command-'));
    other = await mkdtemp(path.join(os.tmpdir(), 'sandboxed-other-'));
    await writeFile(path.join(other, 'secret.txt'), 'not for the program');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  });

  it('puts the memory limit outside the sandbox, then bwrap, then the program and its arguments', { skip: (!bwrap || !prlimit) && 'needs bwrap and prlimit' }, async () => {
    const built = await sandboxedCommand(sh, ['-c', 'true'], { writable: [dir], memoryMb: 256, mode: 'bwrap', engine: 'test', logger: silentLogger });
    assert.equal(built.isolation, 'bwrap');
    assert.deepEqual(built.command.slice(0, 3), [prlimit, `--as=${256 * 1024 * 1024}`, '--']);
    assert.equal(built.command[3], bwrap);
    assert.deepEqual(built.command.slice(-3), [sh, '-c', 'true']);
    assert.ok(built.command.includes('--unshare-all'));
    assert.deepEqual(Object.keys(built.env).sort(), ['HOME', 'LANG', 'PATH']);
  });

  it('leaves the memory limit out when asked for none', async () => {
    const built = await sandboxedCommand(sh, ['-c', 'true'], { writable: [dir], memoryMb: 0, mode: 'none', network: true, engine: 'test', logger: silentLogger });
    assert.deepEqual(built.command, [sh, '-c', 'true']);
  });

  it('names read-only files by their path inside', { skip: !bwrap && 'needs bwrap' }, async () => {
    const host = path.join(other, 'secret.txt');
    const built = await sandboxedCommand(sh, (pathOf) => ['-c', `cat ${pathOf(host)}`], { readOnly: [{ host, inside: '/opt/engines/file.txt' }], mode: 'bwrap', engine: 'test', logger: silentLogger });
    assert.deepEqual(built.command.slice(-2), ['-c', 'cat /opt/engines/file.txt']);
  });

  it('runs in the job folder, which it may write, and sees no other folder of the host', { skip: !bwrap && 'needs bwrap' }, async () => {
    const result = await runSandboxed(sh, ['-c', `echo out > result.txt; cat ${path.join(other, 'secret.txt')} || echo hidden`], { writable: [dir], cwd: dir, mode: 'bwrap', memoryMb: 512, engine: 'test', logger: silentLogger });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.toString('utf8'), 'hidden\n');
    assert.equal(await readFile(path.join(dir, 'result.txt'), 'utf8'), 'out\n');
  });

  it('kills the program at its time limit', async () => {
    const started = Date.now();
    await assert.rejects(runSandboxed(sh, ['-c', 'sleep 600'], { writable: [dir], cwd: dir, timeoutMs: 300, engine: 'test', logger: silentLogger }), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'TimeoutError');
      return true;
    });
    // Killed, not waited out: far below the program's 600 s, whatever the machine's load.
    assert.ok(Date.now() - started < 300_000, `killed after ${Date.now() - started} ms`);
  });
});
