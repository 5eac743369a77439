// client.mcp.verifyUntilPass against the real app and a shop site on loopback (served as
// https://shop.example.com through the egress-safe fetcher): a host whose applyFix repairs what it
// is told ends `verified`, each fix having been the nextActions[0] of the answer before it and
// each verify sent the baseline as { runId } alone; a host that never repairs ends on the
// server's loop.stop, `stopped`, never verified.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolServiceClient } from '../src/index.ts';
import type { LoopFix, McpAnswer } from '../src/loop.ts';
import { startExampleWeb, type ExampleWeb } from '../../../test/analysis/support/example-web.ts';
import { listen } from '../../../test/support/http.ts';
import { startTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { shopPage, type ShopPage } from '../../../test/mcp/support/shop-page.ts';

/** How the host applies a fix to its page, by the rule the fix names. */
const EDITS: Record<string, (p: ShopPage) => void> = {
  'image-alt-missing': (p) => void (p.altText = true),
  'meta-description-missing': (p) => void (p.description = 'Trail running shoes, boots and socks from our Lisbon workshop: 120 models, tested on rock and mud, with free returns.'),
  'meta-title-missing': (p) => void (p.title = 'Trail running shoes | Shop'),
};

describe('client.mcp.verifyUntilPass', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let client: ToolServiceClient;
  /** the arguments of every verify_task call the client sent */
  const verifies: Record<string, unknown>[] = [];

  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    const base = await listen(t);
    const { apiKey } = await t.account({ quota: 10_000 });
    client = new ToolServiceClient({
      apiKey,
      baseUrl: base,
      fetch: async (input, init) => {
        if (typeof init?.body === 'string') {
          const message = JSON.parse(init.body) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
          if (message.method === 'tools/call' && message.params?.name === 'verify_task') verifies.push(message.params.arguments ?? {});
        }
        return fetch(input, init);
      },
    });
  });
  after(async () => {
    await (client as ToolServiceClient | undefined)?.mcp.close();
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  it('a page applyFix repairs ends verified; every fix applied was the rank-1 fix of the answer before it', async () => {
    verifies.length = 0;
    const url = 'https://shop.example.com/trail';
    const page: ShopPage = { images: 24, blockingScripts: 2, altText: false, description: null, title: 'Trail running shoes and boots | Shop' };
    const publish = () => web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: shopPage(page) } });
    publish();
    const goal = 'Audit the SEO of my shop page';
    const solved = await client.mcp.solve_task({ goal, input: { url: web.rewrite(url) } });
    assert.equal(solved.loop?.gate, 'fail', JSON.stringify(solved).slice(0, 400));

    const applied: LoopFix[] = [];
    const answers: McpAnswer[] = [solved];
    const result = await client.mcp.verifyUntilPass({
      goal,
      baseline: solved,
      applyFix: (fix) => {
        const edit = EDITS[String(fix.rule)];
        assert.ok(edit, `told to fix ${fix.rule}, which this host does not know`);
        edit(page);
        publish();
        applied.push(fix);
      },
      onRound: (_round, answer) => void answers.push(answer),
    });

    assert.equal(result.status, 'verified', JSON.stringify(result.last).slice(0, 600));
    assert.equal(result.last.loop?.gate, 'pass');
    assert.equal(result.rounds.length, applied.length);
    assert.ok(applied.length >= 2, `two defects, one fix a round: ${applied.map((f) => f.rule).join(', ')}`);
    applied.forEach((fix, i) => {
      assert.deepEqual(fix, answers[i]?.loop?.nextActions[0], `round ${i + 1} applied the rank-1 fix of the answer before it`);
      assert.deepEqual(result.rounds[i]?.fix, fix);
      // The cheapest baseline: the previous answer's runId and nothing else.
      assert.deepEqual(verifies[i], { goal, baseline: { runId: answers[i]?.execution?.runId } });
    });
    assert.deepEqual(result.rounds.map((r) => r.round), applied.map((_, i) => i + 1), 'the server counted one round per verify');
    assert.equal(result.rounds.at(-1)?.status, 'verified');
    assert.ok(result.rounds.slice(0, -1).every((r) => r.status !== 'verified'), 'verified only at the end');
  });

  it('a page it never repairs ends on the server loop.stop: stopped, never verified; a runId baseline is read with get_run', async () => {
    verifies.length = 0;
    const url = 'https://shop.example.com/boots';
    const page: ShopPage = { images: 3, blockingScripts: 0, altText: false, description: null, title: 'Winter boots | Shop' };
    web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: shopPage(page) } });
    const goal = 'Audit the SEO of my shop page';
    const solved = await client.mcp.solve_task({ goal, input: { url: web.rewrite(url) }, sameFindingsLimit: 2 });
    assert.equal(solved.loop?.gate, 'fail');
    const runId = solved.execution?.runId;
    assert.ok(runId);

    const told: LoopFix[] = [];
    const result = await client.mcp.verifyUntilPass({ goal, baseline: runId, applyFix: (fix) => void told.push(fix) });

    assert.equal(result.status, 'stopped', JSON.stringify(result.last).slice(0, 600));
    assert.equal(result.last.loop?.stop, 'same_findings');
    assert.equal(result.last.loop?.initiate, false);
    assert.equal(result.rounds.length, 2, 'sameFindingsLimit 2: two unchanged rounds');
    assert.ok(result.rounds.every((r) => r.status !== 'verified'));
    assert.equal(told.length, 2, 'a fix was handed over before each verify');
    assert.deepEqual(told[0], solved.loop?.nextActions[0], 'the first is the solve answer (read back with get_run) rank-1 fix');
    assert.deepEqual(verifies[0], { goal, baseline: { runId } });
  });

  it('maxRounds bounds the rounds this call runs; the status stays the server one', async () => {
    const url = 'https://shop.example.com/socks';
    web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: shopPage({ images: 2, blockingScripts: 0, altText: false, description: null, title: 'Socks | Shop' }) } });
    const goal = 'Audit the SEO of my shop page';
    const solved = await client.mcp.solve_task({ goal, input: { url: web.rewrite(url) }, sameFindingsLimit: 5 });
    const result = await client.mcp.verifyUntilPass({ goal, baseline: solved, applyFix: () => {}, maxRounds: 1 });
    assert.equal(result.rounds.length, 1);
    assert.notEqual(result.status, 'verified');
    assert.equal(result.status, result.last.status, 'the server status of the last verify');
    assert.equal(result.last.loop?.gate, 'fail');
  });
});
