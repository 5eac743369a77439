import type { Db } from '../db/database.ts';
import type { IdempotencyRecordsTable } from '../db/schema.ts';
import { isHolderDead, type LeaseHolder } from './lease-holder.ts';

export type IdempotencyClaim =
  /** `recovered`: the claim was a dead holder's, whose request was never answered (nor charged). */
  | { kind: 'claimed'; recovered: { pid: number | null; host: string | null } | undefined }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface ClaimOptions {
  /** Who runs the request: the process's credit ledger holder, judged alive or dead the same way. */
  holder: LeaseHolder;
  ttlMs: number;
  /**
   * A claim whose holder cannot be judged by its pid (another host, a pid that runs but may be
   * another program's) is taken for dead once it is older than this: more than the longest a
   * live holder keeps a claim, which the caller knows (the tool's time limit).
   */
  staleMs: number;
}

/**
 * Claims an Idempotency-Key: the first request with a key claims it (state 'pending', with its
 * holder); the response is stored when it ends. A claim still pending is another request
 * running, unless its holder is dead: then nothing will ever answer it, and since a crash gives
 * back what a running call was charged (see CreditLedger), the retry takes the claim over and
 * runs the request once more.
 */
export async function claimIdempotencyKey(db: Db, accountId: string, key: string, requestHash: string, o: ClaimOptions): Promise<IdempotencyClaim> {
  const now = Date.now();
  const stamp = new Date(now).toISOString();
  await db.deleteFrom('idempotency_records').where('account_id', '=', accountId).where('idempotency_key', '=', key).where('created_at', '<', new Date(now - o.ttlMs).toISOString()).execute();
  const inserted = await db
    .insertInto('idempotency_records')
    .values({
      account_id: accountId,
      idempotency_key: key,
      request_hash: requestHash,
      state: 'pending',
      response_status: null,
      response_body: null,
      created_at: stamp,
      holder: o.holder.token,
      holder_pid: o.holder.pid,
      holder_host: o.holder.host,
    })
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'claimed', recovered: undefined };
  const row = await readRecord(db, accountId, key);
  // Gone between the insert and the read: its holder released it just now; the next retry claims it.
  if (!row) return { kind: 'in_progress' };
  const answered = judge(row, requestHash);
  if (answered) return answered;
  if (row.holder === o.holder.token || !isHolderDead(holderRecord(row), now, o.staleMs)) return { kind: 'in_progress' };

  // The update names the claim as it was judged (holder and time), so of two retries taking
  // over at once only one runs the request, and a holder that finished meanwhile keeps its answer.
  const taken = await db
    .updateTable('idempotency_records')
    .set({ holder: o.holder.token, holder_pid: o.holder.pid, holder_host: o.holder.host, created_at: stamp })
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'pending')
    .where('created_at', '=', row.created_at)
    .where('holder', row.holder === null ? 'is' : '=', row.holder)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) > 0) return { kind: 'claimed', recovered: { pid: row.holder_pid, host: row.holder_host } };
  const latest = await readRecord(db, accountId, key);
  return (latest && judge(latest, requestHash)) ?? { kind: 'in_progress' };
}

/** Stores the response; only the claim's holder may (a holder taken for dead that wakes up answers its own caller, not the record). */
export async function completeIdempotencyKey(db: Db, accountId: string, key: string, holder: LeaseHolder, status: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_records')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('holder', '=', holder.token)
    .execute();
}

/** Releases a claim so a retry can run again (the service failed, nothing to replay); only the claim's holder may. */
export async function releaseIdempotencyKey(db: Db, accountId: string, key: string, holder: LeaseHolder): Promise<void> {
  await db.deleteFrom('idempotency_records').where('account_id', '=', accountId).where('idempotency_key', '=', key).where('holder', '=', holder.token).execute();
}

export async function sweepIdempotency(db: Db, ttlMs: number): Promise<void> {
  await db.deleteFrom('idempotency_records').where('created_at', '<', new Date(Date.now() - ttlMs).toISOString()).execute();
}

function readRecord(db: Db, accountId: string, key: string): Promise<IdempotencyRecordsTable | undefined> {
  return db.selectFrom('idempotency_records').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();
}

/** What a record answers by itself; undefined when it is a pending claim whose holder must be judged. */
function judge(row: IdempotencyRecordsTable, requestHash: string): IdempotencyClaim | undefined {
  if (row.request_hash !== requestHash) return { kind: 'mismatch' };
  if (row.state === 'done' && row.response_status !== null && row.response_body !== null) return { kind: 'replay', status: row.response_status, body: row.response_body };
  return undefined;
}

/** A claim from before holders were recorded has no pid or host: its age alone decides. */
function holderRecord(row: IdempotencyRecordsTable) {
  return { holder: row.holder ?? '', pid: row.holder_pid ?? 0, host: row.holder_host ?? '', heartbeatAt: Date.parse(row.created_at) };
}
