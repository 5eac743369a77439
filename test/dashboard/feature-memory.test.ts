// The feature memory page over real HTTP. Features are recorded through the store functions the
// MCP tools use (FeatureStore.capture, as capture_feature; FeatureStore.recordPass, as verify_task
// on a gate pass): the page lists each feature's latest gate with its counts, the matrix per day,
// a page per feature with its history; another account's features are never shown; the nav's
// "improved" badge appears after an improving pass and clears once the page is visited.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { FeatureSeenStore } from '../../src/dashboard/feature-seen.ts';
import { dashboardApp, getPage, signedInAccount } from './support/dashboard-client.ts';

const SCOPE = 'https://shop.example.com';

const text = (fragment: string): string =>
  fragment
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The rows of the table after heading `h2`: [row header, ...cells] as text. */
function rows(page: string, h2: string): string[][] {
  const start = page.indexOf(`<h2>${h2}</h2>`);
  assert.ok(start >= 0, `a “${h2}” section`);
  const table = page.slice(start);
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(table)?.[1] ?? '';
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '';
  const cells = (tr: string) => [...tr.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => text(c[1]!));
  return [cells(head), ...[...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => cells(m[1]!))];
}

/** The nav's feature memory link, as its accessible text. */
function navLink(page: string): string {
  const m = /<a href="\/dashboard\/features"[^>]*>([\s\S]*?)<\/a>/.exec(page);
  assert.ok(m, 'the nav links feature memory');
  return text(m[1]!);
}

const DAY = 86_400_000;

describe('dashboard feature memory', () => {
  const app = dashboardApp();
  let seen: FeatureSeenStore;
  before(async () => {
    seen = new FeatureSeenStore(app.t.services.db);
  });

  const signedIn = () => signedInAccount(app, 'features');

  async function page(cookie: string, path = '/dashboard/features'): Promise<string> {
    const res = await getPage(app.base, path, cookie);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return res.text();
  }

  /** A failing check of the shop's SEO two days ago, captured by hand with its report (capture_feature). */
  async function failingCapture(accountId: string, now: Date) {
    const captured = await app.t.services.featureMemory.features.capture({
      accountId,
      title: 'Shop SEO',
      requirements: ['Every page has a title and a description'],
      projectScope: SCOPE,
      baseline: {
        playbookId: 'seo-audit',
        loop: { gate: 'fail' },
        jobReport: { scores: { seo: 55, security: 70 }, statuses: { seo: 'poor', security: 'needs_improvement' }, findings: [{ findingId: 'seo.title-missing' }, { findingId: 'seo.meta-description' }] },
      },
      now,
    });
    assert.equal(captured.kind, 'captured');
    return captured.kind === 'captured' ? captured.feature : assert.fail('captured');
  }

  /** verify_task's record on a gate pass of the same playbook in the same scope. */
  async function pass(accountId: string, report: { scores: Record<string, number>; statuses: Record<string, string>; findings: { findingId: string }[] }, now: Date, playbookId = 'seo-audit') {
    const recorded = await app.t.services.featureMemory.features.recordPass({ accountId, projectScope: SCOPE, playbookId, goal: playbookId, acceptance: ['No high-severity finding remains'], report, now });
    assert.ok(recorded.recorded);
    return recorded.featureId;
  }

  /** A time after the account's last visit of the page (the badge counts records newer than it). */
  async function afterVisit(accountId: string): Promise<Date> {
    const at = await seen.seenAt(accountId);
    assert.ok(at, 'the visit was stored');
    return new Date(Math.max(Date.now(), Date.parse(at) + 1));
  }

  it('needs a session; an empty memory says how features get there', async () => {
    const anonymous = await getPage(app.base, '/dashboard/features');
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), '/dashboard/sign-in');
    const s = await signedIn();
    const body = await page(s.cookie);
    assert.match(body, /<a href="\/dashboard\/features" aria-current="page">Feature memory<\/a>/);
    assert.match(body, /No feature is stored yet/);
  });

  it('lists the features with their latest gate and counts, the matrix per day and each feature’s history; the badge appears after an improving pass and clears on the visit', async () => {
    const s = await signedIn();
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    const failing = await failingCapture(s.accountId, twoDaysAgo);
    await page(s.cookie); // the person looks at it: nothing improved yet
    assert.equal(navLink(await page(s.cookie, '/dashboard')), 'Feature memory');

    const now = await afterVisit(s.accountId);
    const improvedId = await pass(s.accountId, { scores: { seo: 92, security: 90 }, statuses: { seo: 'good', security: 'good' }, findings: [] }, now);
    // A second feature, first recorded now: new, not improved.
    const headersId = await pass(s.accountId, { scores: { security: 80 }, statuses: { security: 'good', tls: 'good', mixed_content: 'needs_improvement' }, findings: [{ findingId: 'headers.csp' }] }, now, 'security-headers');

    // The badge on every dashboard page, with its accessible text.
    for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/usage', '/dashboard/webhooks', '/dashboard/mcp']) {
      const other = await page(s.cookie, path);
      assert.equal(navLink(other), 'Feature memory , 1 improved', path);
      assert.match(other, /<span class="badge"><span class="visually-hidden">, <\/span>1 improved<\/span>/);
    }

    const body = await page(s.cookie);
    assert.match(body, /<strong>1 feature improved<\/strong> since your last visit/);
    assert.equal(navLink(body), 'Feature memory', 'the page itself carries no badge');
    const features = rows(body, 'Features');
    assert.deepEqual(features[0], ['Feature', 'Target', 'Latest gate', 'Checks', 'Recorded', 'Since your last visit']);
    // A pass's record is titled by its job (recordPass) and supersedes the captured one.
    const seo = features.find((r) => r[0]!.startsWith('seo-audit'));
    assert.ok(seo, 'the improved feature');
    assert.deepEqual(seo.slice(1, 4), [`${SCOPE} playbook seo-audit`, 'pass', '2 of 2 checks good, 0 findings left']);
    assert.match(seo[0]!, /recorded on a gate pass, 2 records/);
    assert.equal(seo[5], 'improved');
    const headers = features.find((r) => r[0]!.startsWith('security-headers'));
    assert.ok(headers);
    assert.deepEqual(headers.slice(1, 4), [`${SCOPE} playbook security-headers`, 'pass', '2 of 3 checks good, 1 finding left']);
    assert.equal(headers[5], 'new record');
    assert.match(body, new RegExp(`<a href="/dashboard/features/${improvedId}">seo-audit</a>`));

    // The matrix: a column per day with a record (newest first), the gate as a word in each cell.
    const matrix = rows(body, 'Matrix over time');
    const today = now.toISOString().slice(0, 10);
    const earlier = twoDaysAgo.toISOString().slice(0, 10);
    assert.deepEqual(matrix[0], ['Feature', today, earlier]);
    assert.deepEqual(matrix.find((r) => r[0] === 'seo-audit'), ['seo-audit', 'pass', 'fail']);
    assert.deepEqual(matrix.find((r) => r[0] === 'security-headers'), ['security-headers', 'pass', 'no record']);

    // Visiting cleared the badge everywhere.
    assert.equal(navLink(await page(s.cookie, '/dashboard')), 'Feature memory');
    assert.doesNotMatch(await page(s.cookie), /improved<\/strong> since your last visit/);

    // The feature's own page: its history, each record against the one before, by compare_feature_memory's rule.
    const detail = await page(s.cookie, `/dashboard/features/${improvedId}`);
    const history = rows(detail, 'History');
    assert.deepEqual(history[0], ['Recorded', 'Gate', 'Checks', 'Compared with the record before']);
    assert.equal(history.length, 3);
    assert.equal(history[1]![1], 'pass');
    assert.match(history[1]![3]!, /^improved better: /);
    assert.match(history[1]![3]!, /better: gate fail -> pass/);
    assert.match(history[1]![3]!, /better: finding seo\.title-missing resolved/);
    assert.equal(history[2]![1], 'fail');
    assert.equal(history[2]![3], 'first record');
    // The superseded record says which one replaced it.
    const old = await page(s.cookie, `/dashboard/features/${failing.featureId}`);
    assert.match(old, new RegExp(`<a href="/dashboard/features/${improvedId}">read the current record</a>`));
    assert.ok(headersId);
  });

  it('does not count a pass that got worse than the record last seen', async () => {
    const s = await signedIn();
    await pass(s.accountId, { scores: { seo: 90 }, statuses: { seo: 'good' }, findings: [] }, new Date(Date.now() - DAY));
    await page(s.cookie);
    await pass(s.accountId, { scores: { seo: 80 }, statuses: { seo: 'good' }, findings: [] }, await afterVisit(s.accountId));
    assert.equal(navLink(await page(s.cookie, '/dashboard')), 'Feature memory');
    assert.deepEqual(await seen.improved(s.accountId), []);
  });

  it('never shows another account’s features', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const aFeature = await failingCapture(a.accountId, new Date());
    const bPage = await page(b.cookie);
    assert.ok(!bPage.includes('Shop SEO'));
    assert.ok(!bPage.includes(aFeature.featureId));
    const res = await getPage(app.base, `/dashboard/features/${aFeature.featureId}`, b.cookie);
    assert.equal(res.status, 404);
    assert.match(await res.text(), /This account has no feature with that id\./);
    // A's improvements are not B's badge.
    await pass(a.accountId, { scores: { seo: 99 }, statuses: { seo: 'good' }, findings: [] }, new Date(Date.now() + 1));
    assert.equal(navLink(await page(b.cookie, '/dashboard')), 'Feature memory');
  });
});
