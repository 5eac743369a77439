// The usage page over real HTTP with a session cookie: the same figures as GET /api/v1/usage
// (credits used and left, the quota, the reset date, per tool and per key, the plan's limits),
// read from the page's cells and compared with the REST answer for the same account; the notice
// at 80% and at 100% of the quota, walked call by call on a small quota.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { getPage, signIn } from './support/dashboard-client.ts';

const PASSWORD = 'correct horse battery staple';
const CONVERT = '/api/v1/unit-conversions/mass-converter';
let seq = 0;

interface RestUsage {
  period: string;
  plan: string;
  quota: number;
  used: number;
  remaining: number;
  resetAt: string;
  requestsPerMinute: number;
  byTool: { operationId: string; calls: number; failures: number; credits: number }[];
  byKey: { keyId: string; name: string | null; calls: number; failures: number; credits: number }[];
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
/** A cell's text as a person reads it: tags dropped, entities decoded. */
const text = (fragment: string): string =>
  fragment
    .replace(/<[^>]+>/g, '')
    .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e)
    .replace(/\s+/g, ' ')
    .trim();

/** The figures list's values by term: "Used" → "12". */
function figures(page: string): Record<string, string> {
  const list = /<dl class="figures">([\s\S]*?)<\/dl>/.exec(page)?.[1] ?? '';
  return Object.fromEntries([...list.matchAll(/<dt>([^<]+)<\/dt><dd>([^<]+)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
}

/** The rows of the table following heading `h2`, as [row header, ...cells] texts. */
function rows(page: string, h2: string): string[][] {
  const start = page.indexOf(`<h2>${h2}</h2>`);
  assert.ok(start >= 0, `a “${h2}” section`);
  const table = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.slice(start))?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => text(c[1]!)));
}

describe('dashboard usage', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
  });
  after(() => t.close());

  async function signedIn(quota?: number): Promise<{ cookie: string; apiKey: string; keyId: string; accountId: string }> {
    const email = `usage${++seq}-${Date.now()}@example.com`;
    const account = await t.account({ email, password: PASSWORD, ...(quota === undefined ? {} : { quota }) });
    const { cookie } = await signIn(base, email, PASSWORD);
    return { cookie, ...account };
  }

  async function restUsage(apiKey: string): Promise<RestUsage> {
    const res = await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': apiKey } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { result: RestUsage }).result;
  }

  async function usagePage(cookie: string): Promise<string> {
    const res = await getPage(base, '/dashboard/usage', cookie);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return res.text();
  }

  it('needs a session, and is linked from the nav and the overview', async () => {
    const anonymous = await getPage(base, '/dashboard/usage');
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), '/dashboard/sign-in');
    const s = await signedIn();
    const overview = await (await getPage(base, '/dashboard', s.cookie)).text();
    assert.match(overview, /<a href="\/dashboard\/usage">Usage<\/a>/);
    assert.match(overview, /<a href="\/dashboard\/usage">Usage per tool and per key<\/a>/);
    const page = await usagePage(s.cookie);
    assert.match(page, /<a href="\/dashboard\/usage" aria-current="page">Usage<\/a>/);
    assert.match(page, /No calls this month yet\./);
    assert.ok(!page.includes('class="notice'), 'no quota notice on an unused account');
  });

  it('shows the same figures as GET /api/v1/usage: credits, reset, plan limits, per tool (most credits first) and per key', async () => {
    const s = await signedIn();
    const second = await t.services.accounts.createKey({ accountId: s.accountId, name: 'second <key>' });
    for (const [apiKey, n] of [[s.apiKey, 3], [second.secret, 1]] as const) {
      for (let i = 0; i < n; i++) assert.equal((await t.call(CONVERT, { value: i + 1, from: 'kg', to: 'lb' }, apiKey)).statusCode, 200);
    }
    // A refused call (bad unit) counts as a failure of the tool.
    assert.equal((await t.call(CONVERT, { value: 1, from: 'kg', to: 'parsec' }, s.apiKey)).statusCode, 400);
    assert.equal((await t.call('/api/v1/unit-conversions/length-converter', { value: 1, from: 'm', to: 'ft' }, second.secret)).statusCode, 200);

    const page = await usagePage(s.cookie);
    const rest = await restUsage(s.apiKey);
    assert.ok(rest.used > 0 && rest.byTool.length === 2, JSON.stringify(rest));
    const n = (x: number) => new Intl.NumberFormat('en').format(x);
    assert.deepEqual(figures(page), { Used: n(rest.used), Left: n(rest.remaining), 'Monthly quota': n(rest.quota) });
    assert.ok(page.includes(`<h2>Credits in ${rest.period}</h2>`));
    assert.ok(page.includes(`<time datetime="${rest.resetAt}">`), 'the reset date');
    assert.match(page, /<dt>Plan<\/dt><dd>Free<\/dd>/);
    assert.ok(page.includes(`<dt>Requests a minute</dt><dd>${n(rest.requestsPerMinute)}</dd>`));
    assert.match(page, /<dt>Tool families not included<\/dt><dd>ai-models<\/dd>/);
    assert.match(page, new RegExp(`<meter id="quota-meter" min="0" max="${rest.quota}"[^>]* value="${rest.used}">`));

    const byCredits = [...rest.byTool].sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.operationId.localeCompare(b.operationId));
    assert.deepEqual(rows(page, 'Per tool'), byCredits.map((r) => [r.operationId, n(r.calls), n(r.failures), n(r.credits)]));
    const mass = rest.byTool.find((r) => r.operationId === 'unit_conversions_mass_converter');
    assert.deepEqual([mass?.calls, mass?.failures], [5, 1], 'four conversions and the refused one');
    const keys = rows(page, 'Per key');
    assert.equal(keys.length, 2);
    for (const r of rest.byKey) assert.ok(keys.some((row) => JSON.stringify(row) === JSON.stringify([r.name ?? '', n(r.calls), n(r.failures), n(r.credits)])), `${JSON.stringify(r)} in ${JSON.stringify(keys)}`);
    assert.ok(page.includes('second &lt;key&gt;'), 'key names are escaped');
    assert.match(page, /no per-day counts, so there is no daily chart/);
  });

  it('warns from 80% of the quota and alerts at 100%, call by call, as the REST figures say', async () => {
    const s = await signedIn(5);
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const rest = await restUsage(s.apiKey);
      const page = await usagePage(s.cookie);
      const share = rest.used / rest.quota;
      const warning = /<p class="notice warning" role="status"><strong>(\d+)% of the monthly quota is used\.<\/strong>/.exec(page);
      const alert = page.includes('<p class="notice error" role="alert"><strong>The monthly quota is used up.</strong>');
      if (share >= 1) {
        assert.ok(alert && !warning, `at ${rest.used}/${rest.quota}: the alert alone`);
        seen.add('alert');
        break;
      } else if (share >= 0.8) {
        assert.ok(warning && !alert, `at ${rest.used}/${rest.quota}: the warning alone`);
        assert.equal(warning[1], String(Math.floor(share * 100)));
        const left = rest.quota - rest.used;
        assert.ok(page.includes(`${left} ${left === 1 ? 'credit is' : 'credits are'} left`));
        seen.add('warning');
      } else {
        assert.ok(!warning && !alert, `at ${rest.used}/${rest.quota}: no notice`);
        seen.add('none');
      }
      await t.call(CONVERT, { value: 1, from: 'kg', to: 'lb' }, s.apiKey);
    }
    assert.deepEqual([...seen].sort(), ['alert', 'none', 'warning'], 'the walk passed through all three states');
  });
});
