// The shared sandbox of the program engines (src/engines/sandbox.ts), seen from inside: a program
// run through a ProgramEngine sees its job folder and the system, never DATA_DIR, the server's
// environment, /etc/passwd, /home or the server's processes, and has no network.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ProgramEngine } from '../../src/engines/program.ts';
import { sandboxCommand } from '../../src/engines/sandbox.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';

describe('program engine sandbox', () => {
  let dataDir: string;
  let job: string;
  let engine: ProgramEngine;
  const canary = `sandbox-canary-${randomBytes(8).toString('hex')}`;

  before(async () => {
    process.env.SANDBOX_TEST_CANARY = canary;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'engines-sandbox-data-'));
    job = path.join(dataDir, 'work', 'job-1');
    await mkdir(job, { recursive: true });
    await writeFile(path.join(dataDir, 'signing-secret'), canary);
    await writeFile(path.join(job, 'input.txt'), 'job input\n');
    // sandbox: 'bwrap' requires the filesystem sandbox: this test fails, not passes, without it.
    engine = new ProgramEngine(
      { name: 'shell', label: 'shell', programs: ['sh'], install: 'Debian package dash', versionArgs: ['-c', 'echo 1.0'], versionPattern: /([\d.]+)/ },
      { sandbox: 'bwrap', logger: silentLogger },
    );
  });

  after(async () => {
    delete process.env.SANDBOX_TEST_CANARY;
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const sh = async (script: string) => {
    const result = await engine.exec('sh', ['-c', script], { cwd: job });
    return { code: result.code, out: result.stdout.toString('utf8'), err: result.stderr };
  };

  it('runs with a minimal environment, none of the server', async () => {
    const { code, out } = await sh('env');
    assert.equal(code, 0);
    const names = out.trim().split('\n').map((line) => line.split('=')[0]).sort();
    assert.deepEqual(names.filter((name) => name !== 'PWD' && name !== 'SHLVL' && name !== '_'), ['HOME', 'LANG', 'PATH']);
    assert.ok(!out.includes(canary));
  });

  it('sees its job folder (read and write) and nothing of DATA_DIR beyond it', async () => {
    const inside = await sh('cat input.txt && echo written > output.txt && ls -a ..');
    assert.equal(inside.code, 0, inside.err);
    assert.match(inside.out, /^job input/);
    assert.equal(await readFile(path.join(job, 'output.txt'), 'utf8'), 'written\n');
    assert.deepEqual(inside.out.split('\n').slice(1).filter(Boolean).sort(), ['.', '..', 'job-1']);
    const secret = await sh(`cat ${path.join(dataDir, 'signing-secret')}`);
    assert.notEqual(secret.code, 0);
    assert.ok(!secret.out.includes(canary));
    assert.match(secret.err, /No such file/);
  });

  it('sees no /etc/passwd, /home, /root, nor the server process and its environment', async () => {
    const { out } = await sh('ls /; cat /etc/passwd; ls /home /root; cat /proc/*/environ');
    const top = out.split('\n');
    for (const name of ['home', 'root', 'work']) assert.ok(!top.includes(name), `/${name} is in view`);
    assert.doesNotMatch(out, /root:x:0:0/);
    assert.ok(!out.includes(canary));
    const processes = Number((await sh('ls /proc | grep -c "^[0-9]"')).out.trim());
    assert.ok(processes <= 4, `only the sandbox's own processes are visible, saw ${processes}`);
  });

  it('has no network: no interface but loopback', async () => {
    const { out } = await sh('cat /proc/net/dev');
    const interfaces = out.split('\n').slice(2).map((line) => line.split(':')[0]!.trim()).filter(Boolean);
    assert.deepEqual(interfaces, ['lo']);
  });

  it('falls back to a minimal environment, still without the server\'s, when told not to use bwrap', async () => {
    const built = await sandboxCommand({ command: ['/bin/true'], writable: [job], mode: 'none', engine: 'test', logger: silentLogger });
    assert.notEqual(built.isolation, 'bwrap');
    assert.deepEqual(Object.keys(built.env).sort(), ['HOME', 'LANG', 'PATH']);
    assert.equal(built.env.HOME, job);
  });
});
