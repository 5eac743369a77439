// Issue 19, item 1: the seo-audit playbook checks crawlability. Pages served on loopback (as
// https://*.example.com through the egress-safe fetcher) and run through run_workflow: a noindex
// page, a page robots.txt disallows and a host under `Disallow: /` each fail "the page can be
// indexed" with SEO below 70; a clean page meets it; HTML passed in (no site, no robots.txt) runs
// the crawlability step free, its rules not applicable, and meets it on its own robots directives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const INDEXABLE = 'The page can be indexed';
const HTML = { 'content-type': 'text/html; charset=utf-8' };
const TEXT = { 'content-type': 'text/plain' };
const page = (robots = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for rock and mud | Shop</title>${robots}
<meta name="description" content="Lightweight trail running shoes with grippy soles, tested on rock and mud, with free returns within thirty days.">
</head><body><h1>Trail running shoes</h1><p>Shoes for every season.</p></body></html>`;

describe('seo-audit: the page can be indexed', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let client: Client;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    const base = await listen(t);
    const { apiKey } = await t.account({ quota: 10_000 });
    client = new Client({ name: 'seo-audit-crawlability', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    web.serve({
      'https://shop.example.com/shoes': { headers: HTML, body: page() },
      'https://shop.example.com/robots.txt': { headers: TEXT, body: 'User-agent: *\nAllow: /\n' },
      'https://www.example.com/shoes': { headers: HTML, body: page('<meta name="robots" content="noindex">') },
      'https://blog.example.com/drafts/shoes': { headers: HTML, body: page() },
      'https://blog.example.com/robots.txt': { headers: TEXT, body: 'User-agent: *\nDisallow: /drafts/\n' },
      'https://rival.example.com/shoes': { headers: HTML, body: page() },
      'https://rival.example.com/robots.txt': { headers: TEXT, body: 'User-agent: *\nDisallow: /\n' },
    });
  });
  after(async () => {
    await (client as Client | undefined)?.close();
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  const run = async (input: Record<string, unknown>): Promise<Answer> =>
    answerOf(await client.callTool({ name: 'run_workflow', arguments: { workflowId: 'seo-audit', input } })) as Answer;
  const criterion = (answer: Answer) => (answer['verification'].evidence.criteria as Answer[]).find((c) => String(c['text']).startsWith(INDEXABLE));

  it('a clean page on a site that allows it meets the criterion; the crawlability step ran', async () => {
    const answer = await run({ url: web.rewrite('https://shop.example.com/shoes') });
    const steps = answer['jobReport'].steps as Answer[];
    assert.equal(steps.find((s) => s['stepId'] === 'crawlability')?.['status'], 'ok', JSON.stringify(steps.map((s) => [s['stepId'], s['status'], s['errorCode']])));
    assert.equal(criterion(answer)?.['met'], true, JSON.stringify(criterion(answer)));
  });

  for (const [what, url, rule] of [
    ['a noindex page', 'https://www.example.com/shoes', 'meta-robots-noindex'],
    ['a page robots.txt disallows', 'https://blog.example.com/drafts/shoes', 'robots-page-disallowed'],
    ['a host under Disallow: /', 'https://rival.example.com/shoes', 'robots-page-disallowed'],
  ] as const) {
    it(`${what}: the criterion fails naming ${rule}, SEO below 70, the gate fails`, async () => {
      const answer = await run({ url: web.rewrite(url) });
      const report = answer['jobReport'];
      assert.ok((report.findings as Answer[]).some((f) => f['rule'] === rule), JSON.stringify((report.findings as Answer[]).map((f) => f['rule'])));
      assert.equal(criterion(answer)?.['met'], false);
      assert.match(String(criterion(answer)?.['detail']), new RegExp(rule));
      assert.ok(report.scores.seo < 70, `seo ${report.scores.seo}`);
      assert.equal(answer['verification'].evidence.gate, 'fail');
    });
  }

  it('HTML passed in: the crawlability step runs free, its robots.txt rules not applicable, and the criterion rests on the page\'s own directives', async () => {
    const clean = await run({ html: page() });
    assert.equal(clean['mode'], 'local');
    const step = (clean['jobReport'].steps as Answer[]).find((s) => s['stepId'] === 'crawlability');
    assert.equal(step?.['status'], 'ok');
    assert.equal(criterion(clean)?.['met'], true, JSON.stringify(criterion(clean)));
    const noindex = await run({ html: page('<meta name="robots" content="noindex">') });
    assert.equal(criterion(noindex)?.['met'], false);
    assert.equal(noindex['credits'].charged, 0);
  });
});
