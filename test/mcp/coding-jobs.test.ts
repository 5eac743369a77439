// The frozen coding jobs' completion loop through the SDK's own client over Streamable HTTP against
// the real app: a job of two checks driven to done by submitting what the host's runner reported,
// the output tail kept, a failing run reopening a done job, another account seeing nothing, and
// bad input (unknown job, unknown check, duplicate ids, a huge output) answered with isError.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_KEPT_OUTPUT_CHARS, MAX_OUTPUT_CHARS } from '../../src/runs/coding-jobs/coding-job-store.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = Record<string, any>;

const CHECKS = [
  { id: 'tests', command: 'npm test', description: 'The unit tests pass' },
  { id: 'typecheck', command: 'npx tsc --noEmit', description: 'The code type-checks' },
];

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Structured; structured: boolean }> {
  const answer = await client.callTool({ name, arguments: args });
  const text = (answer.content as { text: string }[])[0]?.text ?? '';
  return { isError: answer.isError === true, body: (answer.structuredContent ?? JSON.parse(text)) as Structured, structured: answer.structuredContent !== undefined };
}

describe('MCP frozen coding jobs', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  let a: Client;
  let b: Client;
  const client = async (apiKey: string) => {
    const c = new Client({ name: 'coding-jobs-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(c);
    return c;
  };

  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    a = await client((await t.account()).apiKey);
    b = await client((await t.account()).apiKey);
    // the clients know the tools' output schemas, as a real host does after tools/list
    await a.listTools();
    await b.listTools();
  });
  after(async () => {
    for (const c of clients) await c.close();
    await t?.close();
  });

  it('lists job_start, job_status and job_submit_check, each telling the host the loop and that plan_task is not for coding jobs', async () => {
    const { tools } = await a.listTools();
    for (const name of ['job_start', 'job_status', 'job_submit_check']) {
      const tool = tools.find((x) => x.name === name);
      assert.ok(tool, name);
      assert.equal(tool.outputSchema?.type, 'object');
    }
    const start = tools.find((x) => x.name === 'job_start');
    assert.match(start?.description ?? '', /Do not call plan_task on a coding job\./);
    assert.match(start?.description ?? '', /The service never runs a command/);
    assert.deepEqual(tools.find((x) => x.name === 'job_status')?.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('drives a job of two checks to done with the host\'s own results; a later failure reopens it', async () => {
    const started = await call(a, 'job_start', { goal: 'Add a --json flag to the CLI', checks: CHECKS });
    assert.equal(started.isError, false);
    const jobId = started.body['jobId'];
    assert.match(jobId, /^job_[0-9a-f]{32}$/);
    assert.deepEqual({ ...started.body, jobId: 'x', createdAt: 'x', updatedAt: 'x' }, {
      jobId: 'x',
      goal: 'Add a --json flag to the CLI',
      status: 'open',
      done: false,
      checks: CHECKS.map((c) => ({ ...c, attempts: 0, last: null })),
      remaining: ['tests', 'typecheck'],
      next: 'Edit your workspace, then run `npm test` with your own runner and call job_submit_check with jobId, checkId "tests", its exitCode and its output. Remaining: tests, typecheck.',
      createdAt: 'x',
      updatedAt: 'x',
    });

    const failed = await call(a, 'job_submit_check', { jobId, checkId: 'tests', exitCode: 1, output: '1 failing\n  cli --json prints JSON' });
    assert.deepEqual([failed.isError, failed.body['passed'], failed.body['status'], failed.body['remaining']], [false, false, 'open', ['tests', 'typecheck']]);
    assert.equal(failed.body['next'], 'Check tests failed last (exit code 1): read the tail of its output, fix the cause, then run `npm test` with your own runner and call job_submit_check with jobId, checkId "tests", its exitCode and its output. Remaining: tests, typecheck.');
    const last = failed.body['checks'][0]['last'];
    assert.deepEqual({ ...last, submittedAt: 'x' }, { exitCode: 1, passed: false, output: '1 failing\n  cli --json prints JSON', outputChars: 34, truncated: false, submittedAt: 'x' });

    const passed = await call(a, 'job_submit_check', { jobId, checkId: 'tests', exitCode: 0, output: '12 passing' });
    assert.deepEqual([passed.body['passed'], passed.body['status'], passed.body['remaining']], [true, 'open', ['typecheck']]);
    const long = `${'x'.repeat(20_000)}${'y'.repeat(MAX_KEPT_OUTPUT_CHARS)}`;
    const typed = await call(a, 'job_submit_check', { jobId, checkId: 'typecheck', exitCode: 0, output: long });
    assert.deepEqual([typed.body['status'], typed.body['done'], typed.body['remaining']], ['done', true, []]);
    assert.equal(typed.body['next'], 'Every check\'s last result passed: the job is done. A later failing submission would reopen it.');

    const status = await call(a, 'job_status', { jobId });
    assert.equal(status.structured, true);
    assert.deepEqual([status.body['status'], status.body['checks'].map((c: Structured) => c['attempts'])], ['done', [2, 1]]);
    const kept = status.body['checks'][1]['last'];
    assert.deepEqual([kept['output'], kept['outputChars'], kept['truncated']], ['y'.repeat(MAX_KEPT_OUTPUT_CHARS), 20_000 + MAX_KEPT_OUTPUT_CHARS, true]);

    const reopened = await call(a, 'job_submit_check', { jobId, checkId: 'typecheck', exitCode: 2, output: 'error TS2322' });
    assert.deepEqual([reopened.body['status'], reopened.body['remaining']], ['open', ['typecheck']]);
  });

  it('another account cannot see or submit to the job: the same not-found as an unknown jobId', async () => {
    const started = await call(a, 'job_start', { goal: 'private', checks: [CHECKS[0]] });
    const jobId = started.body['jobId'];
    const expected = (id: string) => ({
      status: 'error',
      error: 'job_not_found',
      message: `No coding job ${id} in this account`,
      jobId: id,
      detail: 'Use the jobId job_start answered to this account, or start a job with job_start',
    });
    for (const [name, args] of [
      ['job_status', { jobId }],
      ['job_submit_check', { jobId, checkId: 'tests', exitCode: 0, output: 'ok' }],
    ] as const) {
      const answer = await call(b, name, args);
      assert.deepEqual([answer.isError, answer.structured, answer.body], [true, false, expected(jobId)], name);
    }
    const unknown = 'job_00000000000000000000000000000000';
    assert.deepEqual((await call(a, 'job_status', { jobId: unknown })).body, expected(unknown));
    assert.deepEqual((await call(a, 'job_status', { jobId: 'nonsense' })).body, expected('nonsense'));
    // the owner's job is untouched by the refused submission
    const own = await call(a, 'job_status', { jobId });
    assert.deepEqual([own.body['status'], own.body['checks'][0]['attempts']], ['open', 0]);
  });

  it('answers bad input with isError: unknown check, duplicate check ids, a bad check id, a huge output', async () => {
    const jobId = (await call(a, 'job_start', { goal: 'g', checks: CHECKS })).body['jobId'];
    const unknownCheck = await call(a, 'job_submit_check', { jobId, checkId: 'lint', exitCode: 0, output: '' });
    assert.deepEqual([unknownCheck.isError, unknownCheck.body], [
      true,
      { status: 'error', error: 'check_not_found', message: `Job ${jobId} has no check lint`, jobId, checkId: 'lint', checkIds: ['tests', 'typecheck'], detail: 'Use one of its checks: tests, typecheck' },
    ]);

    const duplicate = await call(a, 'job_start', { goal: 'g', checks: [CHECKS[0], { ...CHECKS[1], id: 'tests' }] });
    assert.deepEqual([duplicate.isError, duplicate.body], [true, { status: 'error', error: 'duplicate_check_id', message: 'Check id tests appears more than once', checkId: 'tests', detail: 'Give every check its own id' }]);

    const badId = await a.callTool({ name: 'job_start', arguments: { goal: 'g', checks: [{ id: 'has space', command: 'make' }] } });
    assert.equal(badId.isError, true);
    assert.match((badId.content as { text: string }[])[0]?.text ?? '', /a check id is 1-64 letters, digits, dots, dashes or underscores/);

    const noChecks = await a.callTool({ name: 'job_start', arguments: { goal: 'g', checks: [] } });
    assert.equal(noChecks.isError, true);

    const huge = await a.callTool({ name: 'job_submit_check', arguments: { jobId, checkId: 'tests', exitCode: 0, output: 'z'.repeat(MAX_OUTPUT_CHARS + 1) } });
    assert.equal(huge.isError, true);
    assert.match((huge.content as { text: string }[])[0]?.text ?? '', /output is over 1000000 characters: submit its last 8000 characters \(only the tail is kept\)/);
    const after = await call(a, 'job_status', { jobId });
    assert.deepEqual(after.body['checks'].map((c: Structured) => c['attempts']), [0, 0]);
  });
});
