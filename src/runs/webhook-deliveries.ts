// Each webhook's recent delivery attempts, in `webhook_deliveries` (migration 0014): the
// dashboard lists them per webhook. Written where the latest attempt is recorded on the webhook's
// row (WebhookStore.recordAttempt), in the same transaction, which also deletes all but the last
// KEPT_DELIVERIES of that webhook, so the table never grows past 50 rows a webhook.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { DeliveryOutcome } from './webhook-store.ts';

/** Attempts kept per webhook. */
export const KEPT_DELIVERIES = 50;

/** One attempt as recorded: the event, its outcome, the receiver's code and how long it took. */
export interface DeliveryAttempt {
  eventId: string;
  type: string;
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  /** the dispatcher's short text (no header, no body, no secret), null when delivered */
  error: string | null;
  durationMs: number;
  at: string;
}

/**
 * Adds an attempt and drops the webhook's older ones. The account comes from the webhook's row in
 * the same statement, so an attempt of a webhook deleted meanwhile inserts nothing.
 */
export async function insertDelivery(trx: Kysely<Database>, webhookId: string, attempt: DeliveryAttempt): Promise<void> {
  await sql`insert into webhook_deliveries (webhook_id, account_id, event_id, event_type, attempt, outcome, status_code, error, duration_ms, attempted_at)
    select id, account_id, ${attempt.eventId}, ${attempt.type}, ${attempt.attempt}, ${attempt.outcome}, ${attempt.statusCode}, ${attempt.error}, ${attempt.durationMs}, ${attempt.at}
    from webhooks where id = ${webhookId}`.execute(trx);
  // The 51st newest and everything older: an index range on (webhook_id, id); nothing while fewer are kept.
  await sql`delete from webhook_deliveries where webhook_id = ${webhookId} and id <= (
    select id from webhook_deliveries where webhook_id = ${webhookId} order by id desc limit 1 offset ${KEPT_DELIVERIES})`.execute(trx);
}

/** The webhook's kept attempts, newest first; the caller has checked the webhook is the account's. */
export async function listDeliveries(db: Db, accountId: string, webhookId: string): Promise<DeliveryAttempt[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(KEPT_DELIVERIES)
    .execute();
  return rows.map((r) => ({
    eventId: r.event_id,
    type: r.event_type,
    attempt: Number(r.attempt),
    outcome: r.outcome as DeliveryOutcome,
    statusCode: r.status_code === null ? null : Number(r.status_code),
    error: r.error,
    durationMs: Number(r.duration_ms),
    at: r.attempted_at,
  }));
}
