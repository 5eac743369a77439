// Issue 21 item 8: two real server processes (two "nodes", each with its own DATA_DIR) on one
// PostgreSQL database, one Redis and one S3 server, driven over real HTTP and MCP as clients
// would: the credit quota, the per-minute limit, results, idempotent replays and async runs hold
// across both, and a node SIGKILLed while running async runs loses none of them: the other node
// ends the started one `error` (its unsettled credit given back with the dead node's lease) and
// runs the queued one itself. Tests wait for events (a log line, a request reaching a site, a
// webhook), never for a clock; the test's timeout is the hang guard.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { downloadResult, json, upload } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { testPostgresCluster } from '../support/postgres-cluster.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { callEmi, EMI, EMI_BODY, startServer, usageOf, type Server } from '../support/server-process.ts';
import { startTestApp } from '../support/test-app.ts';

const META_TAGS = 'seo_apis_meta_tags_analyzer';
const PAGE = '<!doctype html><html lang="en"><head><title>Two nodes</title><meta name="description" content="A page for the two-node test."></head><body><h1>Two nodes</h1></body></html>';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = Record<string, any>;

async function connect(base: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'two-nodes-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  return answerOf(await client.callTool({ name, arguments: args })) as Structured;
}

describe('two nodes on one PostgreSQL, Redis and S3 server', { timeout: 600_000 }, () => {
  let redis: RedisServer;
  let s3: S3Server;
  let site: TestSite;
  let hooks: TestSite;
  let databaseUrl: string;
  let a: Server;
  let b: Server;
  const dirs: string[] = [];
  const clients: Client[] = [];
  /** The page requests held open (a run "in flight" on its node) until the test answers them. */
  const held: { end(): void }[] = [];
  /** mcp.job.finished deliveries, by runId. */
  const finished = new Map<string, Structured>();
  const deliveries = new EventEmitter();
  const accounts: { apiKey: string; accountId: string }[] = [];

  async function webhookFor(runId: string): Promise<Structured> {
    while (!finished.has(runId)) await once(deliveries, 'delivered');
    return finished.get(runId)!;
  }

  before(async () => {
    const cluster = await testPostgresCluster();
    databaseUrl = await cluster.createDatabase();
    redis = await startRedisServer();
    s3 = await startS3Server();
    site = await startHttpSite((req, res) => {
      const respond = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (req.url?.startsWith('/held')) held.push({ end: respond });
      else respond();
    });
    hooks = await startHttpSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Structured;
        res.writeHead(204).end();
        if (event['type'] === 'mcp.job.finished') finished.set(event['data']['runId'], event['data']);
        deliveries.emit('delivered');
      });
    });
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      ...s3.env('two-nodes'),
      FILE_SIGNING_SECRET: 'two-nodes-signing-secret-0123456789abcdef',
      EGRESS_ALLOW: 'pages.test,hooks.test',
      EGRESS_RESOLVE: 'pages.test:127.0.0.1,hooks.test:127.0.0.1',
      // One run at a time per node: a second async run waits in its node's queue.
      RUN_CONCURRENCY: '1',
    };
    // The accounts, made through the service's own store on the shared database, before the nodes start.
    const maker = await startTestApp({ env });
    try {
      accounts.push(await maker.account({ quota: 7 }));
      for (let i = 0; i < 3; i++) accounts.push(await maker.account({ quota: 1000, rateLimit: 10 }));
      accounts.push(await maker.account({ quota: 100 }));
      // Far from any lease: direct charges, so the database's count is exact at every moment.
      accounts.push(await maker.account({ quota: 50, plan: 'pro' }));
    } finally {
      await maker.close();
    }
    for (let i = 0; i < 2; i++) dirs.push(mkdtempSync(join(tmpdir(), `two-nodes-${i}-`)));
    a = await startServer(dirs[0]!, env);
    b = await startServer(dirs[1]!, env);
  });

  after(async () => {
    for (const request of held) request.end();
    for (const client of clients) await client.close().catch(() => undefined);
    await a?.kill('SIGKILL');
    await b?.kill('SIGTERM');
    await site?.close();
    await hooks?.close();
    await redis?.stop();
    await s3?.stop();
    if (databaseUrl) await (await testPostgresCluster()).dropDatabase(databaseUrl);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('200 calls racing the last 7 credits across both nodes spend exactly 7', async () => {
    const { apiKey } = accounts[0]!;
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => callEmi(i % 2 === 0 ? a.base : b.base, apiKey).then((answer) => answer.status)));
    assert.equal(statuses.filter((s) => s === 200).length, 7);
    assert.equal(statuses.filter((s) => s === 429).length, 193);
    assert.equal((await usageOf(a.base, apiKey)).used, 7);
    assert.equal((await usageOf(b.base, apiKey)).used, 7);
  });

  it('a 10-a-minute account gets exactly 10 answers across both nodes', async () => {
    // The window is a minute: a burst that straddles a minute boundary is tried again on a fresh account.
    for (const { apiKey } of accounts.slice(1, 4)) {
      const minute = Math.floor(Date.now() / 60_000);
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => callEmi(i % 2 === 0 ? a.base : b.base, apiKey)));
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      assert.equal(answers.filter((answer) => answer.status === 200).length, 10, JSON.stringify(answers.map((answer) => answer.status)));
      const refused = answers.filter((answer) => answer.status === 429);
      assert.equal(refused.length, 6);
      assert.ok(refused.every((answer) => (answer.body as Structured)['error'] === 'rate_limited'), JSON.stringify(refused[0]?.body));
      return;
    }
    assert.fail('three bursts in a row straddled a minute boundary');
  });

  it('a file converted on one node downloads through the other, and an idempotent retry sent to the other replays', async () => {
    const { apiKey } = accounts[4]!;
    const res = await upload(a.base, '/api/v1/documents/txt-to-md', apiKey, { name: 'notes.txt', content: 'Converted on node A\n' });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.match((await downloadResult(b.base, body)).toString('utf8'), /Converted on node A/);

    const first = await callEmi(a.base, apiKey, 'two-nodes-retry');
    const retry = await callEmi(b.base, apiKey, 'two-nodes-retry');
    assert.equal(first.status, 200);
    assert.equal(first.replayed, false);
    assert.equal(retry.status, 200);
    assert.equal(retry.replayed, true);
    assert.deepEqual(retry.body, first.body);
  });

  it('an async run submitted on one node is polled on the other', async () => {
    const { apiKey } = accounts[4]!;
    const hook = await fetch(`${b.base}/api/v1/webhooks`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://hooks.test:${hooks.port}/hook` }) });
    assert.equal(hook.status, 201, await hook.text());
    const onA = await connect(a.base, apiKey);
    const onB = await connect(b.base, apiKey);
    clients.push(onA, onB);
    const submitted = await callTool(onA, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI_BODY, async: true });
    assert.equal(submitted['status'], 'accepted', JSON.stringify(submitted));
    await webhookFor(submitted['runId']);
    const polled = await callTool(onB, 'get_run', { runId: submitted['runId'] });
    assert.equal(polled['status'], 'completed', JSON.stringify(polled));
    const sync = await callTool(onB, 'invoke_tool', { operationId: 'calculators_emi_calculator', input: EMI_BODY });
    assert.deepEqual(polled['result'], sync['result']);
  });

  it('SIGKILL of the node running async runs: the other node ends the started run error, runs the queued one, and charges only that one', async () => {
    const { apiKey } = accounts[5]!;
    const hook = await fetch(`${b.base}/api/v1/webhooks`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://hooks.test:${hooks.port}/hook` }) });
    assert.equal(hook.status, 201, await hook.text());
    const onA = await connect(a.base, apiKey);
    clients.push(onA);
    const reached = site.nextRequest('/held');
    const started = await callTool(onA, 'invoke_tool', { operationId: META_TAGS, input: { url: `http://pages.test:${site.port}/held` }, async: true });
    assert.equal(started['status'], 'accepted', JSON.stringify(started));
    await reached; // node A is running it: its request is at the site, held open
    const queued = await callTool(onA, 'invoke_tool', { operationId: META_TAGS, input: { url: `http://pages.test:${site.port}/page` }, async: true });
    assert.equal(queued['status'], 'accepted', JSON.stringify(queued));

    await a.kill('SIGKILL');
    // Node B's sweep finds node A's pid gone: the started run is closed, the queued one runs on B.
    await b.logged('closed a run left in flight by a stopped process');
    const [ended, rerun] = await Promise.all([webhookFor(started['runId']), webhookFor(queued['runId'])]);
    assert.equal(ended['status'], 'error');
    assert.equal(rerun['status'], 'completed');
    assert.equal(rerun['resultStatus'], 'ok');
    assert.ok(rerun['credits'] > 0);

    const onB = await connect(b.base, apiKey);
    clients.push(onB);
    const closed = await callTool(onB, 'get_run', { runId: started['runId'] });
    assert.equal(closed['status'], 'error');
    assert.match(closed['message'], /stopped before it finished/);
    const done = await callTool(onB, 'get_run', { runId: queued['runId'] });
    assert.equal(done['status'], 'completed', JSON.stringify(done));
    // Node B fetched and analysed the page itself.
    assert.equal(done['result']['url'], `http://pages.test:${site.port}/page`);
    assert.equal(done['result']['status'], 200);
    assert.equal(typeof done['result']['report']['scores']['seo'], 'number');
    assert.match(b.output(), /took over a run a stopped node had not started/);
    // Charged once, for the run that completed: the started run's credit went back with node A's lease.
    assert.equal((await usageOf(b.base, apiKey)).used, rerun['credits']);
  });
});
