// competitor-page-compare through the whole app: who wins each category and the rules that say why,
// and a failure on one side told as that side's, uncharged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startExampleWeb, type ExampleWeb } from './support/example-web.ts';

const PATH = '/api/v1/seo-apis/competitor-page-compare';
const STRONG = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for every terrain | Acme</title>
<meta name="description" content="Lightweight trail running shoes with grippy soles, waterproof uppers and free returns within thirty days.">
</head><body><h1>Trail shoes</h1><img src="/a.jpg" alt="Acme trail shoe"></body></html>`;
const WEAK = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Trail running shoes for every terrain | Acme</title></head><body><h2>Shoes</h2><img src="/a.jpg"></body></html>';

interface Comparison {
  category: string;
  yours: number | null;
  competitor: number | null;
  winner: string;
  why: string[];
}

describe('competitor-page-compare', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher });
    ({ apiKey } = await t.account({ quota: 100 }));
    web.serve({ 'https://example.com/': { body: WEAK }, 'https://rival.example.com/': { body: STRONG } });
  });
  // Each closed if it was started, so a failed start cannot leave a server holding the run open.
  after(async () => {
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  it('names the winner of each category and the rules the loser fails that the winner passes', async () => {
    const response = await t.call(PATH, web.rewriteValue({ yourUrl: 'https://example.com/', competitorUrl: 'https://rival.example.com/' }), apiKey);
    assert.equal(response.statusCode, 200, response.body);
    const result = response.json().result;
    const byCategory = new Map((result.categories as Comparison[]).map((c) => [c.category, c]));
    const seo = byCategory.get('seo');
    assert.ok(seo);
    assert.equal(seo.winner, 'competitor');
    assert.ok(seo.competitor! > seo.yours!);
    assert.deepEqual(seo.why.map((w) => w.split(':')[0]).sort(), ['heading-missing-h1', 'meta-description-missing']);
    const accessibility = byCategory.get('accessibility');
    assert.equal(accessibility?.winner, 'competitor');
    assert.deepEqual(accessibility?.why.map((w) => w.split(':')[0]), ['image-alt-missing']);
    // Both pages send the same (no) security headers: a tie, nothing to explain.
    assert.equal(byCategory.get('security-headers')?.winner, 'tie');
    assert.deepEqual(byCategory.get('security-headers')?.why, []);
    assert.equal(result.overall.winner, 'competitor');
    assert.equal(result.yours.report.findings.some((f: { rule: string }) => f.rule === 'image-alt-missing'), true);

    const markdown = await t.app.inject({ method: 'POST', url: `${PATH}?format=markdown`, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: JSON.stringify(web.rewriteValue({ yourUrl: 'https://example.com/', competitorUrl: 'https://rival.example.com/' })) });
    assert.equal(markdown.statusCode, 200);
    assert.match(markdown.body, /\| seo \| \d+ \| \d+ \| competitor \|/);
    assert.match(markdown.body, /## Your page/);
    assert.match(markdown.body, /## Competitor page/);
  });

  it('answers a failure on one side as that side\'s, and charges nothing', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).json().result.used;
    const response = await t.call(PATH, { yourUrl: web.rewrite('https://example.com/'), competitorUrl: 'http://127.0.0.2/' }, apiKey);
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(body.error, 'url_not_allowed');
    assert.match(body.message, /^competitorUrl: /);
    const afterUsed = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).json().result.used;
    assert.equal(afterUsed, before);
  });
});
