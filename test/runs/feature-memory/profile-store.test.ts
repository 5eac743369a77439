// Playbook profiles on a real database file: created by the first https:// run of a playbook on
// a URL, the snapshot replaced by later runs, bounded, and private to the account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_SNAPSHOT_CHARS, ProfileStore } from '../../../src/runs/feature-memory/profile-store.ts';
import { openTestDb, type TestDb } from './support.ts';

describe('profile store', () => {
  let t: TestDb;
  let profiles: ProfileStore;
  before(async () => {
    t = await openTestDb();
    profiles = new ProfileStore(t.db);
  });
  after(async () => {
    await t?.close();
  });

  it('creates a profile on the first https run, keeps its id and replaces the snapshot after', async () => {
    const accountId = await t.account();
    const url = 'https://shop.example.com/cart#top';
    assert.deepEqual(await profiles.recordRun({ accountId, playbookId: 'ship-check', url: 'http://shop.example.com/', snapshot: {} }), { kind: 'not_https' });
    assert.deepEqual(await profiles.recordRun({ accountId, playbookId: 'ship-check', url: 'not a url', snapshot: {} }), { kind: 'not_https' });

    const first = await profiles.recordRun({ accountId, playbookId: 'ship-check', url, snapshot: { round: 1, text: 'é' }, now: new Date('2025-03-01T00:00:00.000Z') });
    assert.equal(first.kind, 'recorded');
    if (first.kind !== 'recorded') return;
    assert.match(first.profileId, /^prof_[0-9a-f]{32}$/);
    assert.equal(first.created, true);
    const second = await profiles.recordRun({ accountId, playbookId: 'ship-check', url: 'https://shop.example.com/cart', snapshot: { round: 2 }, now: new Date('2025-03-02T00:00:00.000Z') });
    assert.deepEqual(second, { kind: 'recorded', profileId: first.profileId, created: false });
    assert.deepEqual(await profiles.lastSnapshot(accountId, first.profileId), {
      profileId: first.profileId,
      playbookId: 'ship-check',
      url: 'https://shop.example.com/cart',
      createdAt: '2025-03-01T00:00:00.000Z',
      updatedAt: '2025-03-02T00:00:00.000Z',
      snapshot: { round: 2 },
    });
    const other = await profiles.recordRun({ accountId, playbookId: 'seo-audit', url, snapshot: { text: 'é' } });
    assert.ok(other.kind === 'recorded' && other.created && other.profileId !== first.profileId);
    assert.deepEqual((await profiles.lastSnapshot(accountId, other.profileId))?.snapshot, { text: 'é' });
    assert.equal((await profiles.find(accountId, 'ship-check', 'https://shop.example.com/cart#x'))?.profileId, first.profileId);

    // too large: refused, the previous snapshot stays
    const big = await profiles.recordRun({ accountId, playbookId: 'ship-check', url, snapshot: { pad: 'x'.repeat(MAX_SNAPSHOT_CHARS) } });
    assert.deepEqual(big, { kind: 'too_large', profileId: first.profileId, chars: MAX_SNAPSHOT_CHARS + 10 });
    assert.deepEqual((await profiles.lastSnapshot(accountId, first.profileId))?.snapshot, { round: 2 });
  });

  it('another account\'s profile is not found, and its own run of the same URL is its own profile', async () => {
    const owner = await t.account();
    const stranger = await t.account();
    const mine = await profiles.recordRun({ accountId: owner, playbookId: 'ship-check', url: 'https://a.example/', snapshot: { owner: true } });
    assert.equal(mine.kind, 'recorded');
    if (mine.kind !== 'recorded') return;
    assert.equal(await profiles.lastSnapshot(stranger, mine.profileId), undefined);
    assert.equal(await profiles.find(stranger, 'ship-check', 'https://a.example/'), undefined);
    const theirs = await profiles.recordRun({ accountId: stranger, playbookId: 'ship-check', url: 'https://a.example/', snapshot: { owner: false } });
    assert.ok(theirs.kind === 'recorded' && theirs.created && theirs.profileId !== mine.profileId);
    assert.deepEqual((await profiles.lastSnapshot(owner, mine.profileId))?.snapshot, { owner: true });
    assert.equal(await profiles.lastSnapshot(owner, 'prof_bad'), undefined);
  });
});
