// Durable runs (issue 21 item 3), in process: a shutdown gives its queued runs back unstarted
// and the next start runs them; a run taken over too many times is closed, not passed on; when
// two nodes sweep at once exactly one takes a dead holder's run; a live holder's heartbeat keeps
// its runs from being taken, and a stale one does not. The two-node test over real processes and
// SIGKILL is test/platform/two-nodes.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Catalog, loadCatalog } from '../../src/core/catalog.ts';
import { MAX_RUN_ATTEMPTS, newRunId } from '../../src/runs/run-store.ts';
import { takeOverRuns } from '../../src/runs/run-takeover.ts';
import { gatedTool } from '../support/extra-tools.ts';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { finishedRuns } from '../support/runs.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = Record<string, any>;

const ANOTHER_NODE = { pid: 1, host: 'another-node.test' };
const EMI = { principal: 100000, rate: 10, tenure: 12 };

async function invoke(base: string, apiKey: string, args: Record<string, unknown>): Promise<Structured> {
  const client = new Client({ name: 'durable-runs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  try {
    return answerOf(await client.callTool({ name: 'invoke_tool', arguments: args })) as Structured;
  } finally {
    await client.close();
  }
}

describe('durable runs', () => {
  const opened: TestApp[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const t of opened.reverse()) await t.close().catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a shutdown gives its queued runs back unstarted; the next start on the same data runs them', async () => {
    const gated = gatedTool();
    const catalog = new Catalog([...(await loadCatalog()).tools, gated.tool]);
    const dataDir = mkdtempSync(join(tmpdir(), 'durable-runs-'));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, RUN_CONCURRENCY: '1' };
    const first = await startTestApp({ catalog, env });
    const { apiKey, accountId } = await first.account({ plan: 'pro', quota: 50 });
    const base = await listen(first);
    const running = await invoke(base, apiKey, { operationId: 'testing_gated', input: { n: 1 }, async: true });
    await gated.started(1);
    const queued = await invoke(base, apiKey, { operationId: 'testing_gated', input: { n: 2 }, async: true });
    assert.equal(queued['status'], 'accepted', JSON.stringify(queued));

    const ended = finishedRuns(first)(running['runId']);
    const closing = first.app.close();
    first.app.server.closeAllConnections();
    assert.equal((await ended).status, 'error', 'the run in flight ends with the shutdown');
    gated.open();
    await closing;

    // The restart takes it at once (its holder is gone) and runs it as the key that submitted it.
    const second = await startTestApp({ catalog, env });
    opened.push(second);
    const done = finishedRuns(second);
    await gated.started(2);
    gated.open();
    const run = await done(queued['runId']);
    assert.equal(run.status, 'completed');
    assert.equal(run.resultStatus, 'ok');
    assert.deepEqual(run.outcome?.ok === true ? run.outcome.result : undefined, { n: 2 });
    // Given back at the shutdown (not closed: a closed run is never run again), taken once by the restart.
    const stored = await second.services.db.selectFrom('runs').select(['status', 'attempts', 'holder']).where('id', '=', queued['runId']).executeTakeFirstOrThrow();
    assert.deepEqual({ ...stored }, { status: 'completed', attempts: 2, holder: second.services.ledger.holder.token });
    await second.services.usage.flush();
    assert.equal(await second.services.accounts.usedCredits(accountId), 1, 'charged once: the run that completed; the one cut short by the shutdown was refunded');
  });

  it('closes a run taken over too many times instead of passing it on, and leaves a live node\'s runs alone', async () => {
    const t = await startTestApp();
    opened.push(t);
    const { accountId, keyId } = await t.account();
    const request = { keyId, operationId: 'calculators_emi_calculator', input: EMI, requestId: 'req-durable' };
    const worn = newRunId();
    const alive = newRunId();
    // Stale for the 10 s limit of the sweep below, fresh for the app's own beats (30 s): only that sweep judges it.
    const stale = new Date(Date.now() - 20_000).toISOString();
    await t.services.runs.create({ runId: worn, accountId, kind: 'invoke_tool', operationId: 'calculators_emi_calculator', holder: { token: 'dead-node', ...ANOTHER_NODE }, request });
    await t.services.db.updateTable('runs').set({ heartbeat_at: stale, attempts: MAX_RUN_ATTEMPTS }).where('id', '=', worn).execute();
    await t.services.runs.create({ runId: alive, accountId, kind: 'invoke_tool', operationId: 'calculators_emi_calculator', holder: { token: 'live-node', ...ANOTHER_NODE }, request });

    const ended = finishedRuns(t)(worn);
    const options = { runs: t.services.runs, executor: t.services.runExecutor, accounts: t.services.accounts, holder: t.services.ledger.holder, staleMs: 10_000, log: t.app.log };
    assert.equal(await takeOverRuns(options), 1, 'only the run whose heartbeat is stale');
    const closed = await ended;
    assert.equal(closed.status, 'error');
    assert.match(closed.errorReason ?? '', /pid 1 on another-node\.test\) stopped before it finished/);
    assert.equal((await t.services.runs.get(accountId, alive))?.status, 'accepted', 'a heartbeat within the limit: its node is alive');
  });

  it('when two nodes sweep at once, exactly one takes a dead node\'s run and runs it', async () => {
    const one = await startTestApp();
    opened.push(one);
    const two = await startTestApp({ env: { DATA_DIR: one.dataDir } });
    opened.push(two);
    const { accountId, keyId } = await one.account();
    const runId = newRunId();
    await one.services.runs.create({ runId, accountId, kind: 'invoke_tool', operationId: 'calculators_emi_calculator', holder: { token: 'gone-node', ...ANOTHER_NODE }, request: { keyId, operationId: 'calculators_emi_calculator', input: EMI, requestId: 'req-race' } });
    // Stale for a 10 s limit, fresh for the apps' own beats (30 s): only the two sweeps below take it.
    await one.services.db.updateTable('runs').set({ heartbeat_at: new Date(Date.now() - 20_000).toISOString() }).where('id', '=', runId).execute();
    const waits = [finishedRuns(one)(runId), finishedRuns(two)(runId)];
    const sweep = (t: TestApp) => takeOverRuns({ runs: t.services.runs, executor: t.services.runExecutor, accounts: t.services.accounts, holder: t.services.ledger.holder, staleMs: 10_000, log: t.app.log });
    const taken = await Promise.all([sweep(one), sweep(two)]);
    assert.deepEqual([...taken].sort(), [0, 1], `one sweep takes it, the other finds it taken: ${JSON.stringify(taken)}`);
    const run = await Promise.race(waits);
    assert.equal(run.status, 'completed');
    assert.equal(run.resultStatus, 'ok');
    const stored = await one.services.db.selectFrom('runs').select(['attempts', 'holder']).where('id', '=', runId).executeTakeFirstOrThrow();
    assert.equal(stored.attempts, 2);
    assert.ok([one.services.ledger.holder.token, two.services.ledger.holder.token].includes(stored.holder));
  });
});
