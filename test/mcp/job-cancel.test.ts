// A cancelled job stops (issue 17 §6): the seo-audit playbook (five steps, each fetching the page)
// runs on a page on loopback (https://shop.example.com through the egress-safe fetcher) whose
// answer the site holds open until the test has cancelled. Cancelled by the SDK client's
// AbortSignal (notifications/cancelled, which reaches this stateless server in a POST of its own)
// or by the client going away (its connection closes): the fetch in flight ends, the site sees no
// further request, no later step runs, and the credits charged are exactly what the job's own
// report says its steps cost: the step in flight as invoke charges a call whose client went away
// (client_closed), the steps not started nothing.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildEgressPolicy } from '../../src/analysis/egress-policy.ts';
import { createEgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import type { InvokeRequest } from '../../src/core/invoke.ts';
import type { JobAnswer } from '../../src/runs/workflow/job-service.ts';
import { createTestCa, startHttpsSite, type TestCa, type TestSite } from '../analysis/support/test-sites.ts';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const HOST = 'shop.example.com';
const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes</title></head><body><h1>Shoes</h1><img src="/a.jpg"></body></html>';
const STEPS = ['seo_apis_meta_tags_analyzer', 'seo_apis_heading_structure_analyzer', 'seo_apis_image_alt_audit', 'seo_apis_structured_data_validator', 'seo_apis_serp_snippet_preview'];

// Bounded: were a cancel lost, the held fetches would wait for the fetcher's own limit; the file then fails, not hangs.
describe('a cancelled job stops: no further fetch, no later step, nothing more charged', { timeout: 120_000 }, () => {
  let ca: TestCa;
  let site: TestSite;
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  /** answers the site holds open; ended in after() whatever happened */
  const held: ServerResponse[] = [];
  /** the page requests of this test's job, and their connections' end */
  let requests: IncomingMessage[] = [];
  /** the jobs run_playbook started, as JobService answered them */
  let jobs: Promise<JobAnswer>[] = [];
  let invoked: string[] = [];

  before(async () => {
    ca = createTestCa();
    // Every page answer is held: only a cancel (or the fetcher's own time limit) ends it.
    site = await startHttpsSite((req, res) => {
      requests.push(req);
      held.push(res);
    }, ca.issue([HOST], 30));
    const fetcher = createEgressFetcher(
      { policy: buildEgressPolicy('127.0.0.1/32', `${HOST}:127.0.0.1`), extraCa: [ca.caPem], limits: { totalTimeoutMs: 60_000 } },
      { concurrency: 4, perAccount: 4, maxQueued: 16 },
    );
    t = await startTestApp({ fetcher });
    base = await listen(t);
    const service = t.services.jobs;
    const runPlaybook = service.runPlaybook.bind(service);
    service.runPlaybook = (...args: Parameters<typeof runPlaybook>) => {
      const job = runPlaybook(...args);
      jobs.push(job);
      return job;
    };
    const invoker = t.services.invoker;
    const invoke = invoker.invoke.bind(invoker);
    invoker.invoke = (req: InvokeRequest) => {
      invoked.push(req.operationId);
      return invoke(req);
    };
  });
  beforeEach(() => {
    requests = [];
    jobs = [];
    invoked = [];
  });
  after(async () => {
    for (const res of held) res.destroy();
    for (const client of clients) await client.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
    await (site as TestSite | undefined)?.close();
    ca.dispose();
  });

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'job-cancel', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(client);
    return client;
  }

  /** Starts the job, waits for the site to hold its first page request, cancels with `cancel`, and answers what the job did. */
  async function cancelWhileFetching(cancel: (client: Client, controller: AbortController) => Promise<void>, progress: boolean) {
    const { apiKey, accountId } = await t.account({ quota: 1000 });
    const client = await connect(apiKey);
    const controller = new AbortController();
    const firstRequest = site.nextRequest('/trail');
    const url = `https://${HOST}:${site.port}/trail`;
    const call = client.callTool({ name: 'run_playbook', arguments: { skillId: 'seo-audit', input: { url } } }, undefined, {
      signal: controller.signal,
      ...(progress ? { onprogress: () => undefined, resetTimeoutOnProgress: true } : {}),
    });
    const rejected = call.then(
      () => assert.fail('a cancelled call is not answered'),
      (err: unknown) => err,
    );
    const request = await firstRequest;
    const fetchEnded = once(request.socket, 'close');
    await cancel(client, controller);
    await rejected;
    // The fetch in flight ends because of the cancel: the held answer was never sent.
    await fetchEnded;
    assert.equal(jobs.length, 1);
    const answer = await jobs[0]!;
    await t.services.usage.flush();
    return { answer, used: await t.services.ledger.used(accountId) };
  }

  function assertStopped({ answer, used }: { answer: JobAnswer; used: number }, how: string): void {
    assert.equal(requests.length, 1, `${how}: the site saw only the first page request, none after the cancel`);
    assert.deepEqual(invoked, [STEPS[0]], `${how}: only the first step was called`);
    // Nothing answered before the cancel, so the job is an error (a partial one when a step had answered).
    assert.equal(answer['status'], 'error', `${how}: ${JSON.stringify(answer)}`);
    const steps = (answer['jobReport'] as { steps: { operationId: string; status: string; creditsCharged: number }[] }).steps;
    assert.deepEqual(
      steps.slice(1).map((s) => [s.operationId, s.status, s.creditsCharged]),
      STEPS.slice(1).map((op) => [op, 'skipped', 0]),
      `${how}: the steps after the cancel were not run and not charged`,
    );
    // The step in flight is cut short as a REST call whose client went away: invoke's client_closed, charged as invoke charges it.
    assert.deepEqual([steps[0]?.status, (steps[0] as { errorCode?: string } | undefined)?.errorCode], ['error', 'client_closed'], `${how}: the step in flight was cut short`);
    const reported = (answer['credits'] as { charged: number }).charged;
    assert.equal(reported, steps[0]?.creditsCharged, `${how}: the job charged only its first step`);
    assert.ok(reported <= t.services.catalog.get(STEPS[0]!)!.credits, `${how}: at most the first step's price`);
    assert.equal(used, reported, `${how}: the account was charged exactly what the job reports`);
    const notes = JSON.stringify(answer['jobReport']);
    assert.match(notes, /cancelled/, `${how}: the report says the job was cancelled`);
  }

  it("the client's AbortSignal (notifications/cancelled) stops the job", async () => {
    const seen = await cancelWhileFetching(async (_client, controller) => controller.abort('the user stopped it'), false);
    assertStopped(seen, 'notifications/cancelled');
  });

  it('a cancel also stops a job that streams progress', async () => {
    const seen = await cancelWhileFetching(async (_client, controller) => controller.abort('the user stopped it'), true);
    assertStopped(seen, 'notifications/cancelled with progress');
  });

  it('the client going away (its connection closed) stops the job', async () => {
    const seen = await cancelWhileFetching(async (client) => client.close(), false);
    assertStopped(seen, 'client gone');
  });
});
