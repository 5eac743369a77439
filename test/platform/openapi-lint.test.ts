// The served /openapi.json lints clean with the two linters clients run on it: Redocly's
// `recommended` ruleset and Spectral's `oas`, both installed as dev dependencies and run here as
// their own command lines, offline: the file runs in a network namespace with only loopback, so a
// linter that wanted to fetch a ruleset or send telemetry would fail rather than pass quietly.
//
// The document is the one an operator serves: PUBLIC_BASE_URL is a public https URL (on
// localhost, Redocly's no-server-example.com rightly warns that the servers entry is not one).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

await runInIsolatedNetwork(import.meta.filename);

const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    // The linters' own switches for telemetry and update checks: off (they would try the network).
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };
    execFile(join(BIN, command), args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('/openapi.json lints clean with Redocly and Spectral', () => {
  let t: TestApp;
  let dir: string;
  let documentPath: string;
  before(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://tools.acme.test' } });
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    documentPath = join(dir, 'openapi.json');
    writeFileSync(documentPath, res.body);
    // The rulesets named, not left to each tool's default.
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
  });
  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Redocly recommended: 0 errors, 0 warnings', async () => {
    const result = await run('redocly', ['lint', '--format=json', '--max-problems=100000', 'openapi.json'], dir);
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
    assert.equal(result.code, 0, result.stderr);
  });

  it('Spectral oas: 0 errors, 0 warnings', async () => {
    // --quiet: the JSON alone (without it a clean run appends "No results with a severity...").
    const result = await run('spectral', ['lint', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet', 'openapi.json'], dir);
    const problems = (JSON.parse(result.stdout) as { code: string; message: string; path: string[] }[]).map((p) => `${p.code}: ${p.message} at ${p.path.join('/')}`);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.equal(result.code, 0, `${result.stdout.slice(0, 500)}\n${result.stderr.slice(0, 2000)}`);
  });
});
