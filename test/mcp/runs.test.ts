// Async runs, payloads and response modes through the SDK's own client over Streamable HTTP
// against the real server: invoke_tool async then get_run, runs scoped to the account, runs left
// by a dead process closed at the next start, dataRef and fetch_payload (paging, expiry), the
// size bound, progress notifications, the bounded backlog, and the mcp.job.finished webhook.
// Tests wait for the executor's 'finished' event, the receiver's request or a released gate.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Catalog, loadCatalog } from '../../src/core/catalog.ts';
import { verifyWebhookSignature } from '../../src/runs/webhook-signature.ts';
import { newRunId, type Run } from '../../src/runs/run-store.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { catalogWithTestTools, gatedTool } from '../support/extra-tools.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { finishedRuns } from '../support/runs.ts';
import { answerOf } from '../support/mcp-answer.ts';

const EMI = { principal: 100000, rate: 10, tenure: 12 };
const EGRESS = { EGRESS_ALLOW: 'hooks.test', EGRESS_RESOLVE: 'hooks.test:127.0.0.1' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = Record<string, any>;

async function connect(base: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'runs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Structured }> {
  const answer = await client.callTool({ name, arguments: args });
  return { isError: answer.isError === true, body: answerOf(answer) as Structured };
}

describe('MCP async runs and payloads', () => {
  let t: TestApp;
  let base: string;
  let waitRun: (runId: string) => Promise<Run>;
  const clients: Client[] = [];
  let hook: TestSite;
  const received: { headers: Record<string, unknown>; body: string }[] = [];
  const receivedEvents = new EventEmitter();

  before(async () => {
    t = await startTestApp({ catalog: await catalogWithTestTools(), env: EGRESS });
    base = await listen(t);
    waitRun = finishedRuns(t);
    hook = await startHttpSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
        receivedEvents.emit('received');
      });
    });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await hook.close();
    await t.close();
  });
  const client = async (apiKey: string) => {
    const c = await connect(base, apiKey);
    clients.push(c);
    return c;
  };

  it('lists get_run and fetch_payload beside invoke_tool, whose schema offers async and responseMode', async () => {
    const { apiKey } = await t.account();
    const { tools } = await (await client(apiKey)).listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['invoke_tool', 'get_run', 'fetch_payload']) assert.ok(names.includes(name), name);
    const invoke = tools.find((tool) => tool.name === 'invoke_tool');
    const properties = invoke?.inputSchema.properties as Record<string, { enum?: string[] }>;
    assert.deepEqual(properties['responseMode']?.enum, ['compact', 'full', 'dataRef']);
    assert.ok(properties['async']);
    for (const name of ['get_run', 'fetch_payload']) assert.equal(tools.find((tool) => tool.name === name)?.annotations?.readOnlyHint, true);
  });

  it('async: accepted at once, then get_run answers completed with the same result as a sync call, and the webhook gets mcp.job.finished', async () => {
    const { apiKey } = await t.account({ quota: 100 });
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload: JSON.stringify({ url: `http://hooks.test:${hook.port}/hook` }) });
    assert.equal(created.statusCode, 201, created.body);
    const secret = created.json().result.secret as string;
    const c = await client(apiKey);

    const sync = await call(c, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI });
    assert.equal(sync.body['status'], 'ok');

    const accepted = await call(c, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI, async: true });
    assert.equal(accepted.isError, false, JSON.stringify(accepted.body));
    assert.equal(accepted.body['status'], 'accepted');
    const runId = accepted.body['runId'] as string;
    assert.match(runId, /^run_[0-9a-f]{32}$/);
    assert.equal(accepted.body['execution'].runId, runId);
    assert.equal(accepted.body['result'], undefined);

    const finished = await waitRun(runId);
    assert.equal(finished.status, 'completed');
    const got = await call(c, 'get_run', { runId });
    assert.equal(got.isError, false);
    assert.equal(got.body['status'], 'completed');
    assert.equal(got.body['resultStatus'], 'ok');
    assert.equal(got.body['operationId'], 'calculators_emi_calculator');
    assert.deepEqual(got.body['result'], sync.body['result'], 'the same result as the sync call');
    assert.equal(got.body['credits'], 1);
    assert.ok(Date.parse(got.body['startedAt']) <= Date.parse(got.body['finishedAt']));

    while (received.length === 0) await once(receivedEvents, 'received');
    const delivery = received[0]!;
    assert.equal(verifyWebhookSignature({ secret, headers: delivery.headers as never, body: delivery.body }), true);
    const event = JSON.parse(delivery.body);
    assert.equal(event.type, 'mcp.job.finished');
    assert.deepEqual(event.data, {
      runId,
      kind: 'invoke_tool',
      operationId: 'calculators_emi_calculator',
      status: 'completed',
      resultStatus: 'ok',
      startedAt: got.body['startedAt'],
      finishedAt: got.body['finishedAt'],
      credits: 1,
    });
  });

  it('async: a call that would be refused is refused at submit; a tool that fails still completes, with the code in resultStatus', async () => {
    const { apiKey } = await t.account({ quota: 100 });
    const c = await client(apiKey);
    const invalid = await call(c, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: { principal: -1 }, async: true });
    assert.equal(invalid.isError, true);
    assert.equal(invalid.body['error'], 'validation_error');
    assert.equal(invalid.body['stage'], 'input');

    const { apiKey: poorKey } = await t.account({ quota: 0 });
    const poor = await call(await client(poorKey), 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI, async: true });
    assert.deepEqual([poor.isError, poor.body['error'], poor.body['stage']], [true, 'quota_exhausted', 'quota']);

    const failing = await call(c, 'invoke_tool', { operationId: 'testing_faulty', input: { mode: 'unavailable' }, async: true });
    assert.equal(failing.body['status'], 'accepted');
    await waitRun(failing.body['runId']);
    const got = await call(c, 'get_run', { runId: failing.body['runId'] });
    assert.equal(got.isError, false);
    assert.deepEqual(
      { status: got.body['status'], resultStatus: got.body['resultStatus'], error: got.body['error'], stage: got.body['stage'], credits: got.body['credits'] },
      { status: 'completed', resultStatus: 'engine_unavailable', error: 'engine_unavailable', stage: 'run', credits: 0 },
      'the job finished; the tool answered an error, refunded',
    );
  });

  it("another account's runId is not found, the same as one that never existed", async () => {
    const { apiKey: owner } = await t.account();
    const { apiKey: other } = await t.account();
    const mine = await client(owner);
    const accepted = await call(mine, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI, async: true });
    const runId = accepted.body['runId'] as string;
    await waitRun(runId);
    const theirs = await client(other);
    for (const id of [runId, newRunId(), 'not-a-run']) {
      const got = await call(theirs, 'get_run', { runId: id });
      assert.equal(got.isError, true);
      assert.equal(got.body['error'], 'run_not_found');
      assert.equal(got.body['result'], undefined);
    }
    assert.equal((await call(mine, 'get_run', { runId })).body['status'], 'completed');
  });

  it('dataRef: the result is stored and only a dataRefId and a summary come back; fetch_payload reads it, for its account only, until it expires', async () => {
    const { apiKey, accountId } = await t.account();
    const c = await client(apiKey);
    const sync = await call(c, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI, responseMode: 'full' });
    const byRef = await call(c, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI, responseMode: 'dataRef' });
    assert.equal(byRef.isError, false);
    assert.equal(byRef.body['result'], undefined);
    assert.match(byRef.body['dataRefId'], /^ref_[0-9a-f]{32}$/);
    assert.match(byRef.body['summary'], /schedule: array of 12/);
    assert.equal(byRef.body['truncated'], undefined);

    const page = await call(c, 'fetch_payload', { dataRefId: byRef.body['dataRefId'] });
    assert.equal(page.isError, false);
    assert.equal(page.body['nextOffset'], null);
    assert.equal(page.body['totalChars'], page.body['text'].length);
    assert.deepEqual(JSON.parse(page.body['text']), sync.body['result']);

    const { apiKey: other } = await t.account();
    const foreign = await call(await client(other), 'fetch_payload', { dataRefId: byRef.body['dataRefId'] });
    assert.deepEqual([foreign.isError, foreign.body['error']], [true, 'payload_not_found']);

    // The clock, not a wait: the store read at the expiry instant, then the row's expiry moved into the past.
    const expiresAt = Date.parse(byRef.body['payloadExpiresAt']);
    assert.equal(expiresAt - Date.parse(page.body['expiresAt']), 0);
    assert.ok(Math.abs(expiresAt - Date.now() - t.config.payloadTtlMs) < 60_000, 'kept for MCP_PAYLOAD_TTL_MS');
    assert.equal((await t.services.payloads.read(accountId, byRef.body['dataRefId'], {}, new Date(expiresAt - 1))).kind, 'found');
    assert.equal((await t.services.payloads.read(accountId, byRef.body['dataRefId'], {}, new Date(expiresAt))).kind, 'expired');
    await t.services.db.updateTable('payloads').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', byRef.body['dataRefId']).execute();
    const expired = await call(c, 'fetch_payload', { dataRefId: byRef.body['dataRefId'] });
    assert.deepEqual([expired.isError, expired.body['error']], [true, 'payload_expired']);
    assert.equal(await t.services.payloads.sweep(), 1);
    assert.equal((await call(c, 'fetch_payload', { dataRefId: byRef.body['dataRefId'] })).body['error'], 'payload_not_found');
  });

  it('a result over the size bound is sent as a preview with a dataRefId, and fetch_payload pages join into the whole result', async () => {
    const { apiKey } = await t.account();
    const c = await client(apiKey);
    const lines = Array.from({ length: 4000 }, (_, i) => `line ${i} naïve café ✓ 😀 ${'x'.repeat(i % 13)}`);
    const input = { text: lines.join('\n'), mode: 'lines' };
    const rest = (await t.call('/api/v1/text-utilities/reverse-text', input, apiKey)).json().result;
    assert.ok(JSON.stringify(rest).length > 100_000, 'the fixture is over the bound');

    const big = await call(c, 'invoke_tool', { operationId: 'text_utilities_reverse_text', input });
    assert.equal(big.isError, false);
    assert.equal(big.body['result'], undefined, 'not sent whole');
    assert.equal(big.body['truncated'], true);
    assert.equal(big.body['preview'], JSON.stringify(rest).slice(0, 2000));
    assert.match(big.body['notes'][0], /fetch_payload/);

    let offset: number | null = 0;
    let text = '';
    let pages = 0;
    while (offset !== null && pages < 200) {
      const page = await call(c, 'fetch_payload', { dataRefId: big.body['dataRefId'], offset });
      assert.equal(page.isError, false);
      // A page's whole answer fits an agent's context window (issue 17: <= 24 KB of text).
      assert.ok(JSON.stringify(page.body).length <= 24 * 1024, `a page answer of ${JSON.stringify(page.body).length} characters`);
      text += page.body['text'];
      offset = page.body['nextOffset'];
      pages++;
    }
    assert.ok(pages >= 2, 'read in pages');
    assert.equal(text.length, big.body['payloadChars']);
    assert.deepEqual(JSON.parse(text), rest);
  });

  it('a result just within the size bound is sent whole, though the answer around it is over the bound', async () => {
    const { apiKey } = await t.account();
    const c = await client(apiKey);
    // The result's JSON grows one character per character of text: sized to 50 under the bound.
    const jsonChars = async (text: string) => JSON.stringify((await t.call('/api/v1/text-utilities/reverse-text', { text, mode: 'characters' }, apiKey)).json().result).length;
    const probe = 'abc'.repeat(1000);
    const text = probe + 'd'.repeat(100_000 - 50 - (await jsonChars(probe)));
    const rest = (await t.call('/api/v1/text-utilities/reverse-text', { text, mode: 'characters' }, apiKey)).json().result;
    assert.equal(JSON.stringify(rest).length, 100_000 - 50, 'the fixture is within the bound');

    const answer = await c.callTool({ name: 'invoke_tool', arguments: { operationId: 'text_utilities_reverse_text', input: { text, mode: 'characters' } } });
    const [block] = answer.content as { type: string; text: string }[];
    assert.ok(block !== undefined && block.text.length > 100_000, 'the answer text is over the bound');
    const body = answer.structuredContent as Record<string, unknown>;
    assert.deepEqual(body['result'], rest, 'sent whole');
    assert.equal(body['truncated'], undefined);
    assert.equal(body['dataRefId'], undefined);
    assert.deepEqual(JSON.parse(block.text), body);
  });

  it('sends notifications/progress at the start and the end of a call that passes a progress token', async () => {
    const { apiKey } = await t.account();
    const c = await client(apiKey);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const answer = await c.callTool({ name: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: EMI } }, undefined, { onprogress: (p) => progress.push(p) });
    assert.equal(answer.isError, undefined);
    assert.deepEqual(progress, [
      { progress: 0, total: 1, message: 'Running calculators_emi_calculator' },
      { progress: 1, total: 1, message: 'calculators_emi_calculator finished' },
    ]);
  });
});

describe('MCP async runs: the bounded backlog', () => {
  it('runs past the concurrency wait; past the backlog the submit is refused with runs_busy, and nothing is charged', async () => {
    const gated = gatedTool();
    const real = await loadCatalog();
    const t = await startTestApp({ catalog: new Catalog([...real.tools, gated.tool]), env: { RUN_CONCURRENCY: '1', RUN_QUEUE_LIMIT: '1' } });
    const waitRun = finishedRuns(t);
    const base = await listen(t);
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const c = await connect(base, apiKey);
    try {
      const first = await call(c, 'invoke_tool', { operationId: 'testing_gated', input: { n: 1 }, async: true });
      await gated.started(1);
      const second = await call(c, 'invoke_tool', { operationId: 'testing_gated', input: { n: 2 }, async: true });
      assert.equal(second.body['status'], 'accepted', 'one may wait');
      const third = await call(c, 'invoke_tool', { operationId: 'testing_gated', input: { n: 3 }, async: true });
      assert.equal(third.isError, true);
      assert.equal(third.body['error'], 'runs_busy');
      assert.equal(third.body['retryAfterSeconds'], 5);
      assert.equal((await call(c, 'get_run', { runId: first.body['runId'] })).body['status'], 'accepted');
      gated.open();
      await waitRun(first.body['runId']);
      await gated.started(2);
      gated.open();
      await waitRun(second.body['runId']);
      const done = await call(c, 'get_run', { runId: second.body['runId'] });
      assert.deepEqual(done.body['result'], { n: 2 });
      await t.services.usage.flush();
      assert.equal(await t.services.accounts.usedCredits(accountId), 2, 'the refused submit charged nothing');

      // Shutdown with a run in flight: it is closed as error (and announced), not left accepted.
      const inFlight = await call(c, 'invoke_tool', { operationId: 'testing_gated', input: { n: 4 }, async: true });
      await gated.started(3);
      await c.close();
      const closing = t.close();
      const stopped = await waitRun(inFlight.body['runId']);
      await closing;
      assert.equal(stopped.status, 'error');
      assert.match(stopped.errorReason ?? '', /service stopped before the run finished/);
    } finally {
      gated.open();
      await c.close();
      await t.close();
    }
  });
});

describe('MCP async runs: a process that dies', () => {
  it('runs left accepted by a dead holder are error after a restart; a live holder keeps its run', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'runs-restart-'));
    const first = await startTestApp({ env: { DATA_DIR: dataDir } });
    const { accountId, apiKey } = await first.account();
    // A pid that ran and exited, as a SIGKILLed server's would.
    const child = spawn(process.execPath, ['-e', '']);
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 0);
    const dead = { token: randomUUID(), pid: child.pid as number, host: hostname() };
    const deadRunId = newRunId();
    const liveRunId = newRunId();
    await first.services.runs.create({ runId: deadRunId, accountId, kind: 'invoke_tool', operationId: 'calculators_emi_calculator', holder: dead });
    await first.services.runs.create({ runId: liveRunId, accountId, kind: 'invoke_tool', operationId: 'calculators_emi_calculator', holder: first.services.ledger.holder });

    const second = await startTestApp({ env: { DATA_DIR: dataDir } });
    const c = await connect(await listen(second), apiKey);
    try {
      const closed = await call(c, 'get_run', { runId: deadRunId });
      assert.equal(closed.isError, false);
      assert.equal(closed.body['status'], 'error');
      assert.equal(closed.body['error'], 'run_failed');
      assert.match(closed.body['message'], new RegExp(`pid ${dead.pid}.*stopped before it finished`));
      assert.ok(closed.body['finishedAt']);
      assert.equal((await call(c, 'get_run', { runId: liveRunId })).body['status'], 'accepted', 'the first process still runs');
    } finally {
      await c.close();
      await second.close();
      await first.close();
    }
  });
});
