// Accounts REST refuses are refused on MCP the same way (issue 17 §5), by the one guard every tool
// call passes (src/mcp/tool-guard.ts): an account whose e-mail is not verified, or that is
// suspended, gets REST's own error code from every tool the server lists (planning, jobs, feature
// memory, coding jobs, runs and search alike), and nothing is done for it: no credit charged, no
// analysis run, no feature or coding job recorded. The table of arguments must name every listed
// tool, so a tool added later is checked too. And a key limited to some tools cannot run other
// tools' analyzers through local HTML in verify_task either (solve_task, run_playbook and
// run_workflow: test/runs/job-scopes.test.ts). Through the official SDK client over real HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AnalysisPool } from '../../src/analysis/analysis-pool.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { updateAccount } from '../support/other-connection.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail running shoes | Shop</title></head><body><h1>Shoes</h1><img src="/a.jpg"></body></html>';
const EMI = { principal: 100000, rate: 10, tenure: 12 };
const TEXT_TOOL = 'text_utilities_reverse_text';

/** Valid arguments for every tool the server lists: a refusal must come from the account, not from the input. */
const ARGS: Record<string, Record<string, unknown>> = {
  discover_tools: { query: 'emi loan' },
  get_tool_schema: { operationId: 'calculators_emi_calculator' },
  invoke_tool: { operationId: 'calculators_emi_calculator', input: EMI },
  get_run: { runId: 'run_00000000000000000000000000000000' },
  fetch_payload: { dataRefId: 'pl_00000000000000000000000000000000' },
  list_skills: {},
  load_skill: { skillId: 'seo-audit' },
  recall_context: {},
  capture_feature: { title: 'Checkout page', requirements: ['One h1 on the page'] },
  list_feature_memory: {},
  compare_feature_memory: { fromFeatureId: 'feat_a', toFeatureId: 'feat_b' },
  delete_feature: { featureId: 'feat_a' },
  publish_feature_pattern: { featureId: 'feat_a' },
  unpublish_feature_pattern: { patternId: 'pat_a' },
  list_community_patterns: {},
  job_start: { goal: 'Ship the checkout', checks: [{ id: 'tests', command: 'npm test' }] },
  job_status: { jobId: 'job_a' },
  job_submit_check: { jobId: 'job_a', checkId: 'tests', exitCode: 0, output: 'ok' },
  plan_task: { goal: 'seo audit', input: { html: PAGE } },
  solve_task: { goal: 'seo audit', input: { html: PAGE } },
  run_playbook: { skillId: 'seo-audit', input: { html: PAGE } },
  run_workflow: { workflowId: 'seo-audit', input: { html: PAGE } },
  verify_task: { goal: 'seo audit', baseline: { jobReport: {} }, input: { html: PAGE } },
};

describe('accounts REST refuses are refused on MCP, by every tool', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  let analyses = 0;
  let invokes = 0;
  const originalRun = AnalysisPool.prototype.run;
  // Another connection, as the CLI or another process would change the account.
  const setAccount = (accountId: string, values: Parameters<typeof updateAccount>[2]) => updateAccount(t.config.databaseUrl, accountId, values);

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
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
  });

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'mcp-account-state', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Answer }> {
    const answer = await client.callTool({ name, arguments: args });
    return { isError: answer.isError === true, body: answerOf(answer) };
  }

  /** Every listed tool answers REST's refusal, and nothing was done for the account. */
  async function assertEveryToolRefused(apiKey: string, accountId: string, code: string): Promise<void> {
    const rest = await t.call('/api/v1/calculators/emi-calculator', EMI, apiKey);
    assert.equal(rest.statusCode, 403);
    assert.equal(rest.json().error, code, 'REST refuses the account with this code');
    const client = await connect(apiKey);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(ARGS).sort(), 'the table names every tool the server lists');
    [analyses, invokes] = [0, 0];
    for (const tool of tools) {
      const { isError, body } = await call(client, tool.name, ARGS[tool.name] ?? {});
      assert.equal(isError, true, `${tool.name}: ${JSON.stringify(body)}`);
      assert.equal(body['error'], code, `${tool.name} answers REST's code: ${JSON.stringify(body)}`);
      assert.equal(body['stage'], 'authorize', tool.name);
    }
    assert.deepEqual({ analyses, invokes }, { analyses: 0, invokes: 0 }, 'no analysis and no catalog call ran');
    await t.services.usage.flush();
    assert.equal(await t.services.ledger.used(accountId), 0, 'nothing was charged');
  }

  it('an account whose e-mail is not verified: every tool answers email_not_verified, and nothing is recorded', async () => {
    const { apiKey, accountId } = await t.account({ verified: false, quota: 100 });
    await assertEveryToolRefused(apiKey, accountId, 'email_not_verified');
    // Verified now: the same key works, and no feature or coding job was recorded while refused.
    await setAccount(accountId, { email_verified_at: '2026-01-01T00:00:00.000Z' });
    const client = await connect(apiKey);
    const features = await call(client, 'list_feature_memory', {});
    assert.equal(features.isError, false, JSON.stringify(features.body));
    assert.equal(features.body['total'] ?? (features.body['features'] as unknown[]).length, 0);
    const job = await call(client, 'job_status', { jobId: 'job_a' });
    assert.equal(job.body['error'], 'job_not_found');
  });

  it('a suspended account: every tool answers account_inactive, and is served again once active', async () => {
    const { apiKey, accountId } = await t.account({ quota: 100 });
    await setAccount(accountId, { status: 'suspended' });
    await assertEveryToolRefused(apiKey, accountId, 'account_inactive');
    await setAccount(accountId, { status: 'active' });
    const client = await connect(apiKey);
    const planned = await call(client, 'plan_task', ARGS['plan_task']!);
    assert.equal(planned.isError, false, JSON.stringify(planned.body));
    const features = await call(client, 'list_feature_memory', {});
    assert.equal(features.body['total'] ?? (features.body['features'] as unknown[]).length, 0, 'no feature was captured while suspended');
  });

  it("a key limited to one tool cannot run other tools' analyzers through local HTML in verify_task", async () => {
    const { apiKey, accountId } = await t.account({ quota: 100 });
    const { secret: limitedKey } = await t.services.accounts.createKey({ accountId, tools: [TEXT_TOOL] });
    // A baseline of the same account, from its full key.
    const solved = await call(await connect(apiKey), 'solve_task', { goal: 'seo audit', input: { html: PAGE } });
    assert.equal(solved.body['status'], 'ok', JSON.stringify(solved.body));
    const limited = await connect(limitedKey);
    [analyses, invokes] = [0, 0];
    const refused = await call(limited, 'verify_task', { goal: 'seo audit', baseline: solved.body, input: { html: PAGE } });
    assert.equal(refused.isError, true, JSON.stringify(refused.body));
    assert.equal(refused.body['error'], 'tool_not_allowed', JSON.stringify(refused.body));
    assert.equal(refused.body['stage'], 'authorize');
    assert.match(String(refused.body['message']), /may not call seo_apis_/);
    assert.deepEqual(refused.body['credits'], { charged: 0 });
    assert.deepEqual({ analyses, invokes }, { analyses: 0, invokes: 0 }, 'no analyzer ran for the limited key');
    // The same verify with the full key runs (the refusal was the key's, not the baseline's).
    const verified = await call(await connect(apiKey), 'verify_task', { goal: 'seo audit', baseline: solved.body, input: { html: PAGE } });
    assert.equal(verified.isError, false, JSON.stringify(verified.body));
    assert.ok(analyses > 0);
  });
});
