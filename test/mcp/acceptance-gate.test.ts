// Issue 17 §3: a gate that keeps the playbook's promises. seo-audit promises "the page has one h1,
// a title and a meta description that fit a search result": a page with two h1s, a 4-character
// title and no description is never verified, whatever else is fixed; each criterion is reported
// met or unmet with the findings behind it, and the fixes an unmet criterion needs rank first.
// competitor-comparison reports your page's findings and the comparison, and its gate follows its
// acceptance. And §2: a need_input answer does not echo a base64 file back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;

const CRITERION_RULES = new Set(['heading-missing-h1', 'heading-multiple-h1', 'meta-title-missing', 'meta-title-too-short', 'meta-title-too-long', 'meta-title-multiple', 'meta-description-missing', 'meta-description-too-short', 'meta-description-too-long', 'meta-description-multiple', 'serp-title-truncated', 'serp-description-truncated']);

interface Page {
  alt: boolean;
  lang: boolean;
  fixedHead: boolean;
}

function page(p: Page): string {
  const head = p.fixedHead
    ? '<title>Trail running shoes tested on rock and mud | Shop</title><meta name="description" content="Lightweight trail running shoes with grippy soles, tested on rock and mud, with free returns within thirty days.">'
    : '<title>Shop</title>';
  const h1s = p.fixedHead ? '<h1>Trail running shoes</h1>' : '<h1>Trail shoes</h1><h1>Our brand</h1>';
  const images = Array.from({ length: 12 }, (_, i) => `<img src="/img/${i}.jpg"${p.alt ? ` alt="Shoe ${i}"` : ''} width="200" height="150">`).join('');
  return `<!doctype html><html${p.lang ? ' lang="en"' : ''}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}<link rel="canonical" href="https://shop.example.com/x"></head><body>${h1s}<p>Every model is tested.</p>${images}</body></html>`;
}

describe('a gate that keeps the playbook\'s promises', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let client: Client;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    const base = await listen(t);
    const { apiKey } = await t.account({ quota: 10_000 });
    client = new Client({ name: 'gate', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  });
  after(async () => {
    await (client as Client | undefined)?.close();
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });
  const call = async (tool: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = await client.callTool({ name: tool, arguments: args });
    return JSON.parse((r.content as { text: string }[])[0]?.text ?? 'null') as Answer;
  };

  it('two h1s, a 4-character title and no description: never verified, the criterion unmet with its findings, its fixes first', async () => {
    const url = 'https://shop.example.com/x';
    const state: Page = { alt: false, lang: false, fixedHead: false };
    const publish = () => web.serve({ [url]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page(state) } });
    publish();
    const goal = 'Audit the SEO of my shop page';
    const solved = await call('solve_task', { goal, input: { url: web.rewrite(url) } });
    const criteria = solved['verification'].evidence.criteria as Answer[];
    const promise = criteria.find((c) => String(c['text']).includes('one h1'));
    assert.ok(promise, JSON.stringify(criteria));
    assert.equal(promise['met'], false);
    const behind = (solved['jobReport'].findings as Answer[]).filter((f) => promise['findings'].includes(f['findingId'])).map((f) => f['rule']);
    for (const rule of ['heading-multiple-h1', 'meta-title-too-short', 'meta-description-missing']) assert.ok(behind.includes(rule), `${rule} is behind the unmet criterion: ${behind.join(', ')}`);
    const ranked = (solved['loop'].remainingFixes as Answer[]).map((f) => f['rule']);
    const firstOther = ranked.findIndex((r) => !CRITERION_RULES.has(r));
    const lastNeeded = ranked.map((r) => CRITERION_RULES.has(r)).lastIndexOf(true);
    assert.ok(firstOther === -1 || lastNeeded < firstOther, `the criterion's fixes rank first: ${ranked.join(', ')}`);
    assert.ok(CRITERION_RULES.has(solved['loop'].nextActions[0].rule));

    // A host that fixes everything else (alt text, lang) but not the promise is never verified.
    state.alt = true;
    state.lang = true;
    publish();
    const still = await call('verify_task', { goal, baseline: { runId: solved['execution'].runId } });
    assert.notEqual(still['status'], 'verified');
    assert.equal(still['loop'].gate, 'fail');
    // A compact answer says the gate's reasons once, in verification.evidence.
    const reasons = still['verification'].evidence.reasons as string[];
    assert.ok(reasons.some((r) => r.includes('one h1')), JSON.stringify(reasons));
    assert.equal(still['loop'].gateReasons, undefined);
    assert.equal(still['delta'].gateReasons, undefined);

    state.fixedHead = true;
    publish();
    const done = await call('verify_task', { goal, baseline: { runId: still['execution'].runId } });
    assert.equal(done['status'], 'verified', JSON.stringify(done['verification']).slice(0, 600));
    assert.ok((done['verification'].evidence.criteria as Answer[]).every((c) => c['met'] === true));
  });

  it('competitor-comparison reports your page\'s findings and the comparison, and gates on them', async () => {
    const yours = 'https://shop.example.com/x';
    const theirs = 'https://rival.example.com/y';
    web.serve({
      [yours]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page({ alt: false, lang: false, fixedHead: false }) },
      [theirs]: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page({ alt: true, lang: true, fixedHead: true }) },
    });
    const run = await call('run_playbook', { skillId: 'competitor-comparison', input: { url: web.rewrite(yours), competitorUrl: web.rewrite(theirs) } });
    assert.equal(run['status'], 'ok', JSON.stringify(run).slice(0, 400));
    const report = run['jobReport'];
    assert.ok(report.findings.length > 0, 'your page\'s findings are reported');
    assert.ok(report.findings.some((f: Answer) => f['rule'] === 'heading-multiple-h1'));
    assert.ok(Object.keys(report.scores).length > 0, 'scored');
    assert.ok((report.notes as string[]).some((n) => /comparison seo: yours \d+, competitor \d+/.test(n)), JSON.stringify(report.notes));
    assert.notEqual(run['loop'].gate, 'unknown');
    assert.equal(run['verification'].evidence.criteria.length, 2);
    assert.equal(run['loop'].initiate, run['loop'].gate === 'fail');
  });

  it('a need_input answer does not echo a base64 file back', async () => {
    const base64 = Buffer.alloc(300_000, 7).toString('base64');
    const answer = await call('solve_task', { goal: 'convert my docx to pdf', input: { file: { base64, fileName: 'report.docx' }, pageSize: 'nonsense-that-needs-nothing' } });
    const text = JSON.stringify(answer);
    assert.ok(!text.includes(base64.slice(0, 5000)), `the file came back (${text.length} characters, status ${answer['status']})`);
    assert.ok(text.length < 24 * 1024, `${text.length} characters`);
  });
});
