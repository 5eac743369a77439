// Issue 11 §7, bad input to the planner tools, each a clear status or error that says what to do
// next, never a run and never a charge where nothing could run: an empty or absurd goal, a
// baseline from another account or of another goal, a forged or truncated jobReport, maxRounds 0
// or 1,000. Also: solve_task with async: true through get_run, and local HTML analysed free.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Run } from '../../src/runs/run-store.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;

const PAGE = '<!doctype html><html><head><title>Hi</title></head><body><img src="a.png"></body></html>';
const GOAL = 'audit the seo of my page';

describe('planner tools: bad input answered with what to do next', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  let mine: Client;
  let theirs: Client;
  let accountId: string;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    const a = await t.account({ quota: 1000 });
    accountId = a.accountId;
    mine = await connect(a.apiKey);
    theirs = await connect((await t.account({ quota: 1000 })).apiKey);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'planner-bad-input', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Answer }> => {
    const r = await client.callTool({ name, arguments: args });
    return { isError: r.isError === true, body: answerOf(r) as Answer };
  };
  const used = async () => {
    await t.services.usage.flush();
    return t.services.accounts.usedCredits(accountId);
  };

  it('local HTML is analysed free: the solve charges nothing and reports the page', async () => {
    const before = await used();
    const { body } = await call(mine, 'solve_task', { goal: GOAL, input: { html: PAGE } });
    assert.equal(body['mode'], 'local');
    assert.equal(body['credits'].charged, 0);
    assert.equal(await used(), before);
    assert.ok(body['jobReport'].findings.some((f: Answer) => f.rule === 'image-alt-missing'));
    assert.equal(body['loop'].round, 0);
    // enhance asks for the billed checks on the live page: without a URL it says so, runs nothing
    const enhanced = (await call(mine, 'solve_task', { goal: GOAL, input: { html: PAGE }, enhance: true })).body;
    assert.equal(enhanced['status'], 'need_input');
    assert.deepEqual(enhanced['missing'], ['url']);
    assert.match(enhanced['hint'], /enhance: true runs the billed checks on the live page/);
    assert.equal(await used(), before);
  });

  it('an empty, an absurd and an over-long goal: suggest with example goals, nothing run', async () => {
    for (const goal of ['', '   ', 'qwzx vbnm plok', 'x'.repeat(2500)]) {
      const { body } = await call(mine, 'solve_task', { goal: goal.slice(0, 4000) });
      assert.equal(body['status'], 'suggest', JSON.stringify(goal.slice(0, 20)));
      assert.ok(body['exampleGoals'].length > 0);
      assert.ok(body['hint'].length > 10);
    }
  });

  it('maxRounds 0 or 1000: a validation error naming the range, nothing run', async () => {
    const before = await used();
    for (const maxRounds of [0, 1000]) {
      const { isError, body } = await call(mine, 'solve_task', { goal: GOAL, input: { html: PAGE }, maxRounds });
      assert.equal(isError, true);
      assert.equal(body['error'], 'validation_error');
      assert.match(body['message'], /maxRounds must be an integer from 1 to 20/);
    }
    assert.equal(await used(), before);
  });

  it('no baseline, a forged one, a truncated one, another goal\'s and another account\'s: need_input, nothing re-run', async () => {
    const solved = (await call(mine, 'solve_task', { goal: GOAL, input: { html: PAGE } })).body;
    const verify = (client: Client, baseline: unknown) => call(client, 'verify_task', { goal: GOAL, input: { html: PAGE }, ...(baseline === undefined ? {} : { baseline }) });
    // Every unusable baseline is the spec's need_baseline; the particular reason is in `reason` and `detail`.
    const refusal = async (client: Client, baseline: unknown, reason: string, what: string) => {
      const body = (await verify(client, baseline)).body;
      assert.equal(body['status'], 'need_input', what);
      assert.equal(body['code'], 'need_baseline', what);
      assert.equal(body['reason'], reason, `${what}: ${body['detail']}`);
      assert.equal(typeof body['detail'], 'string', what);
    };
    await refusal(mine, undefined, 'missing', 'no baseline');
    const forged = structuredClone(solved);
    forged['jobReport'].findings = [];
    await refusal(mine, forged, 'invalid_baseline', 'a forged report, even inside an answer that names its run');
    const truncated = { jobReport: { ...solved['jobReport'], findings: undefined } };
    await refusal(mine, truncated, 'invalid_baseline', 'a cut report with no run named');
    const other = (await call(mine, 'solve_task', { goal: 'is https://example.com/ ready to ship', input: {} })).body;
    assert.equal(other['jobReport'].playbookId, 'ship-check');
    await refusal(mine, other, 'baseline_mismatch', "another goal's run");
    await refusal(theirs, solved, 'invalid_baseline', "another account's answer: its report's seal is per account");
    await refusal(theirs, { runId: solved['execution'].runId }, 'unknown_run', "another account's runId");
    // and a good baseline verifies
    const fine = (await verify(mine, solved)).body;
    assert.equal(fine['loop'].round, 1);
    assert.ok(['fail', 'continue', 'stopped'].includes(fine['status']), fine['status']);
  });

  it('solve_task with async: true answers accepted, and get_run returns the job result with resultStatus', async () => {
    const accepted = (await call(mine, 'solve_task', { goal: GOAL, input: { html: PAGE }, async: true })).body;
    assert.equal(accepted['status'], 'accepted');
    const runId = accepted['runId'] as string;
    const events = t.services.runExecutor.events;
    let run: Run | undefined;
    while (!run) {
      const [finished] = (await once(events, 'finished')) as [Run];
      if (finished.runId === runId) run = finished;
    }
    const polled = (await call(mine, 'get_run', { runId })).body;
    assert.equal(polled['status'], 'completed');
    assert.equal(polled['kind'], 'solve_task');
    assert.equal(polled['resultStatus'], 'ok');
    assert.equal(polled['result'].loop.round, 0);
    assert.equal(polled['result'].jobReport.playbookId, 'seo-audit');
    // the poll payload is a baseline too (its nested result is used)
    const verified = (await call(mine, 'verify_task', { goal: GOAL, input: { html: PAGE }, baseline: polled })).body;
    assert.equal(verified['baselineSource'], 'runId', 'a get_run payload names its run');
    assert.equal(verified['loop'].round, 1);
  });
});
