// The per-account limits and claims that must hold with two nodes on one PostgreSQL database:
// two Kysely instances over their own pg pools, so the statements race on parallel connections
// under READ COMMITTED. Needs the PostgreSQL binaries (setup installs them).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AccountStore } from '../../src/accounts/account-store.ts';
import { AttemptLimiter } from '../../src/accounts/attempt-limiter.ts';
import { newLeaseHolder, retireLeaseHolder } from '../../src/accounts/lease-holder.ts';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';
import { CodingJobStore, MAX_JOBS_PER_ACCOUNT } from '../../src/runs/coding-jobs/coding-job-store.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WebhookStore } from '../../src/runs/webhook-store.ts';
import { SecretBox } from '../../src/runs/webhook-signature.ts';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';

describe('atomic rules on PostgreSQL across two nodes', () => {
  let cluster: PostgresCluster;
  let nodeA: Db;
  let nodeB: Db;
  let accountsA: AccountStore;
  let accountsB: AccountStore;

  before(async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase();
    nodeA = openDatabase(url);
    nodeB = openDatabase(url);
    await migrateToLatest(nodeA);
    accountsA = new AccountStore(nodeA);
    accountsB = new AccountStore(nodeB);
  });
  after(async () => {
    await nodeA?.destroy();
    await nodeB?.destroy();
    await cluster?.stop();
  });

  async function account(): Promise<string> {
    return (await accountsA.createAccount({ email: `atomic-${Math.random()}@example.com`, verified: true })).id;
  }

  it(`20 webhook registrations racing on two nodes create exactly ${MAX_WEBHOOKS_PER_ACCOUNT}`, async () => {
    const accountId = await account();
    const box = new SecretBox('x'.repeat(40));
    const stores = [new WebhookStore(nodeA, box), new WebhookStore(nodeB, box)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => stores[i % 2]!.create(accountId, { url: `https://hooks.example.com/${i}`, events: ['mcp.job.finished'] })),
    );
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, MAX_WEBHOOKS_PER_ACCOUNT);
    for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { error?: string }).error, 'webhook_limit_reached', String(o.reason));
    assert.equal((await stores[0]!.list(accountId)).length, MAX_WEBHOOKS_PER_ACCOUNT);
  });

  it('20 claims of one Idempotency-Key racing on two nodes: one runs, the others wait for it, then all replay', async () => {
    const accountId = await account();
    const holders = [newLeaseHolder(), newLeaseHolder()];
    const options = (i: number) => ({ holder: holders[i % 2]!, ttlMs: 3600_000, staleMs: 60_000 });
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? accountsA : accountsB).claimIdempotencyKey(accountId, 'key-1', 'hash-1', options(i))));
    const claimed = claims.map((c, i) => ({ c, i })).filter(({ c }) => c.kind === 'claimed');
    assert.equal(claimed.length, 1, JSON.stringify(claims));
    assert.ok(claims.every((c) => c.kind === 'claimed' || c.kind === 'in_progress'));
    const winner = claimed[0]!.i;
    await (winner % 2 === 0 ? accountsA : accountsB).completeIdempotencyKey(accountId, 'key-1', holders[winner % 2]!, 200, '{"ok":true}');
    const replays = await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 === 0 ? accountsA : accountsB).claimIdempotencyKey(accountId, 'key-1', 'hash-1', options(i))));
    assert.deepEqual(replays, Array(4).fill({ kind: 'replay', status: 200, body: '{"ok":true}' }));
    for (const holder of holders) retireLeaseHolder(holder);
  });

  it("a dead holder's pending claim is taken over by exactly one of many retries on two nodes", async () => {
    const accountId = await account();
    const dead = newLeaseHolder();
    assert.equal((await accountsA.claimIdempotencyKey(accountId, 'key-2', 'hash-2', { holder: dead, ttlMs: 3600_000, staleMs: 60_000 })).kind, 'claimed');
    retireLeaseHolder(dead);
    const retriers = [newLeaseHolder(), newLeaseHolder()];
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? accountsA : accountsB).claimIdempotencyKey(accountId, 'key-2', 'hash-2', { holder: retriers[i % 2]!, ttlMs: 3600_000, staleMs: 60_000 })),
    );
    assert.equal(claims.filter((c) => c.kind === 'claimed').length, 1, JSON.stringify(claims));
    for (const holder of retriers) retireLeaseHolder(holder);
  });

  it(`coding jobs started at once on two nodes stop at ${MAX_JOBS_PER_ACCOUNT} per account`, async () => {
    const accountId = await account();
    const stamp = new Date().toISOString();
    // All but 5 of the allowance, written directly: the race is over the last few.
    const filler = Array.from({ length: MAX_JOBS_PER_ACCOUNT - 5 }, (_, i) => ({ id: `job_${String(i).padStart(32, '0')}`, account_id: accountId, goal: 'filler', created_at: stamp, updated_at: stamp }));
    await nodeA.insertInto('coding_jobs').values(filler).execute();
    const stores = [new CodingJobStore(nodeA), new CodingJobStore(nodeB)];
    const checks = [{ id: 'unit', command: 'npm test', description: 'unit tests pass' }];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.start(accountId, { goal: `race ${i}`, checks })));
    assert.equal(results.filter((r) => r.kind === 'started').length, 5, JSON.stringify(results.map((r) => r.kind)));
    assert.equal(results.filter((r) => r.kind === 'too_many_jobs').length, 15);
    const count = await nodeA.selectFrom('coding_jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    assert.equal(count.n, MAX_JOBS_PER_ACCOUNT);
  });

  it('sign-ups racing on two nodes pass exactly the per-address limit', async () => {
    const limits = { signupsPerHour: 5, passwordFailures: 10, passwordWindowMinutes: 15 };
    const limiters = [new AttemptLimiter(nodeA, limits), new AttemptLimiter(nodeB, limits)];
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => limiters[i % 2]!.signup('203.0.113.7')));
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5);
    const row = await nodeA.selectFrom('attempt_counters').select(['count', 'expires_at']).executeTakeFirstOrThrow();
    // expires_at is bigint on PostgreSQL: read back as a number of ms, an hour ahead.
    assert.equal(row.count, 5);
    assert.equal(typeof row.expires_at, 'number');
    assert.ok(Math.abs(row.expires_at - (Date.now() + 3600_000)) < 60_000, String(row.expires_at));
  });
});
