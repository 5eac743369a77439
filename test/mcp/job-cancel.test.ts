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
const STEPS = ['seo_apis_meta_tags_analyzer', 'seo_apis_heading_structure_analyzer', 'seo_apis_image_alt_audit', 'seo_apis_structured_data_validator', 'seo_apis_serp_snippet_preview', 'seo_apis_robots_sitemap_checker'];

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
  /** the account of each job in `jobs`, in the same order (calls sent at once may start in either order) */
  let jobAccounts: string[] = [];
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
      // Room for one account's two page fetches at once (the last test holds two of the same account).
      { concurrency: 16, perAccount: 8, maxQueued: 64 },
    );
    t = await startTestApp({ fetcher });
    base = await listen(t);
    const service = t.services.jobs;
    const runPlaybook = service.runPlaybook.bind(service);
    service.runPlaybook = (...args: Parameters<typeof runPlaybook>) => {
      const job = runPlaybook(...args);
      jobs.push(job);
      jobAccounts.push(args[0].caller.account.id);
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
    jobAccounts = [];
    invoked = [];
  });
  after(async () => {
    for (const res of held) res.destroy();
    for (const client of clients) await client.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
    await (site as TestSite | undefined)?.close();
    ca.dispose();
  });

  /** Resolves with the answer to the next notifications/cancelled a client POSTs (the SDK sends it without waiting). */
  let cancelAnswered: (status: number) => void = () => undefined;
  const nextCancelAnswer = () => new Promise<number>((resolve) => (cancelAnswered = resolve));
  const watched: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"notifications/cancelled"')) cancelAnswered(res.status);
    return res;
  };

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'job-cancel', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: watched, requestInit: { headers: { 'x-api-key': apiKey } } }));
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

  it("a cancel stops only the call it names: another key's call with the same id, or the same key's when the id is ambiguous, goes on", async () => {
    // Every SDK client numbers its requests from 0, so these three calls all carry the same id.
    const mine = await t.account({ quota: 1000 });
    const other = await t.account({ quota: 1000 });
    const [a, b] = [await connect(mine.apiKey), await connect(other.apiKey)];
    const start = (client: Client, path: string) => {
      const controller = new AbortController();
      const arrived = site.nextRequest(path);
      const call = client.callTool({ name: 'run_playbook', arguments: { skillId: 'seo-audit', input: { url: `https://${HOST}:${site.port}${path}` } } }, undefined, { signal: controller.signal });
      return { controller, arrived, call: call.then(() => 'answered', () => 'rejected') };
    };
    const jobA = start(a, '/a');
    const jobB = start(b, '/b');
    const [requestA, requestB] = [await jobA.arrived, await jobB.arrived];
    const openB = () => !requestB.socket.destroyed;
    jobA.controller.abort('stop a');
    assert.equal(await jobA.call, 'rejected');
    await once(requestA.socket, 'close');
    // a's and b's calls were sent at once, so either job may have started first.
    const answerA = await jobs[jobAccounts.indexOf(mine.accountId)]!;
    assert.match(JSON.stringify(answerA['jobReport']), /cancelled/, "a's job stopped");
    assert.ok(openB(), "b's fetch is still in flight: the cancel was a's alone");

    // A second client of b's key with a call of the same id: a cancel could be either's, so it is ignored.
    const b2 = await connect(other.apiKey);
    const jobB2 = start(b2, '/b2');
    const requestB2 = await jobB2.arrived;
    const cancelled = nextCancelAnswer();
    jobB2.controller.abort('stop b2');
    assert.equal(await jobB2.call, 'rejected');
    // The server has taken the cancel (it is looked up before the POST is answered); both fetches are still held.
    assert.equal(await cancelled, 202);
    assert.ok(openB() && !requestB2.socket.destroyed, 'an ambiguous cancel stops neither call');
    // Their clients going away stops them both.
    await b.close();
    await b2.close();
    assert.equal(jobs.length, 3);
    await Promise.all(jobs);
    assert.equal(requests.length, 3, 'no page was requested after the cancels');
  });
});
