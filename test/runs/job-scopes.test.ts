// A key's scope holds for jobs as it does for invoke_tool: a key limited to one text tool that asks
// solve_task, run_playbook or run_workflow for seo-audit on input.html (the five analyzers run
// locally, free, without invoke) is refused as invoke refuses it (tool_not_allowed, stage
// authorize) and nothing ran: no analysis on the workers, no call through invoke, nothing charged.
// A full key runs the same job. Through MCP with the SDK's own client against the real server.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AnalysisPool } from '../../src/analysis/analysis-pool.ts';
import type { Run } from '../../src/runs/run-store.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';

const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail running shoes | Shop</title></head><body><h1>Shoes</h1><img src="/a.jpg"></body></html>';
const TEXT_TOOL = 'text_utilities_reverse_text';
const SEO_STEPS = ['seo_apis_meta_tags_analyzer', 'seo_apis_heading_structure_analyzer', 'seo_apis_image_alt_audit', 'seo_apis_structured_data_validator', 'seo_apis_serp_snippet_preview', 'seo_apis_robots_sitemap_checker'];

describe('jobs run only the tools the key may call, local HTML included', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  // What ran: analyses on the workers (local HTML) and calls through the invoke path.
  let analyses = 0;
  let invokes = 0;
  const originalRun = AnalysisPool.prototype.run;

  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    AnalysisPool.prototype.run = function (this: AnalysisPool, ...args: Parameters<AnalysisPool['run']>) {
      analyses++;
      return originalRun.apply(this, args);
    };
    const invoker = t.services.invoker;
    const invoke = invoker.invoke.bind(invoker);
    invoker.invoke = (req) => {
      invokes++;
      return invoke(req);
    };
  });
  after(async () => {
    AnalysisPool.prototype.run = originalRun;
    for (const client of clients) await client.close();
    await t.close();
  });

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'job-scopes-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Answer }> {
    const answer = await client.callTool({ name, arguments: args });
    return { isError: answer.isError === true, body: answerOf(answer) };
  }

  function assertRefused(answer: { isError: boolean; body: Answer }, intent: string): void {
    assert.equal(answer.isError, true, `${intent}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body['status'], 'error');
    assert.equal(answer.body['error'], 'tool_not_allowed');
    assert.equal(answer.body['stage'], 'authorize');
    assert.equal(answer.body['operationId'], SEO_STEPS[0], 'the first step the key may not call is named');
    assert.match(answer.body['message'], new RegExp(`may not call ${SEO_STEPS[0]}`));
    assert.match(answer.body['detail'], new RegExp(`limited to: ${TEXT_TOOL}`));
    assert.equal(answer.body['jobReport'], undefined);
    assert.deepEqual(answer.body['credits'], { charged: 0 });
  }

  it('refuses solve_task, run_playbook and run_workflow on input.html for a key limited to one text tool; nothing runs', async () => {
    const limited = await t.account({ tools: [TEXT_TOOL], quota: 100 });
    const client = await connect(limited.apiKey);
    // The key does call its own tool.
    const own = await call(client, 'invoke_tool', { operationId: TEXT_TOOL, input: { text: 'abc' } });
    assert.equal(own.isError, false, JSON.stringify(own.body));
    [analyses, invokes] = [0, 0];

    assertRefused(await call(client, 'solve_task', { goal: 'seo audit', input: { html: PAGE } }), 'solve_task');
    assertRefused(await call(client, 'run_playbook', { skillId: 'seo-audit', input: { html: PAGE } }), 'run_playbook');
    assertRefused(await call(client, 'run_workflow', { workflowId: 'seo-audit', input: { html: PAGE } }), 'run_workflow');
    assert.deepEqual({ analyses, invokes }, { analyses: 0, invokes: 0 }, 'no analyzer and no call ran');
    assert.equal(await t.services.ledger.used(limited.accountId), 1, 'only the reverse-text call was charged');
  });

  it('refuses the same job submitted async: the run completes with the refusal and ran nothing', async () => {
    const limited = await t.account({ tools: [TEXT_TOOL], quota: 100 });
    const client = await connect(limited.apiKey);
    [analyses, invokes] = [0, 0];
    // Listening before the submit: the run may end before its acceptance reaches the client.
    const ended = new Map<string, Run>();
    const events = t.services.runExecutor.events;
    const onFinished = (run: Run) => ended.set(run.runId, run);
    events.on('finished', onFinished);
    const accepted = await call(client, 'run_playbook', { skillId: 'seo-audit', input: { html: PAGE }, async: true });
    assert.equal(accepted.body['status'], 'accepted', JSON.stringify(accepted.body));
    const runId = accepted.body['runId'] as string;
    while (!ended.has(runId)) await once(events, 'finished');
    events.off('finished', onFinished);
    const polled = await call(client, 'get_run', { runId });
    assert.equal(polled.body['resultStatus'], 'error');
    assert.equal(polled.body['result'].error, 'tool_not_allowed');
    assert.equal(polled.body['result'].operationId, SEO_STEPS[0]);
    assert.deepEqual({ analyses, invokes }, { analyses: 0, invokes: 0 });
  });

  it('a key allowed every step of the playbook, and a full key, run it on input.html', async () => {
    for (const tools of [SEO_STEPS, null]) {
      const account = await t.account({ ...(tools === null ? {} : { tools }), quota: 100 });
      const client = await connect(account.apiKey);
      [analyses, invokes] = [0, 0];
      const run = await call(client, 'run_playbook', { skillId: 'seo-audit', input: { html: PAGE } });
      assert.equal(run.isError, false, JSON.stringify(run.body));
      assert.equal(run.body['status'], 'ok');
      assert.equal(run.body['mode'], 'local');
      assert.equal(run.body['jobReport'].playbookId, 'seo-audit');
      assert.equal(analyses, SEO_STEPS.length, 'each step analysed the HTML');
      assert.equal(invokes, 0, 'local HTML is analysed without a billed call');
    }
  });
});
