// The feature memory stores on a real database file: recordPass (capture off, incomplete
// reports, scopes, automatic superseding), capture by hand (baselines of every shape,
// inheritance, another account's feature), the comparison rule, patterns (redacted copies,
// only the publisher unpublishes, gone with the feature) and account isolation throughout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareFeatures } from '../../../src/runs/feature-memory/feature-comparison.ts';
import { createFeatureMemory, type FeatureMemory } from '../../../src/runs/feature-memory/feature-memory.ts';
import { MAX_FEATURES_PER_ACCOUNT, type Feature } from '../../../src/runs/feature-memory/feature-store.ts';
import { projectScopeFor } from '../../../src/runs/feature-memory/project-scope.ts';
import { openTestDb, type TestDb } from './support.ts';

const REPORT = {
  scores: { seo: 91, tls: 100, overall: 95 },
  statuses: { seo: 'good', tls: 'good', overall: 'good' },
  findings: [{ findingId: 'meta-description:abc' }, { findingId: 'og-image:def' }],
  incomplete: false,
};
const ACCEPTANCE = ['No high-severity finding remains', 'The run is complete'];

describe('feature memory stores', () => {
  let t: TestDb;
  let m: FeatureMemory;
  before(async () => {
    t = await openTestDb();
    m = createFeatureMemory(t.db);
  });
  after(async () => {
    await t?.close();
  });

  it('derives the project scope: the agent\'s own, else the URL origin, else local', () => {
    assert.equal(projectScopeFor('  my-shop  ', 'https://a.example/x'), 'my-shop');
    assert.equal(projectScopeFor(undefined, 'https://Shop.Example.com:443/cart?x=1#top'), 'https://shop.example.com');
    assert.equal(projectScopeFor('', 'https://shop.example.com:8443/'), 'https://shop.example.com:8443');
    assert.equal(projectScopeFor(null, 'not a url'), 'local');
    assert.equal(projectScopeFor(undefined, undefined), 'local');
  });

  it('records a pass with its snapshot, or nothing when capture is off or the report is incomplete', async () => {
    const accountId = await t.account();
    const base = { accountId, url: 'https://shop.example.com/p', playbookId: 'seo-audit', goal: 'audit the SEO of my shop', acceptance: ACCEPTANCE, report: REPORT };
    assert.deepEqual(await m.features.recordPass({ ...base, capture: false }), { recorded: false, reason: 'capture_disabled' });
    assert.deepEqual(await m.features.recordPass({ ...base, report: { ...REPORT, incomplete: true } }), { recorded: false, reason: 'incomplete_report' });
    assert.equal(await m.features.count(accountId), 0);

    const now = new Date('2025-01-02T03:04:05.000Z');
    const recorded = await m.features.recordPass({ ...base, now });
    assert.equal(recorded.recorded, true);
    if (!recorded.recorded) return;
    assert.match(recorded.featureId, /^feat_[0-9a-f]{32}$/);
    assert.equal(recorded.projectScope, 'https://shop.example.com');
    assert.equal(recorded.supersedesFeatureId, null);
    const feature = await m.features.get(accountId, recorded.featureId);
    assert.deepEqual(feature, {
      featureId: recorded.featureId,
      projectScope: 'https://shop.example.com',
      title: 'audit the SEO of my shop',
      requirements: ['audit the SEO of my shop'],
      acceptance: ACCEPTANCE,
      source: 'auto',
      playbookId: 'seo-audit',
      goal: 'audit the SEO of my shop',
      gate: 'pass',
      scores: { seo: 91, tls: 100, overall: 95 },
      statuses: { seo: 'good', tls: 'good', overall: 'good' },
      remainingFindingIds: ['meta-description:abc', 'og-image:def'],
      supersedesFeatureId: null,
      createdAt: '2025-01-02T03:04:05.000Z',
    } satisfies Feature);
  });

  it('a later pass of the same playbook in the same scope supersedes the standing record; other playbooks and scopes do not', async () => {
    const accountId = await t.account();
    const run = (playbookId: string, projectScope: string, at: string) =>
      m.features.recordPass({ accountId, projectScope, playbookId, goal: null, acceptance: [], report: REPORT, now: new Date(at) });
    const first = await run('seo-audit', 'shop', '2025-01-01T00:00:00.000Z');
    const other = await run('ship-check', 'shop', '2025-01-01T00:00:01.000Z');
    const elsewhere = await run('seo-audit', 'blog', '2025-01-01T00:00:02.000Z');
    const second = await run('seo-audit', 'shop', '2025-01-01T00:00:03.000Z');
    assert.ok(first.recorded && other.recorded && elsewhere.recorded && second.recorded);
    assert.equal(second.supersedesFeatureId, first.featureId);
    assert.equal(other.supersedesFeatureId, null);
    assert.equal(elsewhere.supersedesFeatureId, null);

    const { features, total } = await m.features.list(accountId, { projectScope: 'shop', limit: 10 });
    assert.equal(total, 3);
    assert.deepEqual(
      features.map((f) => [f.featureId, f.superseded, f.supersededBy, f.title]),
      [
        [second.featureId, false, null, 'seo-audit'],
        [other.featureId, false, null, 'ship-check'],
        [first.featureId, true, second.featureId, 'seo-audit'],
      ],
    );
    assert.deepEqual(await m.features.scopes(accountId, 10), [
      { projectScope: 'shop', features: 3, latestAt: '2025-01-01T00:00:03.000Z' },
      { projectScope: 'blog', features: 1, latestAt: '2025-01-01T00:00:02.000Z' },
    ]);
    const page2 = await m.features.list(accountId, { projectScope: 'shop', offset: 2, limit: 2 });
    assert.deepEqual(page2.features.map((f) => f.featureId), [first.featureId]);

    // another account sees none of it
    const stranger = await t.account();
    assert.deepEqual(await m.features.list(stranger, { limit: 10 }), { features: [], total: 0 });
    assert.equal(await m.features.get(stranger, second.featureId), undefined);
    assert.equal(await m.features.delete(stranger, second.featureId), false);
    assert.equal(await m.features.count(accountId), 4);
  });

  it('captures by hand from baselines of every shape, inheriting from the feature it supersedes', async () => {
    const accountId = await t.account();
    const jobReport = { url: 'https://docs.example.org/start', scores: { seo: 70 }, statuses: { seo: 'needs_improvement' }, findings: [{ findingId: 'h1:1' }] };
    const shapes = {
      bare: jobReport,
      solve: { status: 'fail', jobReport, loop: { gate: 'fail' }, playbookId: 'seo-audit', goal: 'fix seo' },
      verify: { status: 'verified', delta: { gate: 'pass' }, after: { jobReport: { ...jobReport, scores: { seo: 95 }, findings: [] }, loop: { gate: 'pass' } } },
      getRun: { runId: 'run_x', status: 'completed', result: { jobReport, loop: { gate: 'fail' }, goal: 'fix seo' } },
    };
    const read = async (baseline: unknown) => {
      const captured = await m.features.capture({ accountId, title: 'Docs', requirements: ['r'], baseline });
      assert.equal(captured.kind, 'captured');
      return captured.kind === 'captured' ? captured.feature : undefined;
    };
    const bare = await read(shapes.bare);
    assert.deepEqual([bare?.projectScope, bare?.gate, bare?.scores, bare?.remainingFindingIds, bare?.playbookId], ['https://docs.example.org', 'unknown', { seo: 70 }, ['h1:1'], null]);
    const solve = await read(shapes.solve);
    assert.deepEqual([solve?.gate, solve?.playbookId, solve?.goal, solve?.statuses], ['fail', 'seo-audit', 'fix seo', { seo: 'needs_improvement' }]);
    const verify = await read(shapes.verify);
    assert.deepEqual([verify?.gate, verify?.scores, verify?.remainingFindingIds], ['pass', { seo: 95 }, []]);
    const getRun = await read(shapes.getRun);
    assert.deepEqual([getRun?.gate, getRun?.goal, getRun?.scores], ['fail', 'fix seo', { seo: 70 }]);
    assert.deepEqual(await m.features.capture({ accountId, title: 'x', requirements: ['r'], baseline: { nothing: 1 } }), { kind: 'bad_baseline' });

    // a refine without a baseline keeps the superseded record's scope, acceptance, snapshot and gate
    const refined = await m.features.capture({ accountId, title: '  Docs,  refined ', requirements: [' a ', 'a', '', 'b'], supersedesFeatureId: verify?.featureId });
    assert.equal(refined.kind, 'captured');
    if (refined.kind !== 'captured' || !verify) return;
    assert.deepEqual(
      { ...refined.feature, featureId: 'x', createdAt: 'x' },
      { ...verify, featureId: 'x', createdAt: 'x', title: 'Docs, refined', requirements: ['a', 'b'], source: 'manual', supersedesFeatureId: verify.featureId },
    );

    // superseding another account's feature answers not found, exactly as a missing one
    const stranger = await t.account();
    assert.deepEqual(await m.features.capture({ accountId: stranger, title: 't', requirements: ['r'], supersedesFeatureId: verify.featureId }), {
      kind: 'superseded_not_found',
      featureId: verify.featureId,
    });
    assert.deepEqual(await m.features.capture({ accountId: stranger, title: 't', requirements: ['r'], supersedesFeatureId: 'feat_00000000000000000000000000000000' }), {
      kind: 'superseded_not_found',
      featureId: 'feat_00000000000000000000000000000000',
    });
  });

  it('holds the cap when captures race at the last free place: exactly one is kept, the others hear memory_full', async () => {
    const accountId = await t.account();
    const rows = Array.from({ length: MAX_FEATURES_PER_ACCOUNT - 1 }, (_, i) => ({
      id: `feat_${i.toString(16).padStart(32, '0')}`,
      account_id: accountId,
      project_scope: 'local',
      title: `Filler ${i}`,
      requirements: '[]',
      acceptance: '[]',
      source: 'manual',
      playbook_id: null,
      goal: null,
      gate: 'unknown',
      scores: '{}',
      statuses: '{}',
      remaining_finding_ids: '[]',
      supersedes_feature_id: null,
      created_at: new Date().toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 200) await t.db.insertInto('features').values(rows.slice(i, i + 200)).execute();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => m.features.capture({ accountId, title: `Racer ${i}`, requirements: ['races for the last place'] })));
    assert.equal(results.filter((r) => r.kind === 'captured').length, 1, JSON.stringify(results.map((r) => r.kind)));
    assert.equal(results.filter((r) => r.kind === 'memory_full').length, 9);
    assert.deepEqual(await m.features.recordPass({ accountId, url: 'https://shop.example.com/p', playbookId: 'seo-audit', goal: 'one more', acceptance: ACCEPTANCE, report: REPORT }), { recorded: false, reason: 'memory_full' });
    assert.equal(await m.features.count(accountId), MAX_FEATURES_PER_ACCOUNT);
  });

  it('compares two records: improved only when nothing got worse and something got better', () => {
    const feature = (over: Partial<Feature>): Feature => ({
      featureId: 'feat_a',
      projectScope: 's',
      title: 'T',
      requirements: ['r1', 'r2'],
      acceptance: ['a1'],
      source: 'auto',
      playbookId: 'seo-audit',
      goal: null,
      gate: 'fail',
      scores: { seo: 60, tls: 80 },
      statuses: { seo: 'poor', tls: 'good' },
      remainingFindingIds: ['f1', 'f2'],
      supersedesFeatureId: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      ...over,
    });
    const from = feature({});
    const better = compareFeatures(from, feature({ featureId: 'feat_b', requirements: ['r2', 'r3'], gate: 'pass', scores: { seo: 90, tls: 80, overall: 85 }, statuses: { seo: 'good', tls: 'good' }, remainingFindingIds: ['f2'] }));
    assert.deepEqual(better.requirements, { added: ['r3'], removed: ['r1'], kept: ['r2'] });
    assert.deepEqual(better.scoreDeltas, { overall: null, seo: 30, tls: 0 });
    assert.deepEqual(better.statusChanges, [{ key: 'seo', from: 'poor', to: 'good' }]);
    assert.deepEqual(better.findings, { resolved: ['f1'], new: [], remaining: ['f2'] });
    assert.deepEqual(better.improvements, ['seo score 60 -> 90', 'seo status poor -> good', 'finding f1 resolved', 'gate fail -> pass']);
    assert.deepEqual(better.regressions, []);
    assert.equal(better.improved, true);

    const mixed = compareFeatures(from, feature({ featureId: 'feat_c', scores: { seo: 90, tls: 70 }, remainingFindingIds: ['f1', 'f2', 'f3'] }));
    assert.deepEqual(mixed.regressions, ['tls score 80 -> 70', 'finding f3 new']);
    assert.equal(mixed.improved, false);

    const same = compareFeatures(from, feature({ featureId: 'feat_d', requirements: ['other'] }));
    assert.deepEqual([same.improvements, same.regressions, same.improved], [[], [], false]);
  });

  it('publishes a redacted copy every account lists without the publisher; only the publisher unpublishes; deleting the feature removes it', async () => {
    const owner = await t.account();
    const other = await t.account();
    const captured = await m.features.capture({
      accountId: owner,
      projectScope: 'https://acme-shop.io',
      title: 'Checkout on acme-shop.io',
      requirements: ['Serve https://acme-shop.io/checkout with HSTS', 'Alert ops@acme-shop.io on failure', 'Keep sitemap.xml and robots.txt current'],
      acceptance: ['curl -H "X-Api-Key: uts_live_AbCdEf0123456789xyz" returns 200 from 10.0.0.12:8080', 'The Acme-Shop checkout passes the ship gate'],
    });
    assert.equal(captured.kind, 'captured');
    if (captured.kind !== 'captured') return;
    const featureId = captured.feature.featureId;

    assert.deepEqual(await m.patterns.publish(other, featureId), { kind: 'feature_not_found' });
    const published = await m.patterns.publish(owner, featureId, new Date('2025-02-01T00:00:00.000Z'));
    assert.equal(published.kind, 'published');
    if (published.kind !== 'published') return;
    assert.equal(published.alreadyPublished, false);
    assert.equal(published.redactions, 6);
    const expected = {
      patternId: published.pattern.patternId,
      title: 'Checkout on [host]',
      requirements: ['Serve [url] with HSTS', 'Alert [email] on failure', 'Keep sitemap.xml and robots.txt current'],
      acceptance: ['curl -H "X-Api-Key: [key]" returns 200 from [ip]', 'The [project] checkout passes the ship gate'],
      publishedAt: '2025-02-01T00:00:00.000Z',
    };
    assert.deepEqual(published.pattern, { ...expected, mine: true });
    const again = await m.patterns.publish(owner, featureId);
    assert.deepEqual(again, { kind: 'published', pattern: { ...expected, mine: true }, redactions: 0, alreadyPublished: true });

    const seen = await m.patterns.list(other, { limit: 100 });
    assert.deepEqual(seen.patterns.find((p) => p.patternId === expected.patternId), { ...expected, mine: false });
    assert.deepEqual(await m.patterns.list(other, { query: 'SITEMAP checkout', limit: 10 }), { patterns: [{ ...expected, mine: false }], total: 1 });
    assert.deepEqual(await m.patterns.list(other, { query: 'acme', limit: 10 }), { patterns: [], total: 0 });

    assert.equal(await m.patterns.unpublish(other, expected.patternId), false);
    assert.equal(await m.patterns.unpublish(owner, 'pat_nope'), false);
    assert.equal(await m.features.delete(other, featureId), false);
    assert.equal((await m.patterns.list(other, { query: 'sitemap', limit: 10 })).total, 1);

    assert.equal(await m.features.delete(owner, featureId), true);
    assert.equal((await m.patterns.list(other, { query: 'sitemap', limit: 10 })).total, 0);
    assert.equal(await m.features.get(owner, featureId), undefined);
  });
});
