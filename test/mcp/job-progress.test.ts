// Long jobs report progress (issue 17 §6): an agent's official SDK client that calls solve_task,
// run_playbook, run_workflow or verify_task with onprogress (so a progressToken) and
// resetTimeoutOnProgress gets one notifications/progress per step of the playbook, in order, each
// naming its step and operation, and one when the job is done; progress only grows and ends at
// total. The seo-audit playbook (five steps) runs on a live page on loopback (served as
// https://shop.example.com through the egress-safe fetcher) and on local HTML.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail running shoes | Shop</title></head>' +
  '<body><h1>Trail shoes</h1><img src="/a.jpg"><img src="/b.jpg"><p>Light shoes for long runs.</p></body></html>';
const STEPS = [
  ['meta-tags', 'seo_apis_meta_tags_analyzer'],
  ['headings', 'seo_apis_heading_structure_analyzer'],
  ['image-alt', 'seo_apis_image_alt_audit'],
  ['structured-data', 'seo_apis_structured_data_validator'],
  ['serp-snippet', 'seo_apis_serp_snippet_preview'],
  ['crawlability', 'seo_apis_robots_sitemap_checker'],
] as const;

describe('jobs send progress per step to a client that asks for it', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let client: Client;
  let url: string;

  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    const base = await listen(t);
    web.serve({ 'https://shop.example.com/trail': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE } });
    url = web.rewrite('https://shop.example.com/trail');
    const { apiKey } = await t.account({ quota: 10_000 });
    client = new Client({ name: 'job-progress', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  });
  after(async () => {
    await (client as Client | undefined)?.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  /** Calls a tool as an agent with a long job would: a progress handler and the timeout reset by progress. */
  async function withProgress(name: string, args: Record<string, unknown>): Promise<{ answer: Answer; isError: boolean; seen: Progress[] }> {
    const seen: Progress[] = [];
    const result = await client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true });
    return { answer: answerOf(result), isError: result.isError === true, seen };
  }

  function assertOnePerStep(seen: Progress[], what: string): void {
    assert.equal(seen.length, STEPS.length + 1, `${what}: one notification per step and one at the end: ${JSON.stringify(seen)}`);
    STEPS.forEach(([stepId, operationId], i) => {
      const p = seen[i];
      assert.ok(p, `${what}: notification ${i}`);
      assert.equal(p.progress, i, `${what}: progress before step ${stepId}`);
      assert.equal(p.total, STEPS.length);
      assert.ok(p.message?.includes(stepId) && p.message.includes(operationId), `${what}: "${p.message}" names ${stepId} and ${operationId}`);
      assert.ok(p.message?.includes(`step ${i + 1} of ${STEPS.length}`), `${what}: "${p.message}" says where the job is`);
    });
    const last = seen[STEPS.length];
    assert.equal(last?.progress, STEPS.length, `${what}: the last notification says the job is done`);
    assert.equal(last.total, STEPS.length);
    assert.match(last.message ?? '', /finished/);
  }

  it('run_playbook and run_workflow on a live page: one notification per step, in order, then done', async () => {
    for (const [name, idField] of [['run_playbook', 'skillId'], ['run_workflow', 'workflowId']] as const) {
      const { answer, isError, seen } = await withProgress(name, { [idField]: 'seo-audit', input: { url } });
      assert.equal(isError, false, JSON.stringify(answer));
      assert.equal(answer['status'], 'ok', JSON.stringify(answer));
      assert.ok(answer['credits'].charged > 0, 'the live steps were billed');
      assertOnePerStep(seen, name);
    }
  });

  it('solve_task and verify_task with the whole result as baseline report the same steps', async () => {
    const solved = await withProgress('solve_task', { goal: 'seo audit of my page', input: { url } });
    assert.equal(solved.isError, false, JSON.stringify(solved.answer));
    assert.equal(solved.answer['skillId'], 'seo-audit', JSON.stringify(solved.answer));
    assertOnePerStep(solved.seen, 'solve_task');

    const verified = await withProgress('verify_task', { goal: 'seo audit of my page', baseline: solved.answer, input: { url } });
    assert.equal(verified.isError, false, JSON.stringify(verified.answer));
    assert.ok(['verified', 'fail', 'continue'].includes(verified.answer['status']), JSON.stringify(verified.answer));
    assertOnePerStep(verified.seen, 'verify_task');
  });

  it('a local-HTML job reports its steps too; a call without onprogress gets a plain answer', async () => {
    const local = await withProgress('run_playbook', { skillId: 'seo-audit', input: { html: PAGE } });
    assert.equal(local.answer['mode'], 'local', JSON.stringify(local.answer));
    assertOnePerStep(local.seen, 'local run_playbook');

    const plain = await client.callTool({ name: 'run_playbook', arguments: { skillId: 'seo-audit', input: { html: PAGE } } });
    assert.equal(answerOf(plain)['status'], 'ok');
  });
});
