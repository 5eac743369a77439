// Issue 11 §4: the host loop of spec rule 7 driven end to end through the SDK's client against a
// real site on loopback (served as https://shop.example.com through the egress-safe fetcher): the
// test plays the host, applying only the rank-1 fix of loop.nextActions to the page between
// rounds, and calls verify_task with the previous result as baseline until the gate passes. It
// ends verified with the feature recorded; a site that is never fixed ends with same_findings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { answerOf } from '../support/mcp-answer.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;

/** The page as the host's workspace holds it: each fix the loop names edits one part of it. */
interface Page {
  title: string;
  description: string;
  h1: string;
  alt: string;
  lang: string;
  viewport: string;
  canonical: string;
}

const BROKEN: Page = { title: '', description: '', h1: '', alt: '', lang: '', viewport: '', canonical: '' };

function html(p: Page): string {
  return `<!doctype html><html${p.lang}><head><meta charset="utf-8">${p.viewport}${p.title}${p.description}${p.canonical}</head>
<body>${p.h1}<p>Trail shoes for every season, tested on rock and mud.</p><img src="/img/shoe.jpg"${p.alt} width="400" height="300"></body></html>`;
}

/** What a host would change for a rule (the fix's `change` says it in words; here it is code). */
const EDITS: Record<string, (p: Page) => void> = {
  'meta-title-missing': (p) => void (p.title = '<title>Trail running shoes | Shop</title>'),
  'meta-description-missing': (p) => void (p.description = '<meta name="description" content="Lightweight trail running shoes with grippy soles, tested on rock and mud, with free returns.">'),
  'heading-missing-h1': (p) => void (p.h1 = '<h1>Trail running shoes</h1>'),
  'image-alt-missing': (p) => void (p.alt = ' alt="A trail running shoe"'),
  'meta-lang-missing': (p) => void (p.lang = ' lang="en"'),
  'meta-viewport-missing': (p) => void (p.viewport = '<meta name="viewport" content="width=device-width, initial-scale=1">'),
  'meta-canonical-missing': (p) => void (p.canonical = '<link rel="canonical" href="https://shop.example.com/shoes">'),
};

describe('the verify loop, driven by a host that applies only the rank-1 fix', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let client: Client;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    const base = await listen(t);
    const { apiKey } = await t.account({ quota: 10_000 });
    client = new Client({ name: 'host-loop', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  });
  after(async () => {
    await (client as Client | undefined)?.close();
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = await client.callTool({ name, arguments: args });
    return answerOf(r) as Answer;
  };

  it('fixes one finding a round until the gate passes, then records the feature', async () => {
    const page: Page = { ...BROKEN };
    const url = 'https://shop.example.com/shoes';
    const publish = () => web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: html(page) } });
    publish();
    const goal = `audit the seo of ${web.rewrite(url)}`;
    let result = await call('solve_task', { goal });
    assert.equal(result['job'].id, 'seo-audit', JSON.stringify(result).slice(0, 500));
    assert.equal(result['loop'].round, 0);
    assert.equal(result['loop'].gate, 'fail');
    assert.equal(result['loop'].initiate, true);
    const applied: string[] = [];
    while (result['loop'].gate !== 'pass') {
      assert.ok(result['loop'].initiate, `round ${result['loop'].round}: the loop must be allowed to go on (${JSON.stringify(result['loop'].stop)})`);
      assert.equal(result['loop'].nextActions.length, 1, 'nextActions holds the rank-1 fix only');
      const fix = result['loop'].nextActions[0];
      assert.equal(fix.findingId, result['loop'].remainingFixes[0].findingId);
      for (const field of ['findingId', 'patchType', 'acceptance', 'roleHint']) assert.ok(fix[field], `the fix carries ${field}`);
      const edit = EDITS[fix.rule];
      assert.ok(edit, `the host knows how to apply ${fix.rule}`);
      edit(page);
      applied.push(fix.rule);
      publish();
      const previousRound = result['loop'].round;
      result = await call('verify_task', { goal, baseline: result });
      assert.equal(result['loop'].round, previousRound + 1);
      assert.ok(result['delta'].resolvedFindings.some((f: Answer) => f.findingId === fix.findingId), `${fix.rule} is resolved in the delta`);
      assert.ok(applied.length <= 8, 'the loop ends within the fixes the page needs');
    }
    assert.equal(result['status'], 'verified');
    assert.equal(result['delta'].gate, 'pass');
    assert.equal(result['loop'].initiate, false);
    assert.ok(applied.length >= 2, `fixed ${applied.join(', ')}`);
    const featureId = result['featureMemoryRecord']?.featureId;
    assert.match(String(featureId), /^feat_[0-9a-f]{32}$/);
    const recalled = await call('recall_context', {});
    assert.ok(JSON.stringify(recalled).includes(featureId), 'recall_context lists the recorded feature');
  });

  it('a site that never improves stops with same_findings after sameFindingsLimit rounds, never verified', async () => {
    const url = 'https://blog.example.com/post';
    web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: html(BROKEN) } });
    const goal = `check seo for ${web.rewrite(url)}`;
    let result = await call('solve_task', { goal, sameFindingsLimit: 2 });
    assert.equal(result['loop'].gate, 'fail');
    const statuses: string[] = [];
    for (let round = 1; round <= 2; round += 1) {
      result = await call('verify_task', { goal, baseline: result });
      statuses.push(result['status']);
    }
    assert.equal(result['loop'].stop, 'same_findings');
    assert.equal(result['loop'].initiate, false);
    assert.equal(result['status'], 'stopped');
    assert.ok(!statuses.includes('verified'));
    // A verify after the stop runs nothing and says to escalate.
    const again = await call('verify_task', { goal, baseline: result });
    assert.equal(again['status'], 'stopped');
    assert.match(String(again['message']), /escalate to a human/);
  });
});
