// run_playbook and run_workflow through the SDK's client against pages on loopback (served as
// https://shop.example.com through the egress-safe fetcher): the first https run of a playbook
// creates a profileId, and verify_task with that profileId and no baseline compares with the
// stored last run; another account's profileId is need_baseline. run_workflow answers the report
// and gate without a fix loop; an async run_playbook is a run of its own kind.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Run } from '../../src/runs/run-store.ts';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail running shoes | Shop</title></head><body><h1>Shoes</h1><img src="/a.jpg"></body></html>';

describe('run_playbook, run_workflow and profiles', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  let mine: Client;
  let url: string;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    base = await listen(t);
    mine = await connect((await t.account({ quota: 10_000 })).apiKey);
    web.serve({ 'https://shop.example.com/trail': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE } });
    url = web.rewrite('https://shop.example.com/trail');
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'playbook-runs', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<Answer> => answerOf(await client.callTool({ name, arguments: args }));

  it('the first https run creates a profileId; verify_task with it alone compares with the stored run', async () => {
    const run = await call(mine, 'run_playbook', { skillId: 'seo-audit', input: { url } });
    assert.equal(run['status'], 'ok');
    assert.equal(run['jobReport'].playbookId, 'seo-audit');
    assert.equal(run['loop'].round, 0);
    assert.match(String(run['profileId']), /^prof_[0-9a-f]{32}$/);
    assert.ok(run['jobReport'].findings.some((f: Answer) => f.rule === 'image-alt-missing'));
    assert.equal(run['verification'].evidence.acceptance.length > 0, true);
    // the same page again: a second run keeps the same profile
    const again = await call(mine, 'run_playbook', { skillId: 'seo-audit', input: { url } });
    assert.equal(again['profileId'], run['profileId']);

    const verified = await call(mine, 'verify_task', { goal: 'seo audit', profileId: run['profileId'] });
    assert.equal(verified['baselineSource'], 'profile');
    assert.equal(verified['loop'].round, 1);
    assert.deepEqual(verified['delta'].newFindings, []);
    assert.equal(verified['delta'].resolvedFindings.length, 0);

    const other = await connect((await t.account({ quota: 100 })).apiKey);
    const refused = await call(other, 'verify_task', { goal: 'seo audit', profileId: run['profileId'] });
    assert.equal(refused['status'], 'need_input');
    assert.equal(refused['code'], 'need_baseline');
  });

  it('run_workflow answers the jobReport and the gate, without a fix loop', async () => {
    const run = await call(mine, 'run_workflow', { workflowId: 'seo-audit', input: { html: PAGE } });
    assert.equal(run['status'], 'ok');
    assert.equal(run['mode'], 'local');
    assert.equal(run['loop'], undefined);
    assert.ok(['pass', 'fail'].includes(run['verification'].evidence.gate));
    assert.equal(run['credits'].charged, 0, 'local HTML is analysed free');
  });

  it('an async run_playbook is a run of kind run_playbook; get_run carries its result', async () => {
    const accepted = await call(mine, 'run_playbook', { skillId: 'seo-audit', input: { html: PAGE }, async: true });
    assert.equal(accepted['status'], 'accepted');
    const runId = accepted['runId'] as string;
    const events = t.services.runExecutor.events;
    let finished: Run | undefined;
    while (finished?.runId !== runId) [finished] = (await once(events, 'finished')) as [Run];
    const polled = await call(mine, 'get_run', { runId });
    assert.equal(polled['kind'], 'run_playbook');
    assert.equal(polled['operationId'], 'seo-audit');
    assert.equal(polled['status'], 'completed');
    assert.equal(polled['resultStatus'], 'ok');
    assert.equal(polled['result'].jobReport.playbookId, 'seo-audit');
  });
});
