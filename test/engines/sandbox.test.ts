// The shared sandbox of the program engines (src/engines/sandbox.ts), seen from inside: a program
// run through a ProgramEngine sees its job folder and the system, never DATA_DIR, the server's
// environment, /etc/passwd, /home or the server's processes, and has no network. Chromium runs in
// the same sandbox: a page cannot read those files, and the browser process itself (seen from
// outside through /proc) has none of them in its view and none of the server's environment.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ChromiumEngine } from '../../src/engines/chromium.ts';
import { ProgramEngine } from '../../src/engines/program.ts';
import { FAKE_PASSWD, sandboxCommand } from '../../src/engines/sandbox.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { commandOf, descendantsOf, ENGINE_JOB_LIMIT_MS, pdfText, waitUntil } from './support/tools.ts';

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

/** The browser's main process among this test's descendants: the real binary, not bwrap or a helper. */
function browserMainProcess(): number {
  const mains = descendantsOf(process.pid).filter((pid) => {
    const command = commandOf(pid);
    return path.basename(command.split(' ')[0]!) === 'chromium' && command.includes('--remote-debugging-pipe') && !command.includes('--type=');
  });
  assert.equal(mains.length, 1, `one browser main process, saw ${mains.map(commandOf).join(' | ')}`);
  return mains[0]!;
}

/** The environment of a process, as name to value. */
function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/** What the browser may share with the server's environment: names it is given values of its own for. */
const OWN_VARIABLES = new Set(['PATH', 'HOME', 'LANG', 'TMPDIR', 'PWD', 'CHROMIUM_FLAGS']);

function assertNothingOfTheServer(env: Map<string, string>, canary: string): void {
  for (const [name, value] of env) assert.ok(!value.includes(canary), `${name} holds the server's canary`);
  const inherited = Object.keys(process.env).filter((name) => env.has(name) && !OWN_VARIABLES.has(name));
  assert.deepEqual(inherited, [], 'no variable of the server reaches the browser');
  for (const name of ['HOME', 'TMPDIR']) assert.match(env.get(name) ?? '', /\/engines-chromium-[^/]+\/browser\//, `${name} is in the engine's own folder`);
}

/** Interfaces in the network namespace of `pid`. */
function interfacesOf(pid: number): string[] {
  const lines = readFileSync(`/proc/${pid}/net/dev`, 'utf8').split('\n').slice(2);
  return lines.map((line) => line.split(':')[0]!.trim()).filter(Boolean);
}

describe('Chromium in the sandbox', () => {
  let dataDir: string;
  let engine: ChromiumEngine;
  const canary = `chromium-canary-${randomBytes(8).toString('hex')}`;

  before(async () => {
    // Set before the browser starts: a browser given the server's environment would carry it.
    process.env.CHROMIUM_SANDBOX_CANARY = canary;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'engines-sandbox-data-'));
    await writeFile(path.join(dataDir, 'signing-secret'), canary);
    // sandbox: 'bwrap' requires bubblewrap: without it these tests fail, they do not pass quietly.
    engine = new ChromiumEngine({ concurrency: 1, sandbox: 'bwrap', jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
    await engine.warm();
  });

  after(async () => {
    delete process.env.CHROMIUM_SANDBOX_CANARY;
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a page reads neither /etc/passwd, DATA_DIR nor its environment (iframe, fetch, XHR of file: URLs)', async () => {
    const secret = path.join(dataDir, 'signing-secret');
    const html = `<!doctype html><body><h1>File probe</h1>
<iframe src="file:///etc/passwd"></iframe><iframe src="file://${secret}"></iframe><iframe src="file:///proc/self/environ"></iframe>
<pre id="out"></pre>
<script>
  const out = document.getElementById('out');
  const urls = ['file:///etc/passwd', 'file://${secret}', 'file:///proc/self/environ'];
  for (const url of urls) {
    try { const x = new XMLHttpRequest(); x.open('GET', url, false); x.send(); out.textContent += 'xhr:' + x.responseText + '\\n'; }
    catch (error) { out.textContent += 'xhr refused\\n'; }
  }
  Promise.all(urls.map((url) => fetch(url).then((r) => r.text()).then((t) => 'fetch:' + t, () => 'fetch refused')))
    .then((texts) => { out.textContent += texts.join('\\n'); document.body.insertAdjacentHTML('beforeend', '<p>Probe done</p>'); });
</script></body>`;
    const output = path.join(dataDir, 'probe.pdf');
    await engine.htmlToPdf({ html, outputPath: output });
    const text = await pdfText(output);
    assert.match(text, /File probe/);
    assert.match(text, /xhr refused/);
    assert.match(text, /fetch refused/);
    assert.ok(!text.includes(canary), 'the canary is not in the PDF');
    assert.doesNotMatch(text, /root:x:0:0|nobody:x|PATH=|HOME=/);
  });

  it('the browser process has a minimal environment, none of the server\'s', () => {
    assertNothingOfTheServer(environOf(browserMainProcess()), canary);
  });

  it('the browser process sees the system and its own folder only: no DATA_DIR, /home, real passwd or launcher', () => {
    const root = `/proc/${browserMainProcess()}/root`;
    const top = readdirSync(root);
    for (const name of ['home', 'root', 'work', 'srv', 'mnt']) assert.ok(!top.includes(name), `/${name} is in view`);
    assert.equal(existsSync(path.join(root, dataDir)), false, 'DATA_DIR is not in view');
    assert.equal(readFileSync(path.join(root, 'etc/passwd'), 'utf8'), FAKE_PASSWD);
    // /tmp is the sandbox's own: the profile and the engine's browser folder, nothing else of the host's.
    const tmp = readdirSync(path.join(root, 'tmp')).sort();
    assert.equal(tmp.length, 2, `only the profile and the engine folder in /tmp, saw ${tmp.join(', ')}`);
    assert.ok(tmp.includes('chromium-profile'));
    const own = tmp.find((name) => name.startsWith('engines-chromium-'));
    assert.ok(own, 'the engine folder');
    // The launcher script and the fake passwd are outside the view: the browser cannot rewrite its launcher.
    assert.deepEqual(readdirSync(path.join(root, 'tmp', own)), ['browser']);
    assert.deepEqual(readdirSync(path.join(root, 'tmp', own, 'browser')).sort(), ['home', 'tmp']);
  });

  it('the browser sees only its own processes, and has no network', () => {
    const pid = browserMainProcess();
    const procs = readdirSync(`/proc/${pid}/root/proc`).filter((entry) => /^\d+$/.test(entry));
    for (const inside of procs) {
      const command = readFileSync(`/proc/${pid}/root/proc/${inside}/cmdline`, 'utf8').replace(/\0/g, ' ');
      assert.match(command, /^(\S*bwrap|\S*\/chromium\/|$)/, `only the sandbox's own processes, saw ${command}`);
    }
    assert.deepEqual(interfacesOf(pid), ['lo']);
  });
});

describe('Chromium without bubblewrap', () => {
  let engine: ChromiumEngine;
  const canary = `chromium-canary-${randomBytes(8).toString('hex')}`;

  before(() => {
    process.env.CHROMIUM_SANDBOX_CANARY = canary;
    engine = new ChromiumEngine({ concurrency: 1, sandbox: 'none', jobTimeoutMs: ENGINE_JOB_LIMIT_MS, logger: silentLogger });
  });

  after(async () => {
    delete process.env.CHROMIUM_SANDBOX_CANARY;
    await engine.close();
  });

  it('still gets the minimal environment and, where the machine allows it, no network', async () => {
    // The browser of the sandboxed engine above is gone once reaped: wait for that, not a guess.
    await waitUntil(() => descendantsOf(process.pid).every((pid) => !commandOf(pid).includes('--remote-debugging-pipe')), 'the earlier browser is gone');
    const output = path.join(os.tmpdir(), `engines-sandbox-none-${randomBytes(4).toString('hex')}.pdf`);
    try {
      await engine.htmlToPdf({ html: '<p>Rendered without bwrap</p>', outputPath: output });
      assert.match(await pdfText(output), /Rendered without bwrap/);
    } finally {
      await rm(output, { force: true });
    }
    const pid = browserMainProcess();
    assertNothingOfTheServer(environOf(pid), canary);
    assert.deepEqual(interfacesOf(pid), ['lo'], 'unshare --net works here (root), so the browser has no network');
  });
});
