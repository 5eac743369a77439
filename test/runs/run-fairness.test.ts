// The async run queue is shared between accounts like the engines: one account (pro plan) filling
// it runs at most half of the run slots, keeps at most its share waiting and hears runs_busy itself
// (429, Retry-After) while other accounts still get in, and a freed slot goes to the account served
// least, so another account's run starts before the flooder's next one. Open runs in the database
// (any process) count against an account's plan. Through MCP with the SDK's own client; every run
// is a gated test tool, so the order of starts is what the tool itself saw, never a timing.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { PLANS } from '../../src/accounts/plans.ts';
import { Catalog, loadCatalog } from '../../src/core/catalog.ts';
import { defineTool } from '../../src/core/define-tool.ts';
import { newRunId, type Run } from '../../src/runs/run-store.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';

/** A tool that records which run started and holds each until the test opens its own gate. */
function gatedTool() {
  const events = new EventEmitter();
  const started: string[] = [];
  const open = new Set<string>();
  const tool = defineTool({
    family: 'testing',
    slug: 'held',
    title: 'Held tool',
    description: 'Records its start and waits until the test opens the gate of its label.',
    credits: 1,
    input: z.object({ label: z.string() }),
    output: z.object({ label: z.string() }),
    examples: [],
    async run({ label }) {
      started.push(label);
      events.emit('started');
      while (!open.has(label)) await once(events, 'open');
      return { label };
    },
  });
  return {
    tool,
    started,
    release(label: string) {
      open.add(label);
      events.emit('open');
    },
    async until(count: number) {
      while (started.length < count) await once(events, 'started');
    },
  };
}

describe('the async run queue between accounts', () => {
  const held = gatedTool();
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  const finished = new Map<string, Run>();

  before(async () => {
    const real = await loadCatalog();
    // Two run slots and a backlog of 8, of which one account may keep a quarter (2) waiting.
    t = await startTestApp({ catalog: new Catalog([...real.tools, held.tool]), env: { RUN_CONCURRENCY: '2', RUN_QUEUE_LIMIT: '8' } });
    t.services.runExecutor.events.on('finished', (run: Run) => finished.set(run.runId, run));
    base = await listen(t);
  });
  after(async () => {
    for (const label of ['F1', 'F2', 'F3', 'F4', 'O1', 'O2', 'T1']) held.release(label);
    for (const client of clients) await client.close();
    await t.close();
  });

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'run-fairness-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(client);
    return client;
  }

  async function submit(client: Client, label: string): Promise<{ isError: boolean; body: Answer }> {
    const answer = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'testing_held', input: { label }, async: true } });
    return { isError: answer.isError === true, body: answerOf(answer) };
  }

  async function ended(runId: string): Promise<Run> {
    while (!finished.has(runId)) await once(t.services.runExecutor.events, 'finished');
    return finished.get(runId)!;
  }

  it("caps a pro account at half the slots and its own share of the backlog; another account's runs start before its next ones", async () => {
    assert.ok(PLANS['pro']!.runsAtOnce >= 2 && PLANS['pro']!.runsWaiting > 2, 'the plan alone would let the flooder take both slots and fill the backlog');
    const flooder = await connect((await t.account({ plan: 'pro', quota: 1000 })).apiKey);
    const other = await connect((await t.account({ plan: 'pro', quota: 1000 })).apiKey);
    const third = await connect((await t.account({ plan: 'free', quota: 1000 })).apiKey);

    const runs: Record<string, string> = {};
    for (const label of ['F1', 'F2', 'F3']) {
      const answer = await submit(flooder, label);
      assert.equal(answer.body['status'], 'accepted', JSON.stringify(answer.body));
      runs[label] = answer.body['runId'];
    }
    await held.until(1);
    assert.deepEqual(t.services.runExecutor.stats, { running: 1, queued: 2 }, 'one of two slots, two waiting');

    // Its share of the backlog is full: the flooder itself is refused, with when to retry.
    const refused = await submit(flooder, 'F4');
    assert.equal(refused.isError, true);
    assert.equal(refused.body['error'], 'runs_busy');
    assert.equal(refused.body['retryAfterSeconds'], 5);
    assert.match(refused.body['message'], /2 of your runs are already waiting/);

    // The other accounts still get in, and the second slot is the other account's at once.
    for (const [client, label] of [[other, 'O1'], [other, 'O2'], [third, 'T1']] as const) {
      const answer = await submit(client, label);
      assert.equal(answer.body['status'], 'accepted', `${label}: ${JSON.stringify(answer.body)}`);
      runs[label] = answer.body['runId'];
    }
    await held.until(2);
    assert.deepEqual(held.started, ['F1', 'O1']);
    assert.deepEqual(t.services.runExecutor.stats, { running: 2, queued: 4 });

    // F1 ends: the third account (never served) goes before the flooder's F2; the other account is at its cap.
    held.release('F1');
    await held.until(3);
    assert.deepEqual(held.started, ['F1', 'O1', 'T1']);
    // O1 ends: the flooder (nothing running, served before the other account) has its turn, then the other's.
    held.release('O1');
    await held.until(4);
    held.release('T1');
    await held.until(5);
    assert.deepEqual(held.started, ['F1', 'O1', 'T1', 'F2', 'O2']);
    for (const label of ['F2', 'O2', 'F3']) held.release(label);
    await held.until(6);
    assert.deepEqual(held.started, ['F1', 'O1', 'T1', 'F2', 'O2', 'F3']);
    for (const runId of Object.values(runs)) assert.equal((await ended(runId)).resultStatus, 'ok');
    assert.deepEqual(t.services.runExecutor.stats, { running: 0, queued: 0 });
  });

  it("counts the account's open runs in the database (every process): past its plan's runs at once and waiting, runs_busy", async () => {
    const { accountId, apiKey } = await t.account({ plan: 'free', quota: 1000 });
    const client = await connect(apiKey);
    const share = PLANS['free']!.runsAtOnce + PLANS['free']!.runsWaiting;
    // Runs another node accepted for this account and has not finished (alive: its heartbeat is fresh, so no sweep takes them).
    for (let i = 0; i < share; i++) {
      await t.services.runs.create({ runId: newRunId(), accountId, kind: 'invoke_tool', operationId: 'testing_held', holder: { token: `other-node-${i}`, pid: 1, host: 'another-node.test' } });
    }
    const refused = await submit(client, 'X1');
    assert.equal(refused.isError, true, JSON.stringify(refused.body));
    assert.equal(refused.body['error'], 'runs_busy');
    assert.match(refused.body['message'], new RegExp(`${share} of your runs are already open`));
    // Another account is not held by them.
    const other = await connect((await t.account({ plan: 'free', quota: 1000 })).apiKey);
    const accepted = await submit(other, 'T2');
    assert.equal(accepted.body['status'], 'accepted', JSON.stringify(accepted.body));
    held.release('T2');
    assert.equal((await ended(accepted.body['runId'])).resultStatus, 'ok');
  });
});
