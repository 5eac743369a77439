// The SDK as a user gets it: `npm pack` in packages/sdk alone (its prepack builds), the tarball
// installed into an empty project with `npm ci --offline` (nothing downloaded), then an ESM and a
// CommonJS script run by the SYSTEM Node (/usr/bin/node, older than the service's, to prove
// engines >= 18) against the real app, and consumers of both formats type-checked against the
// installed declarations.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { shopPage, type ShopPage } from '../../../test/mcp/support/shop-page.ts';
import { writeConsumerProject } from './support/consumer-project.ts';

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = join(sdkDir, '..', '..');
const SYSTEM_NODE = '/usr/bin/node';
const execFileAsync = promisify(execFile);
const tsc = createRequire(join(repoDir, 'package.json')).resolve('typescript/bin/tsc');

/**
 * Runs a command to its end without blocking: the app under test answers from this same process,
 * so a synchronous spawn would starve it.
 */
async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } });
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} exited ${String(failed.code)}:\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

const ESM_SCRIPT = `
import { ToolServiceClient, ValidationError } from '@tool-service/sdk';
const client = new ToolServiceClient();
const emi = await client.calculators_emi_calculator({ principal: 100000, rate: 10, tenure: 12 });
let refused = null;
try { await client.calculators_emi_calculator({ principal: -5, rate: 10, tenure: 12 }); } catch (error) { refused = error instanceof ValidationError ? error.code : String(error); }
const plan = await client.mcp.plan_task({ goal: 'calculate the EMI of a loan' });
await client.mcp.close();
console.log(JSON.stringify({ node: process.versions.node, emi: emi.result.emi, requestId: emi.meta.requestId, refused, config: client.mcp.config({ name: 'tools' }), planned: JSON.stringify(plan).includes('calculators_emi_calculator') }));
`;

const CJS_SCRIPT = `
const { ToolServiceClient, ToolServiceError } = require('@tool-service/sdk');
(async () => {
  const client = new ToolServiceClient({ apiKey: process.env.TOOL_SERVICE_API_KEY, baseUrl: process.env.TOOL_SERVICE_BASE_URL });
  const emi = await client.invoke('calculators_emi_calculator', { principal: 100000, rate: 10, tenure: 12 });
  const found = await client.mcp.discover_tools({ query: 'emi loan', pageSize: 1 });
  await client.mcp.close();
  console.log(JSON.stringify({ node: process.versions.node, format: typeof module, emi: emi.result.emi, errorClass: typeof ToolServiceError, config: client.mcp.config({ name: 'tools' }), discovered: JSON.stringify(found).includes('calculators_emi_calculator') }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/** A consumer of each format: the right call compiles; a wrong field type must be an error (or @ts-expect-error fails). */
const TYPED_CONSUMER = (importLine: string) => `${importLine}
export async function main(): Promise<number> {
  const client = new ToolServiceClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
  const answer = await client.calculators_emi_calculator({ principal: 100000, rate: 10, tenure: 12 });
  const emi: number = answer.result.emi;
  // @ts-expect-error principal is a number
  await client.calculators_emi_calculator({ principal: '100000', rate: 10, tenure: 12 });
  const config: { mcpServers: Record<string, { url: string }> } = client.mcp.config({ name: 'tools' });
  const error: ToolServiceError | undefined = undefined;
  return emi + Object.keys(config.mcpServers).length + (error === undefined ? 0 : 1);
}
`;

/** What the person running the verify-loop example changes in page.html for a fix's rule. */
const PAGE_EDITS: Record<string, (p: ShopPage) => void> = {
  'image-alt-missing': (p) => void (p.altText = true),
  'meta-description-missing': (p) => void (p.description = 'Trail running shoes, boots and socks from our Lisbon workshop, tested on rock and mud, with free returns.'),
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('the packed SDK, installed into an empty project', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let work: string;
  let project: string;
  let packed: { filename: string; files: { path: string }[] };

  before(async () => {
    // The examples download by the absolute downloadUrl, so PUBLIC_BASE_URL must name the port
    // the app listens on: a free loopback port is taken first, then the app is started on it.
    const port = await freePort();
    t = await startTestApp({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    await t.app.listen({ port, host: '127.0.0.1' });
    base = `http://127.0.0.1:${port}`;
    ({ apiKey } = await t.account({ quota: 1_000 }));
    work = mkdtempSync(join(tmpdir(), 'sdk-package-'));
    project = join(work, 'project');
    mkdirSync(project);
    const pack = await run('npm', ['pack', '--json', '--pack-destination', project], sdkDir);
    [packed] = JSON.parse(pack.stdout) as [typeof packed];
    writeConsumerProject(project, join(project, packed.filename), join(repoDir, 'package-lock.json'));
    await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], project);
  });
  after(async () => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
    await (t as TestApp | undefined)?.close();
  });

  it('the tarball holds the two builds, their types and the README, and no source or tests', () => {
    const paths = packed.files.map((f) => f.path);
    for (const path of ['package.json', 'README.md', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'dist/esm/mcp.js', 'dist/esm/generated/operations.js']) {
      assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
    }
    assert.deepEqual(paths.filter((p) => !p.startsWith('dist/') && p !== 'package.json' && p !== 'README.md'), []);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules/@tool-service/sdk/package.json'), 'utf8')) as { version: string; engines: { node: string } };
    assert.equal(manifest.engines.node, '>=18');
    const [major, minor, patch] = manifest.version.split('.').map(Number) as [number, number, number];
    assert.ok(major > 0 || minor > 1 || (minor === 1 && patch >= 2), `version ${manifest.version} is 0.1.2 or later`);
    assert.equal(readFileSync(join(project, 'node_modules/@tool-service/sdk/dist/cjs/package.json'), 'utf8').trim(), '{"type":"commonjs"}');
  });

  it('an ESM script on the system Node calls a JSON tool, reads its meta, catches a ValidationError and plans over MCP', async () => {
    assert.ok(existsSync(SYSTEM_NODE), `${SYSTEM_NODE} (the system Node) is needed to prove Node >= 18`);
    writeFileSync(join(project, 'esm.mjs'), ESM_SCRIPT);
    const out = await run(SYSTEM_NODE, ['esm.mjs'], project, { TOOL_SERVICE_API_KEY: apiKey, TOOL_SERVICE_BASE_URL: base });
    const answer = JSON.parse(out.stdout.trim().split('\n').pop() ?? '') as Record<string, unknown>;
    const major = Number(String(answer['node']).split('.')[0]);
    assert.ok(major >= 18 && major < 22, `the system Node is ${String(answer['node'])}: older than the service's own, so the engines promise is tested`);
    assert.equal(answer['emi'], 8791.59);
    assert.match(String(answer['requestId']), /\S/);
    assert.equal(answer['refused'], 'validation_error');
    assert.deepEqual(answer['config'], { mcpServers: { tools: { url: `${base}/mcp`, headers: { 'X-Api-Key': apiKey } } } });
    assert.equal(answer['planned'], true);
  });

  it('a CommonJS script on the system Node requires it, invokes by operationId and discovers over MCP', async () => {
    writeFileSync(join(project, 'cjs.cjs'), CJS_SCRIPT);
    const out = await run(SYSTEM_NODE, ['cjs.cjs'], project, { TOOL_SERVICE_API_KEY: apiKey, TOOL_SERVICE_BASE_URL: base });
    const answer = JSON.parse(out.stdout.trim().split('\n').pop() ?? '') as Record<string, unknown>;
    assert.ok(Number(String(answer['node']).split('.')[0]) >= 18);
    assert.equal(answer['format'], 'object', 'ran as CommonJS');
    assert.equal(answer['emi'], 8791.59);
    assert.equal(answer['errorClass'], 'function');
    assert.deepEqual(answer['config'], { mcpServers: { tools: { url: `${base}/mcp`, headers: { 'X-Api-Key': apiKey } } } });
    assert.equal(answer['discovered'], true);
  });

  it('the examples run on the system Node against the installed package: a JSON tool, a file converted and downloaded', async () => {
    const env = { TOOL_SERVICE_API_KEY: apiKey, TOOL_SERVICE_BASE_URL: base };
    const emi = await run(SYSTEM_NODE, [copyInto(join(sdkDir, 'examples', 'emi.mjs'))], project, env);
    assert.match(emi.stdout, /^EMI 8791\.59 a month, \d+(\.\d+)? interest in all$/m);
    assert.match(emi.stdout, /^request \S+: \d+ credits left, \d+ calls left this minute$/m);
    writeFileSync(join(project, 'notes.md'), '# Field notes\n\nThe *ridge* trail, 12 km.\n');
    const converted = await run(SYSTEM_NODE, [copyInto(join(sdkDir, 'examples', 'convert-file.mjs')), 'notes.md', 'notes.html'], project, env);
    assert.match(converted.stdout, /^wrote notes\.html: \d+ bytes$/m, converted.stdout);
    const html = readFileSync(join(project, 'notes.html'), 'utf8');
    assert.match(html, /<h1[^>]*>Field notes<\/h1>/);
    assert.match(html, /<em>ridge<\/em>/);
  });

  it('the verify-loop example, driven as a person would (edit the file the fix names, press Enter), ends verified', async () => {
    const page: ShopPage = { images: 6, blockingScripts: 0, altText: false, description: null, title: 'Trail running shoes and boots | Shop' };
    const file = join(project, 'page.html');
    writeFileSync(file, shopPage(page));
    const child = spawn(SYSTEM_NODE, [copyInto(join(sdkDir, 'examples', 'verify-loop.mjs')), 'page.html', 'Audit the SEO of my page'], {
      cwd: project,
      env: { ...process.env, TOOL_SERVICE_API_KEY: apiKey, TOOL_SERVICE_BASE_URL: base },
    });
    let stdout = '';
    let stderr = '';
    const fixed: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Each prompt follows the fix it asks for: edit the page as that fix's rule says, then Enter.
      if (!stdout.endsWith('press Enter to verify ')) return;
      const rule = [...stdout.matchAll(/^fix (\S+) /gm)].at(-1)?.[1] ?? '';
      const edit = PAGE_EDITS[rule];
      if (edit === undefined) {
        child.kill();
        return;
      }
      edit(page);
      fixed.push(rule);
      writeFileSync(file, shopPage(page));
      child.stdin.write('\n');
    });
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /^verified after \d+ round\(s\)$/m, stdout);
    assert.deepEqual(fixed.sort(), ['image-alt-missing', 'meta-description-missing'], stdout);
  });

  /** An example copied beside the project's node_modules, so it imports the installed package. */
  function copyInto(example: string): string {
    const target = join(project, basename(example));
    copyFileSync(example, target);
    return target;
  }

  it('the installed types check for an ESM and a CommonJS consumer under tsc --strict', () => {
    writeFileSync(join(project, 'consumer.mts'), TYPED_CONSUMER(`import { ToolServiceClient, ToolServiceError } from '@tool-service/sdk';`));
    writeFileSync(
      join(project, 'consumer.cts'),
      TYPED_CONSUMER(`import sdk = require('@tool-service/sdk');\nconst { ToolServiceClient } = sdk;\ntype ToolServiceError = sdk.ToolServiceError;`),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: true }, files: ['consumer.mts', 'consumer.cts'] }),
    );
    const check = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', timeout: 120_000 });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  });
});
