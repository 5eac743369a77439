// Issue 17 §1 and §5: a fix loop as the server keeps it. Every job answer carries execution.runId,
// get_run serves it, verify_task takes the baseline by reference (or in any of the spec's forms)
// and the loop's round and stops live with the chain of runs, so they fire whatever form the host
// passes; a baseline that cannot be used is need_input need_baseline; a job's idempotencyKey
// replays it free; a quota refusal, a page that answers 404 and a sync job's webhook are reported
// as what they are. Real app, real analyses, a site on loopback, the official SDK client.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { shopPage, type ShopPage } from './support/shop-page.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;

const BROKEN: ShopPage = { images: 4, blockingScripts: 2, altText: false, description: null, title: null };

describe('the fix loop as the server keeps it', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let base: string;
  let hook: TestSite;
  const clients: Client[] = [];
  const received: Answer[] = [];
  const arrivals = new EventEmitter();

  before(async () => {
    web = await startExampleWeb();
    hook = await startHttpSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer);
        res.writeHead(204).end();
        arrivals.emit('received');
      });
    });
    t = await startTestApp({ fetcher: web.fetcher, env: { EGRESS_ALLOW: '127.0.0.1/32', EGRESS_RESOLVE: 'cdn.example.com:127.0.0.1' } });
    base = await listen(t);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await (t as TestApp | undefined)?.close();
    await (hook as TestSite | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  const connect = async (quota = 10_000): Promise<{ call: (tool: string, args: Record<string, unknown>) => Promise<Answer>; apiKey: string; accountId: string }> => {
    const { apiKey, accountId } = await t.account({ quota });
    const client = new Client({ name: 'loop-chain', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(client);
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name: tool, arguments: args });
      return JSON.parse((r.content as { text: string }[])[0]?.text ?? 'null') as Answer;
    };
    return { call, apiKey, accountId };
  };
  const publish = (url: string, page: ShopPage | string, status = 200) =>
    web.serve({ [url]: { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: typeof page === 'string' ? page : shopPage(page) } });
  const used = async (apiKey: string): Promise<number> => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } });
    return Number(r.json().result.used);
  };

  it('every job answer carries execution.runId; get_run serves sync and async jobs with that same id', async () => {
    const { call } = await connect();
    const url = 'https://shop.example.com/a';
    publish(url, BROKEN);
    const input = { url: web.rewrite(url) };
    const solved = await call('solve_task', { goal: 'Audit the SEO of my shop page', input });
    assert.match(solved['execution'].runId, /^run_[0-9a-f]{32}$/);
    const got = await call('get_run', { runId: solved['execution'].runId });
    assert.equal(got['status'], 'completed');
    assert.equal(got['kind'], 'solve_task');
    assert.equal(got['result'].execution.runId, solved['execution'].runId);
    const accepted = await call('run_playbook', { skillId: 'seo-audit', input, async: true });
    assert.equal(accepted['status'], 'accepted');
    let run = await call('get_run', { runId: accepted['runId'] });
    while (run['status'] === 'accepted') {
      await once(t.services.runExecutor.events, 'finished');
      run = await call('get_run', { runId: accepted['runId'] });
    }
    assert.equal(run['result'].execution.runId, accepted['runId'], 'the finished result names its own run (not null)');
  });

  it("a URL job fetches its page once for all its steps, and each verify once again", async () => {
    const { call } = await connect();
    const url = 'https://shop.example.com/once';
    publish(url, BROKEN);
    const goal = 'Audit the SEO of my shop page';
    const solved = await call('solve_task', { goal, input: { url: web.rewrite(url) } });
    const summary = solved['jobReport'].summary;
    assert.ok(summary.stepsOk >= 3, `several steps read the page: ${JSON.stringify(summary)}`);
    assert.ok(summary.creditsCharged >= summary.stepsOk, 'each step is still charged as its own call');
    assert.equal(web.requests(url), 1, `one fetch of the page for the whole job (${web.requests(url)} made)`);
    const verified = await call('verify_task', { goal, baseline: { runId: solved['execution'].runId } });
    assert.equal(verified['loop'].round, 1, JSON.stringify(verified).slice(0, 300));
    assert.equal(web.requests(url), 2, 'a verify reads the page as it is now, once');
  });

  it('verify_task takes { runId }, .after, a bare jobReport and a truncated answer; round and stops live on the chain', async () => {
    const { call } = await connect();
    const url = 'https://shop.example.com/b';
    publish(url, BROKEN);
    const goal = 'Audit the SEO of my shop page';
    const solved = await call('solve_task', { goal, input: { url: web.rewrite(url) }, sameFindingsLimit: 3, maxRounds: 4 });
    assert.equal(solved['loop'].round, 0);
    // Nothing changes on the page: each form of baseline must still move the chain's round on.
    const first = await call('verify_task', { goal, baseline: { runId: solved['execution'].runId } });
    assert.equal(first['loop'].round, 1, JSON.stringify(first).slice(0, 400));
    assert.equal(first['after'].jobReport, undefined, 'compact: after names the report, it does not repeat it');
    assert.ok(first['delta'].remainingFindings.every((f: Answer) => f['fix'] === undefined && typeof f['findingId'] === 'string'), 'compact delta lists findings by reference');
    const second = await call('verify_task', { goal, baseline: first['after'] });
    assert.equal(second['loop'].round, 2, '.after continues the chain');
    const third = await call('verify_task', { goal, baseline: second['jobReport'] });
    assert.equal(third['loop'].round, 3, 'a bare jobReport continues the chain');
    assert.equal(third['loop'].stop, 'same_findings', 'three unchanged rounds with sameFindingsLimit 3');
    assert.equal(third['status'], 'stopped');
    // The solve result passed again (the chain's first run): the chain has stopped, nothing runs.
    const again = await call('verify_task', { goal, baseline: solved });
    assert.equal(again['status'], 'stopped');
    assert.match(again['message'], /escalate to a human/);
    // A truncated answer (what an oversize answer is cut to) still names its run.
    const cut = { status: solved['status'], execution: solved['execution'], truncated: true, preview: JSON.stringify(solved).slice(0, 200) };
    const fromCut = await call('verify_task', { goal, baseline: cut });
    assert.equal(fromCut['status'], 'stopped', 'the same chain, stopped');
  });

  it('no usable baseline is need_input need_baseline, nothing run: unknown, foreign, forged, missing', async () => {
    const mine = await connect();
    const other = await connect();
    const url = 'https://shop.example.com/c';
    publish(url, BROKEN);
    const goal = 'Audit the SEO of my shop page';
    const theirs = await other.call('solve_task', { goal, input: { url: web.rewrite(url) } });
    const mineSolved = await mine.call('solve_task', { goal, input: { url: web.rewrite(url) } });
    const forged = structuredClone(mineSolved['jobReport']);
    forged.findings = [];
    const cases: [string, unknown][] = [
      ['another account\'s run', { runId: theirs['execution'].runId }],
      ['an unknown run', { runId: `run_${'0'.repeat(32)}` }],
      ['a forged jobReport', forged],
      ['another account\'s whole answer', { ...theirs, execution: undefined }],
    ];
    const before = await used(mine.apiKey);
    for (const [what, baseline] of cases) {
      const answer = await mine.call('verify_task', { goal, baseline });
      assert.equal(answer['status'], 'need_input', what);
      assert.equal(answer['code'], 'need_baseline', `${what}: ${JSON.stringify(answer).slice(0, 300)}`);
      assert.equal(typeof answer['detail'], 'string', what);
    }
    const none = await mine.call('verify_task', { goal });
    assert.equal(none['code'], 'need_baseline');
    assert.equal(await used(mine.apiKey), before, 'nothing was charged');
  });

  it('the same idempotencyKey twice: the second answer is the first, replayed free', async () => {
    const { call, apiKey } = await connect();
    const url = 'https://shop.example.com/d';
    publish(url, BROKEN);
    const args = { goal: 'Audit the SEO of my shop page', input: { url: web.rewrite(url) }, idempotencyKey: 'retry-1' };
    const first = await call('solve_task', args);
    const spent = await used(apiKey);
    assert.ok(first['credits'].charged > 0);
    const second = await call('solve_task', args);
    assert.equal(second['replayed'], true);
    assert.equal(second['credits'].charged, 0);
    assert.equal(second['execution'].runId, first['execution'].runId);
    assert.equal(second['jobReport'].reportId, first['jobReport'].reportId);
    assert.equal(await used(apiKey), spent, 'the replay charged nothing');
  });

  it('intentId is stable for one goal and scope, and projectScope is set from the first call', async () => {
    const { call } = await connect();
    const url = 'https://shop.example.com/e';
    publish(url, BROKEN);
    const goal = 'Audit the SEO of my shop page';
    const solved = await call('solve_task', { goal, input: { url: web.rewrite(url) } });
    assert.match(solved['execution'].intentId, /^int_[0-9a-f]{24}$/);
    assert.ok(String(solved['execution'].projectScope).startsWith('https://shop.example.com'), solved['execution'].projectScope);
    const verified = await call('verify_task', { goal, baseline: { runId: solved['execution'].runId } });
    assert.equal(verified['execution'].intentId, solved['execution'].intentId);
    assert.equal(verified['execution'].projectScope, solved['execution'].projectScope);
  });

  it('a page that now answers 404: reported as such, the job stops after the first step and charges only it', async () => {
    const { call, apiKey } = await connect();
    const url = 'https://shop.example.com/f';
    publish(url, BROKEN);
    const goal = 'Audit the SEO of my shop page';
    const solved = await call('solve_task', { goal, input: { url: web.rewrite(url) } });
    publish(url, '<!doctype html><title>Not found</title><h1>Not found</h1>', 404);
    const spent = await used(apiKey);
    const verified = await call('verify_task', { goal, baseline: { runId: solved['execution'].runId } });
    assert.equal(verified['code'], 'page_error', JSON.stringify(verified).slice(0, 400));
    assert.equal(verified['pageStatus'], 404);
    assert.notEqual(verified['status'], 'verified');
    assert.match(verified['loop'].next, /HTTP 404/);
    const ran = (verified['jobReport'].steps as Answer[]).filter((s) => s['status'] !== 'skipped');
    assert.equal(ran.length, 1, 'one step ran');
    assert.equal(await used(apiKey) - spent, verified['credits'].charged);
    assert.ok(verified['credits'].charged < solved['credits'].charged, `charged ${verified['credits'].charged} of a whole run's ${solved['credits'].charged}`);
  });

  it('a job whose step hit the quota answers quota_exhausted with resetAt, and loop.next says so', async () => {
    const { call } = await connect(3);
    const url = 'https://shop.example.com/g';
    publish(url, BROKEN);
    const solved = await call('solve_task', { goal: 'Audit the SEO of my shop page', input: { url: web.rewrite(url) } });
    assert.equal(solved['code'], 'quota_exhausted', JSON.stringify(solved).slice(0, 400));
    assert.ok(Date.parse(solved['resetAt']) > Date.now());
    assert.match(solved['loop'].next, /quota/);
    assert.equal(solved['loop'].initiate, false);
  });

  it('a conversion through solve_task answers its file in compact mode and records no feature', async () => {
    const { call } = await connect();
    const yaml = 'name: trail shoe\nsizes:\n  - 41\n  - 42\n';
    const answer = await call('solve_task', { goal: 'convert yaml to json', input: { file: { base64: Buffer.from(yaml).toString('base64'), fileName: 'shoe.yaml' } } });
    assert.equal(answer['status'], 'ok', JSON.stringify(answer).slice(0, 400));
    assert.equal(answer['job'].kind, 'tool');
    assert.match(String(answer['result']?.downloadUrl), /^http/, 'the link, without responseMode full');
    assert.equal(typeof answer['result'].fileId, 'string');
    assert.equal(answer['featureMemoryRecord'], undefined, 'a conversion is not a feature');
    assert.ok(answer['credits'].charged > 0);
    const link = new URL(answer['result'].downloadUrl);
    const file = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    assert.equal(file.statusCode, 200);
    assert.deepEqual(JSON.parse(file.body), { name: 'trail shoe', sizes: [41, 42] });
  });

  it('a sync job sends mcp.job.finished naming its kind, skill and goal', async () => {
    const { call, apiKey } = await connect();
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload: JSON.stringify({ url: `http://cdn.example.com:${hook.port}/hook` }) });
    assert.equal(created.statusCode, 201, created.body);
    const url = 'https://shop.example.com/h';
    publish(url, BROKEN);
    const solved = await call('solve_task', { goal: 'Audit the SEO of my shop page', input: { url: web.rewrite(url) } });
    while (!received.some((e) => e['data']?.runId === solved['execution'].runId)) await once(arrivals, 'received');
    const event = received.find((e) => e['data']?.runId === solved['execution'].runId) as Answer;
    assert.equal(event['type'], 'mcp.job.finished');
    assert.equal(event['data'].kind, 'solve_task');
    assert.equal(event['data'].skillId, 'seo-audit');
    assert.equal(event['data'].goal, 'Audit the SEO of my shop page');
    assert.equal(event['data'].status, 'completed');
  });
});
