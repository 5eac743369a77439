// scripts/run-tests.ts, the runner `npm test` uses: a file that hangs outside any test fails
// under its own name once its time bound passes, and the files beside it still report.
// The runner runs as its own process, as scripts/test.sh starts it (run() nested in a test file
// would report into this file's runner instead).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FILE_TIMEOUT_MS, DEFAULT_TEST_TIMEOUT_MS } from '../../scripts/run-tests.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HANGS = 'test/support/runner-fixtures/hangs-before-its-tests.ts';
const PASSES = 'test/support/runner-fixtures/passes.ts';
const REGISTERS_LATER = 'test/support/runner-fixtures/registers-later.ts';

async function runOn(t: { after(fn: () => void): void }, patterns: string[], fileTimeoutMs: number): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', TEST_FILE_TIMEOUT_MS: String(fileTimeoutMs) };
  // detached: its own process group, so a failure here still takes the runner and its files down.
  const child = spawn(process.execPath, ['scripts/run-tests.ts', ...patterns], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('the test runner', { timeout: 300_000 }, () => {
  it('kills a file hung before its tests at its bound and fails it by name; the other file passes', async (t) => {
    // The bound only has to outlast the passing file's start; the hung file never ends by itself.
    const { code, output } = await runOn(t, [HANGS, PASSES], 20_000);
    assert.equal(code, 1, output);
    assert.match(output, /✔ adds/);
    assert.match(output, /runner-fixtures\/hangs-before-its-tests\.ts exceeded its 20000 ms bound \(TEST_FILE_TIMEOUT_MS\): killed/);
    assert.match(output, /ℹ tests 2\n/);
    assert.match(output, /ℹ pass 1\n/);
    assert.match(output, /ℹ cancelled 1\n/);
  });

  it('exits 0 when every file passes, with one summary', async (t) => {
    const { code, output } = await runOn(t, [PASSES], 600_000);
    assert.equal(code, 0, output);
    assert.equal(output.match(/ℹ tests /g)?.length, 1);
    assert.match(output, /ℹ pass 1\n/);
    assert.doesNotMatch(output, /failing tests/);
  });

  it('runs and counts a suite a file registers after a top-level await', async (t) => {
    const { code, output } = await runOn(t, [REGISTERS_LATER], 600_000);
    assert.equal(code, 0, output);
    assert.match(output, /✔ registered after an await/);
    assert.match(output, /ℹ tests 2\n/);
    assert.match(output, /ℹ suites 2\n/);
    assert.match(output, /ℹ pass 2\n/);
  });

  it("bounds a file beyond one test's limit, so a hung test fails under its own name first", () => {
    assert.ok(DEFAULT_FILE_TIMEOUT_MS > DEFAULT_TEST_TIMEOUT_MS, `${DEFAULT_FILE_TIMEOUT_MS} > ${DEFAULT_TEST_TIMEOUT_MS}`);
  });

  it('fails when no file matches, rather than passing on nothing', async (t) => {
    const { code, output } = await runOn(t, ['test/support/runner-fixtures/none-*.ts'], 600_000);
    assert.notEqual(code, 0);
    assert.match(output, /no test file matches/);
  });
});
