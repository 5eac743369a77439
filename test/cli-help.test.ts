// The CLI as an operator meets it: every command and group answers --help and -h without side
// effects (no settings read, no database or data directory made, no server started), --version,
// the API's own rules for a new account's e-mail and password, and the commands that find an
// account and its keys without reading the database by hand.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS, GROUPS } from '../src/cli/command-table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'bin', 'tool-service');

interface RunResult { code: number; stdout: string; stderr: string }

function run(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(LAUNCHER, args, { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

function envFor(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  if (process.env['HOME'] !== undefined) env['HOME'] = process.env['HOME'];
  return env;
}

describe('CLI help and version, without side effects', () => {
  let base = '';
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'cli-help-'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('every command answers --help and -h with its usage and options, and touches nothing', async () => {
    // Each command with --help, and -h on every other one (one process per command, not two).
    for (const [index, command] of COMMANDS.entries()) {
      for (const flag of [index % 2 === 0 ? '--help' : '-h']) {
        const dataDir = join(base, `${command.path.join('-')}${flag}`);
        // serve --help must not start a server: were it to, execFile would wait for the time limit.
        const r = await run([...command.path, flag], { ...envFor(dataDir), PORT: '1' });
        assert.equal(r.code, 0, `${command.path.join(' ')} ${flag}: ${r.stderr}`);
        assert.match(r.stdout, new RegExp(`^Usage: tool-service ${command.path.join(' ')}`));
        for (const option of command.options) assert.match(r.stdout, new RegExp(`--${option.name}\\b[^\\n]*${option.description.slice(0, 12).replace(/[()]/g, '.')}`));
        assert.match(r.stdout, /-h, --help/);
        assert.equal(existsSync(dataDir), false, `${command.path.join(' ')} ${flag} made ${dataDir}`);
      }
    }
  });

  it('the overview, groups and "help <command>" list the commands; --version prints the package version', async () => {
    const env = envFor(join(base, 'overview'));
    for (const args of [[], ['--help'], ['-h'], ['help']]) {
      const r = await run(args, env);
      assert.equal(r.code, 0);
      for (const command of COMMANDS) assert.ok(r.stdout.includes(`  ${command.path.join(' ')} `), `${args.join(' ')} lists ${command.path.join(' ')}`);
    }
    for (const group of GROUPS) {
      const r = await run([group, '--help'], env);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`^Usage: tool-service ${group} <command>`));
      // A group alone is an incomplete command: its help, exit 2.
      assert.equal((await run([group], env)).code, 2);
    }
    const help = await run(['help', 'keys', 'create'], env);
    assert.match(help.stdout, /^Usage: tool-service keys create --account ID/);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) assert.equal((await run([flag], env)).stdout.trim(), pkg.version);
    assert.equal(existsSync(join(base, 'overview')), false);
  });

  it('an unknown sub-command shows its group, not every command', async () => {
    const r = await run(['keys', 'frob'], envFor(join(base, 'unknown')));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command: keys frob/);
    assert.match(r.stderr, /keys revoke/);
    assert.doesNotMatch(r.stderr, /accounts create/);
  });
});

describe('CLI accounts and keys: the API rules, and finding what was made', () => {
  let dataDir = '';
  let env: NodeJS.ProcessEnv = {};
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cli-accounts-'));
    env = envFor(dataDir);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses an e-mail and a password the sign-up route refuses, naming the flag', async () => {
    const email = await run(['accounts', 'create', '--email', 'not-an-email'], env);
    assert.equal(email.code, 2);
    assert.match(email.stderr, /--email must be an e-mail address, not "not-an-email"/);
    const password = await run(['accounts', 'create', '--email', 'short@example.com', '--password', 'abcde'], env);
    assert.equal(password.code, 2);
    assert.match(password.stderr, /--password must be at least 10 characters/);
    const list = await run(['accounts', 'list'], env);
    assert.deepEqual(JSON.parse(list.stdout), [], 'nothing was created');
  });

  it('accounts list and show, keys list: ids, plans, usage and keys, never a secret', async () => {
    const first = JSON.parse((await run(['accounts', 'create', '--email', 'ops@example.com', '--plan', 'pro', '--verified', '--password', 'a-long-password'], env)).stdout) as { accountId: string; apiKey: string; keyId: string };
    const second = JSON.parse((await run(['accounts', 'create', '--email', 'dev@example.com'], env)).stdout) as { accountId: string; apiKey: string; keyId: string };
    const listed = JSON.parse((await run(['accounts', 'list'], env)).stdout) as { accountId: string; email: string; plan: string }[];
    assert.deepEqual(listed.map((a) => [a.accountId, a.email, a.plan]), [[first.accountId, 'ops@example.com', 'pro'], [second.accountId, 'dev@example.com', 'free']]);
    assert.deepEqual((JSON.parse((await run(['accounts', 'list', '--limit', '1', '--offset', '1'], env)).stdout) as { accountId: string }[]).map((a) => a.accountId), [second.accountId]);

    const extra = JSON.parse((await run(['keys', 'create', '--account', first.accountId, '--name', 'ci'], env)).stdout) as { keyId: string };
    await run(['keys', 'revoke', '--key', extra.keyId], env);
    const shown = await run(['accounts', 'show', '--email', 'OPS@example.com'], env);
    assert.equal(shown.code, 0, shown.stderr);
    const account = JSON.parse(shown.stdout) as { accountId: string; plan: string; emailVerified: boolean; usage: { quota: number; used: number; requestsPerMinute: number }; keys: { keyId: string; revokedAt: string | null }[] };
    assert.equal(account.accountId, first.accountId);
    assert.equal(account.plan, 'pro');
    assert.equal(account.emailVerified, true);
    assert.deepEqual([account.usage.quota, account.usage.used, account.usage.requestsPerMinute], [50_000, 0, 600]);
    assert.deepEqual(account.keys.map((k) => k.keyId), [first.keyId, extra.keyId]);
    for (const secret of [first.apiKey, second.apiKey]) assert.equal(shown.stdout.includes(secret), false, 'no secret is shown');

    const live = JSON.parse((await run(['keys', 'list', '--account', first.accountId], env)).stdout) as { keyId: string; prefix: string }[];
    assert.deepEqual(live.map((k) => k.keyId), [first.keyId]);
    assert.ok(first.apiKey.startsWith(live[0]?.prefix ?? '?'), 'the prefix is the start of the secret');
    const all = JSON.parse((await run(['keys', 'list', '--account', first.accountId, '--all'], env)).stdout) as { keyId: string }[];
    assert.equal(all.length, 2);

    const missing = await run(['accounts', 'show', '--account', 'no-such-id'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no account no-such-id/);
    // keys create and keys list find their account the same way: the same refusal, with their own usage.
    for (const words of [['keys', 'create'], ['keys', 'list']]) {
      const r = await run([...words, '--account', 'no-such-id'], env);
      assert.equal(r.code, 2, `${words.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^tool-service: no account no-such-id\n/);
      assert.match(r.stderr, new RegExp(`Usage: tool-service ${words.join(' ')} `));
      assert.equal(r.stdout, '');
    }
    const both = await run(['accounts', 'show'], env);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--account ID or --email E/);
  });
});
