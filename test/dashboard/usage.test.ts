// The usage page over real HTTP with a session cookie: the same figures as GET /api/v1/usage
// (credits used and left, the quota, the reset date, per tool and per key, the plan's limits),
// the per-day charts (SVG) and table for calls counted on two days by the recorder's clock,
// read from the page's cells and compared with the REST answer for the same account; the notice
// at 80% and at 100% of the quota, walked call by call on a small quota.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouteAnswer } from '../../packages/sdk/src/index.ts';
import { dashboardApp, getPage, signedInAccount } from './support/dashboard-client.ts';

const CONVERT = '/api/v1/unit-conversions/mass-converter';

/** GET /api/v1/usage's result, by the service's own schema (the SDK's generated type): a renamed field fails tsc. */
type RestUsage = RouteAnswer<'usage_get'>['result'];

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
  const app = dashboardApp();

  const signedIn = (quota?: number) => signedInAccount(app, 'usage', quota === undefined ? {} : { quota });

  async function restUsage(apiKey: string): Promise<RestUsage> {
    const res = await fetch(`${app.base}/api/v1/usage`, { headers: { 'x-api-key': apiKey } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { result: RestUsage }).result;
  }

  async function usagePage(cookie: string): Promise<string> {
    const res = await getPage(app.base, '/dashboard/usage', cookie);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return res.text();
  }

  it('needs a session, and is linked from the nav and the overview', async () => {
    const anonymous = await getPage(app.base, '/dashboard/usage');
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), '/dashboard/sign-in');
    const s = await signedIn();
    const overview = await (await getPage(app.base, '/dashboard', s.cookie)).text();
    assert.match(overview, /<a href="\/dashboard\/usage">Usage<\/a>/);
    assert.match(overview, /<a href="\/dashboard\/usage">Usage per tool and per key<\/a>/);
    const page = await usagePage(s.cookie);
    assert.match(page, /<a href="\/dashboard\/usage" aria-current="page">Usage<\/a>/);
    assert.match(page, /No calls this month yet\./);
    assert.ok(!page.includes('class="notice'), 'no quota notice on an unused account');
  });

  it('shows the same figures as GET /api/v1/usage: credits, reset, plan limits, per tool (most credits first) and per key', async () => {
    const s = await signedIn();
    const second = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'second <key>' });
    for (const [apiKey, n] of [[s.apiKey, 3], [second.secret, 1]] as const) {
      for (let i = 0; i < n; i++) assert.equal((await app.t.call(CONVERT, { value: i + 1, from: 'kg', to: 'lb' }, apiKey)).statusCode, 200);
    }
    // A refused call (bad unit) counts as a failure of the tool.
    assert.equal((await app.t.call(CONVERT, { value: 1, from: 'kg', to: 'parsec' }, s.apiKey)).statusCode, 400);
    assert.equal((await app.t.call('/api/v1/unit-conversions/length-converter', { value: 1, from: 'm', to: 'ft' }, second.secret)).statusCode, 200);

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
  });

  it('charts calls and credits per day of this month (inline SVG with accessible names) over a table of the same figures, which add up to the REST usage', async () => {
    const s = await signedIn();
    const second = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'second' });
    const { period } = await restUsage(s.apiKey);
    /** `n` calls over the API counted at `at` (the recorder's clock), or now without it. */
    async function calls(at: Date | undefined, apiKey: string, n: number, refused = false): Promise<void> {
      if (at) app.t.services.usage.clock = () => at;
      try {
        for (let i = 0; i < n; i++) {
          const res = await app.t.call(CONVERT, { value: i + 1, from: 'kg', to: refused ? 'parsec' : 'lb' }, apiKey);
          assert.equal(res.statusCode, refused ? 400 : 200);
        }
      } finally {
        app.t.services.usage.clock = () => new Date();
      }
    }
    const first = `${period}-01`;
    const next = `${period}-02`;
    const today = new Date().toISOString().slice(0, 10);
    await calls(new Date(`${first}T09:00:00.000Z`), s.apiKey, 2);
    await calls(new Date(`${next}T23:30:00.000Z`), second.secret, 1);
    await calls(new Date(`${next}T23:30:00.000Z`), s.apiKey, 1, true);
    await calls(undefined, s.apiKey, 1);

    const page = await usagePage(s.cookie);
    const rest = await restUsage(s.apiKey);
    const successes = 4;
    const each = rest.used / successes;
    assert.ok(Number.isInteger(each) && each > 0, `each conversion costs the same whole credits: ${rest.used}`);
    // Today may be the 1st or the 2nd: its call then joins that day.
    const expected = new Map<string, [number, number, number]>([
      [first, [2, 0, 2 * each]],
      [next, [2, 1, each]],
    ]);
    const todays = expected.get(today) ?? [0, 0, 0];
    expected.set(today, [todays[0] + 1, todays[1], todays[2] + each]);
    const n = (x: number) => new Intl.NumberFormat('en').format(x);
    const table = /<details class="day-table">([\s\S]*?)<\/details>/.exec(page)?.[1] ?? '';
    const tableRows = [...(/<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
      [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => text(c[1]!)),
    );
    assert.deepEqual(
      tableRows,
      [...expected.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, [c, f, cr]]) => [day, n(c), n(f), n(cr)]),
      'the days with calls, in order',
    );
    // GET /api/v1/usage's days are the table's rows, figure for figure.
    assert.deepEqual(
      rest.days.map((d) => [d.day, n(d.calls), n(d.failures), n(d.credits)]),
      tableRows,
      'the API lists the days the table shows',
    );
    // The same totals as GET /api/v1/usage.
    const sum = (i: number) => tableRows.reduce((total, row) => total + Number(row[i]!.replace(/,/g, '')), 0);
    const restTotals = rest.byTool.reduce((t, r) => ({ calls: t.calls + r.calls, failures: t.failures + r.failures }), { calls: 0, failures: 0 });
    assert.deepEqual([sum(1), sum(2), sum(3)], [restTotals.calls, restTotals.failures, rest.used]);

    // Two charts, each an image named by its title (which states its totals), one bar per day with calls.
    for (const [id, unit, total] of [['calls-chart', 'calls', 5], ['credits-chart', 'credits', rest.used]] as const) {
      const svg = new RegExp(`<svg id="${id}" class="chart" role="img" aria-labelledby="${id}-title" viewBox="[^"]+"[^>]*>([\\s\\S]*?)</svg>`).exec(page)?.[1];
      assert.ok(svg, `the ${id} svg`);
      const title = new RegExp(`<title id="${id}-title">([^<]+)</title>`).exec(svg)?.[1] ?? '';
      assert.ok(title.startsWith(`${unit === 'calls' ? 'Calls' : 'Credits'} per day in ${period}: ${n(total)} ${unit} in all`), title);
      const bars = [...svg.matchAll(/<rect class="bar ([a-z]+)" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"><title>([^<]+)<\/title><\/rect>/g)];
      assert.deepEqual(
        bars.map((b) => [b[1], b[3]]),
        [...expected.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([day, [c, , cr]]) => [unit, `${day}: ${n(unit === 'calls' ? c : cr)} ${unit === 'calls' ? (c === 1 ? 'call' : 'calls') : cr === 1 ? 'credit' : 'credits'}`]),
      );
      assert.ok(bars.every((b) => Number(b[2]) > 0 && Number(b[2]) <= 96), 'bars within the plot');
      assert.ok(!/style=/.test(svg), 'no style attribute (the CSP forbids inline style)');
    }
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
      await app.t.call(CONVERT, { value: 1, from: 'kg', to: 'lb' }, s.apiKey);
    }
    assert.deepEqual([...seen].sort(), ['alert', 'none', 'warning'], 'the walk passed through all three states');
  });
});
