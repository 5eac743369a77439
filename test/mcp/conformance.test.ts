// The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) run
// against the real server over HTTP, for the server scenarios that apply to a server without the
// suite's fixture tools (test_simple_text, test_image_content, …), resources or prompts.
//
// The suite's CLI cannot send headers, and every MCP request here needs an API key: it talks to a
// small loopback proxy (test code only) that adds X-Api-Key and forwards everything else as sent,
// Host and Origin included, so the DNS-rebinding scenario still tests the server's own checks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';

/** The scenarios run, each with why it applies; docs/mcp.md lists the ones left out and why. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

/**
 * Checks known to fail, asserted as failing so that a fix shows up here (then remove the entry).
 * The server's Origin check (src/mcp/mcp-routes.ts originAllowed) accepts an Origin equal to the
 * request's own Host, so Host: evil.example.com with Origin: http://evil.example.com, which is
 * what a DNS-rebinding page sends, is let through.
 */
const KNOWN_FAILURES: Readonly<Record<string, string>> = {};

// A hang guard, not a speed check: a scenario takes seconds, but a shared machine at load 15-20
// slows everything several-fold, and a scenario killed early fails as if the server had.
const SCENARIO_TIMEOUT_MS = 300_000;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

const conformanceBin = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

/** Forwards every request to `target`, adding the API key; answers are streamed back as they come (SSE too). */
function keyProxy(target: URL, apiKey: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-api-key': apiKey } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/mcp` });
    });
  });
}

/** Runs one scenario with the suite's CLI and answers its checks (from the results it writes). */
async function runScenario(url: string, scenario: string, outDir: string): Promise<{ checks: Check[]; output: string }> {
  const child = spawn(process.execPath, [conformanceBin, 'server', '--url', url, '--scenario', scenario, '-o', outDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS);
  const exit = await new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  clearTimeout(timer);
  const dir = readdirSync(outDir).find((name) => name.startsWith(`server-${scenario}-`));
  assert.ok(dir, `the suite wrote results for ${scenario} (exit ${exit}):\n${output}`);
  return { checks: JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as Check[], output };
}

describe('the official MCP conformance suite, server scenarios', () => {
  let t: TestApp;
  let proxy: Server;
  let url: string;
  let outDir: string;
  before(async () => {
    t = await startTestApp();
    const base = await listen(t);
    const { apiKey } = await t.account({ quota: 1000 });
    ({ server: proxy, url } = await keyProxy(new URL(base), apiKey));
    outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  });
  after(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await t.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario}: every check passes, a known failure fails exactly as recorded`, { timeout: SCENARIO_TIMEOUT_MS + 10_000 }, async () => {
      const { checks, output } = await runScenario(url, scenario, outDir);
      assert.ok(checks.length > 0, `${scenario} ran at least one check:\n${output}`);
      for (const check of checks) {
        const known = KNOWN_FAILURES[check.id];
        if (known !== undefined) {
          assert.equal(check.status, 'FAILURE', `${check.id} now passes: remove it from KNOWN_FAILURES (and from docs/mcp.md)`);
          assert.equal(check.errorMessage, known);
          continue;
        }
        assert.equal(check.status, 'SUCCESS', `${scenario}/${check.id}: ${check.status} ${check.errorMessage ?? ''}`);
      }
    });
  }
});
