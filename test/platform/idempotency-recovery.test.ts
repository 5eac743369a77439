import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../../src/accounts/account-store.ts';
import type { LeaseHolder } from '../../src/accounts/lease-holder.ts';
import { idempotencyRequestHash } from '../../src/core/idempotency-hash.ts';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';
import { EMI, EMI_BODY, callEmi, startServer, usageOf, type Server, testDatabaseUrl } from '../support/server-process.ts';

// A request killed mid-call (SIGKILL, the OOM killer, a power cut) leaves its Idempotency-Key
// claimed. The claim names its holder like a credit lease does, and the server judges it the
// same way (lease-holder.ts): the claims here are made from the test as holders known dead or
// alive, so which one a real server process meets is certain, not a race with a kill.

describe('an Idempotency-Key claimed by a process that died is run by the retry', () => {
  const EMI_OPERATION = 'calculators_emi_calculator';
  const DAY_MS = 86_400_000;
  let dataDir: string;
  let db: Db;
  let accounts: AccountStore;
  let server: Server;
  let n = 0;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tool-service-idem-'));
    db = openDatabase(await testDatabaseUrl(dataDir));
    await migrateToLatest(db);
    accounts = new AccountStore(db);
    server = await startServer(dataDir, {});
  });
  after(async () => {
    await server?.kill('SIGKILL');
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function account(): Promise<{ accountId: string; apiKey: string }> {
    const created = await accounts.createAccount({ email: `idem-${++n}-${Date.now()}@example.com`, verified: true, quota: 1000, rateLimit: 1_000_000 });
    const { secret } = await accounts.createKey({ accountId: created.id });
    return { accountId: created.id, apiKey: secret };
  }

  /** A holder known to be dead: a process this test started and saw exit. */
  async function deadHolder(): Promise<LeaseHolder> {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(gone, 'exit');
    return { token: randomUUID(), pid: gone.pid!, host: hostname() };
  }

  /** Claims the key for the EMI call the test then retries, as `holder` (the request it was running is the retry's). */
  async function claimAs(holder: LeaseHolder, accountId: string, key: string): Promise<void> {
    const hash = idempotencyRequestHash(EMI_OPERATION, EMI_BODY, undefined, undefined);
    const claim = await accounts.claimIdempotencyKey(accountId, key, hash, { holder, ttlMs: DAY_MS, staleMs: DAY_MS });
    assert.equal(claim.kind, 'claimed');
  }

  async function record(accountId: string, key: string) {
    return db
      .selectFrom('idempotency_records')
      .select(['state', 'holder', 'holder_pid', 'response_status'])
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow();
  }

  it('takes over a dead holder\'s claim: the retry runs and answers 200, charged once, and the next retry replays', async () => {
    const { accountId, apiKey } = await account();
    await claimAs(await deadHolder(), accountId, 'killed-mid-call');

    const retry = await callEmi(server.base, apiKey, 'killed-mid-call');
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.replayed, false);
    assert.equal(typeof (retry.body as { result: { emi: unknown } }).result.emi, 'number');
    await server.logged('took over the Idempotency-Key claim of a stopped process');
    const taken = await record(accountId, 'killed-mid-call');
    assert.deepEqual([taken.state, taken.holder_pid, taken.response_status], ['done', server.child.pid, 200], 'the server took the claim over and stored its answer');

    const again = await callEmi(server.base, apiKey, 'killed-mid-call');
    assert.equal(again.status, 200);
    assert.equal(again.replayed, true);
    assert.deepEqual(again.body, retry.body);
    const usage = await usageOf(server.base, apiKey);
    assert.equal(usage.used, 1);
    assert.deepEqual(usage.byTool, [{ operationId: EMI_OPERATION, calls: 1, failures: 0, credits: 1 }]);
  });

  it('two retries of a dead holder\'s claim at once run the request once', async () => {
    const { accountId, apiKey } = await account();
    await claimAs(await deadHolder(), accountId, 'two-retries');
    const answers = await Promise.all([callEmi(server.base, apiKey, 'two-retries'), callEmi(server.base, apiKey, 'two-retries')]);
    const ran = answers.filter((a) => a.status === 200 && !a.replayed);
    assert.equal(ran.length, 1, JSON.stringify(answers));
    // The other one saw the new holder's claim (409, live) or its stored answer (a replay).
    for (const other of answers.filter((a) => a !== ran[0])) {
      if (other.status === 409) assert.equal((other.body as { error: string }).error, 'idempotency_in_progress');
      else assert.deepEqual([other.status, other.replayed, other.body], [200, true, ran[0]!.body]);
    }
    assert.equal((await usageOf(server.base, apiKey)).used, 1);
  });

  it('a live holder\'s claim still answers 409 with Retry-After, and its answer is the one replayed', async () => {
    const { accountId, apiKey } = await account();
    // This test process runs: on the server's host its pid says it is alive.
    const live: LeaseHolder = { token: randomUUID(), pid: process.pid, host: hostname() };
    await claimAs(live, accountId, 'still-running');

    const res = await fetch(`${server.base}${EMI}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': 'still-running' },
      body: JSON.stringify(EMI_BODY),
    });
    assert.equal(res.status, 409);
    assert.equal(res.headers.get('retry-after'), '1');
    const body = (await res.json()) as { status: boolean; code: number; error: string; requestId: string };
    assert.equal(body.status, false);
    assert.deepEqual([body.code, body.error], [409, 'idempotency_in_progress']);
    assert.equal(body.requestId, res.headers.get('x-request-id'));
    assert.equal((await record(accountId, 'still-running')).holder, live.token, 'the live holder keeps its claim');

    // The live holder finishes: the retry replays what it answered, and nothing ran here.
    // Records hold the call's outcome (core/outcome.ts), which the replay answers as REST does.
    await accounts.completeIdempotencyKey(accountId, 'still-running', live, 200, JSON.stringify({ ok: true, result: { emi: 1 }, warnings: [] }));
    const replay = await callEmi(server.base, apiKey, 'still-running');
    assert.deepEqual([replay.status, replay.replayed, replay.body], [200, true, { status: true, code: 200, message: 'OK', result: { emi: 1 }, warnings: [], error: '' }]);
    assert.equal((await usageOf(server.base, apiKey)).used, 0);
  });

  it('a claim whose holder cannot be asked (another host) is judged by its age', async () => {
    const { accountId, apiKey } = await account();
    const elsewhere: LeaseHolder = { token: randomUUID(), pid: process.pid, host: `not-${hostname()}` };
    await claimAs(elsewhere, accountId, 'recent-elsewhere');
    await claimAs(elsewhere, accountId, 'old-elsewhere');
    // An hour old: far beyond what a live holder keeps a claim (twice the 30 s tool limit and a minute).
    await db
      .updateTable('idempotency_records')
      .set({ created_at: new Date(Date.now() - 3600_000).toISOString() })
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', 'old-elsewhere')
      .execute();

    const recent = await callEmi(server.base, apiKey, 'recent-elsewhere');
    assert.deepEqual([recent.status, (recent.body as { error: string }).error], [409, 'idempotency_in_progress']);
    const old = await callEmi(server.base, apiKey, 'old-elsewhere');
    assert.deepEqual([old.status, old.replayed], [200, false]);
    assert.equal((await record(accountId, 'old-elsewhere')).holder_pid, server.child.pid);
    assert.equal((await usageOf(server.base, apiKey)).used, 1);
  });
});
