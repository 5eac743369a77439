// The SDK's types as a consumer meets them: test/fixtures/typed-consumer.ts compiles with
// tsc --strict against the source, and a copy with wrong calls added fails, each wrong call at its
// own line with the error a user would read (a wrong field type, a value outside an enum, a
// missing field, an MCP argument of the wrong type, a route answer read as a shape the service does not
// answer, a method that does not exist).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(join(here, '..', '..', '..', 'package.json')).resolve('typescript/bin/tsc');
const fixture = join(here, 'fixtures', 'typed-consumer.ts');

/** Wrong calls, each on a line of its own, and the error tsc must give there. */
const WRONG = [
  { call: `await client.calculators_emi_calculator({ principal: '100000', rate: 10, tenure: 12 });`, code: 'TS2322', message: /Type 'string' is not assignable to type 'number'/ },
  { call: `await client.documents_docx_to_pdf({ file: new Uint8Array(), page_size: 'A7' });`, code: 'TS2322', message: /Type '"A7"' is not assignable to type/ },
  { call: `await client.invoke('calculators_emi_calculator', { principal: 1, rate: 1 });`, code: 'TS2345', message: /Property 'tenure' is missing/ },
  { call: `await client.mcp.plan_task({ goal: 42 });`, code: 'TS2322', message: /Type 'number' is not assignable to type 'string'/ },
  { call: `const day: number = (await client.request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' })).result.days[0]!.day;`, code: 'TS2322', message: /Type 'string' is not assignable to type 'number'/ },
  // The usage answer's remaining credits are result.remaining; a read of a shape the service does not answer fails.
  { call: `const left: number = (await client.request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' })).result.credits.remaining;`, code: 'TS2339', message: /Property 'credits' does not exist on type 'UsageGetResult'/ },
  { call: `await client.calculators_emi_calculatorr({ principal: 1, rate: 1, tenure: 1 });`, code: 'TS2551', message: /Property 'calculators_emi_calculatorr' does not exist/ },
];

/** tsc --strict on one file, by a tsconfig written beside it (a consumer's settings, the SDK source imported by path). */
async function compile(dir: string, file: string): Promise<{ status: number; output: string }> {
  const project = join(dir, `tsconfig.${Math.random().toString(36).slice(2)}.json`);
  const compilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: [],
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    pretty: false,
  };
  writeFileSync(project, JSON.stringify({ compilerOptions, files: [file] }));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-p', project], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    return { status: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('the SDK types under tsc --strict', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('the consumer compiles as written', async () => {
    const { status, output } = await compile(work, fixture);
    assert.equal(status, 0, output);
  });

  it('each wrong call fails at its line with the expected error, and nothing else fails', async () => {
    // The copy imports the source by absolute path; the wrong calls go before the final return.
    const source = readFileSync(fixture, 'utf8').replace(`'../../src/index.ts'`, JSON.stringify(join(here, '..', 'src', 'index.ts')));
    const lines = source.split('\n');
    const at = lines.findIndex((line) => line.trimStart().startsWith('return monthly'));
    assert.ok(at > 0, 'the fixture ends with its return');
    lines.splice(at, 0, ...WRONG.map((w) => `  ${w.call}`));
    const file = join(work, 'wrong-consumer.ts');
    writeFileSync(file, lines.join('\n'));

    const { status, output } = await compile(work, file);
    assert.notEqual(status, 0, 'the wrong calls compiled');
    // One entry per error: its first line and the indented lines that elaborate it.
    const errors = output.split(/\n(?=\S)/).filter((block) => /error TS\d+/.test(block));
    WRONG.forEach((wrong, i) => {
      const line = at + i + 1;
      const found = errors.find((e) => e.includes(`(${line},`));
      assert.ok(found, `no error at line ${line} (${wrong.call}):\n${output}`);
      assert.ok(found.includes(`error ${wrong.code}:`), `line ${line}: ${found}`);
      assert.match(found, wrong.message);
    });
    const lineOf = (error: string): number => Number(/\((\d+),/.exec(error)?.[1]);
    assert.deepEqual(errors.filter((e) => lineOf(e) < at + 1 || lineOf(e) > at + WRONG.length), [], 'only the wrong lines fail');
  });
});
