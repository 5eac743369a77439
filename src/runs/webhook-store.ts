// The webhooks an account registered, in the `webhooks` table (migration 0005). The signing
// secret is stored sealed (see SecretBox) and handed out only twice: to the caller in the answer
// that created it, and to the dispatcher when it signs a delivery. Listings never carry it.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { ServiceError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { withAccountLocked } from '../db/dialect.ts';
import type { WebhooksTable } from '../db/schema.ts';
import { insertDelivery, listDeliveries, type DeliveryAttempt } from './webhook-deliveries.ts';
import { newWebhookSecret, type SecretBox } from './webhook-signature.ts';

/** The event types an account may subscribe to. `webhook.test` is sent on request to one webhook, never subscribed. */
export const WEBHOOK_EVENT_TYPES = ['mcp.job.finished'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Webhooks one account may have: each finished job is one POST per webhook. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 5;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface LastDelivery {
  eventId: string;
  type: string;
  outcome: DeliveryOutcome;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  at: string;
}

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: string;
  lastDelivery: LastDelivery | null;
}

/** A webhook as the dispatcher needs it: where, and the secret to sign with. */
export interface WebhookTarget {
  id: string;
  accountId: string;
  url: string;
  secret: string;
}

function toWebhook(row: WebhooksTable): Webhook {
  const lastDelivery: LastDelivery | null =
    row.last_event_id === null || row.last_attempt_at === null
      ? null
      : {
          eventId: row.last_event_id,
          type: row.last_event_type ?? '',
          outcome: (row.last_outcome ?? 'failed') as DeliveryOutcome,
          attempts: row.last_attempts ?? 0,
          statusCode: row.last_status_code,
          error: row.last_error,
          at: row.last_attempt_at,
        };
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as WebhookEventType[], description: row.description, createdAt: row.created_at, lastDelivery };
}

export function webhookNotFound(id: string): ServiceError {
  return new ServiceError(404, 'webhook_not_found', `No webhook ${id} in this account`, { detail: 'List the account webhooks with GET /api/v1/webhooks' });
}

export class WebhookStore {
  readonly #db: Db;
  readonly #box: SecretBox;

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  /**
   * Registers a webhook and answers it with its new secret. The count check and the insert are
   * one statement, so two concurrent creations cannot pass the limit together: on SQLite, one
   * writer at a time; on PostgreSQL, whose READ COMMITTED lets two such statements count the
   * same rows, they also hold the account's row locked, so the second counts after the first.
   */
  async create(accountId: string, input: { url: string; events: WebhookEventType[]; description?: string | undefined }): Promise<{ webhook: Webhook; secret: string }> {
    const secret = newWebhookSecret();
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    const result = await withAccountLocked(this.#db, accountId, (db) =>
      sql`insert into webhooks (id, account_id, url, events, description, secret_sealed, created_at)
        select ${id}, ${accountId}, ${input.url}, ${JSON.stringify(input.events)}, ${input.description ?? null}, ${this.#box.seal(secret)}, ${createdAt}
        where (select count(*) from webhooks where account_id = ${accountId}) < ${MAX_WEBHOOKS_PER_ACCOUNT}`.execute(db),
    );
    if (Number(result.numAffectedRows ?? 0) === 0) {
      throw new ServiceError(409, 'webhook_limit_reached', `An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`, {
        detail: 'Delete one with DELETE /api/v1/webhooks/{id} before adding another',
        extra: { limit: MAX_WEBHOOKS_PER_ACCOUNT },
      });
    }
    return { webhook: { id, url: input.url, events: input.events, description: input.description ?? null, createdAt, lastDelivery: null }, secret };
  }

  async list(accountId: string): Promise<Webhook[]> {
    const rows = await this.#db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toWebhook);
  }

  /** One webhook of the account; another account's id is not found (404), never forbidden. */
  async get(accountId: string, id: string): Promise<Webhook> {
    const row = await this.#db.selectFrom('webhooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (row === undefined) throw webhookNotFound(id);
    return toWebhook(row);
  }

  async delete(accountId: string, id: string): Promise<Webhook> {
    const webhook = await this.get(accountId, id);
    await this.#db.deleteFrom('webhooks').where('id', '=', id).where('account_id', '=', accountId).execute();
    return webhook;
  }

  /** The account's webhooks subscribed to an event type, with their secrets, for the dispatcher. */
  async targets(accountId: string, type: WebhookEventType): Promise<WebhookTarget[]> {
    const rows = await this.#db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
    return rows.filter((row) => (JSON.parse(row.events) as string[]).includes(type)).map((row) => this.#target(row));
  }

  /** One webhook as a target, or null when it is gone (deleted between two attempts). */
  async target(accountId: string, id: string): Promise<WebhookTarget | null> {
    const row = await this.#db.selectFrom('webhooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row === undefined ? null : this.#target(row);
  }

  /**
   * Records an attempt of a delivery: the latest one on the webhook's row, and in the webhook's
   * recent deliveries (the last 50 kept), in one transaction (a deleted webhook records nothing).
   */
  async recordAttempt(id: string, delivery: DeliveryAttempt): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhooks')
        .set({
          last_event_id: delivery.eventId,
          last_event_type: delivery.type,
          last_outcome: delivery.outcome,
          last_attempts: delivery.attempt,
          last_status_code: delivery.statusCode,
          last_error: delivery.error,
          last_attempt_at: delivery.at,
        })
        .where('id', '=', id)
        .execute();
      await insertDelivery(trx, id, delivery);
    });
  }

  /** The recent attempts of one of the account's webhooks, newest first; another account's id is not found (404). */
  async deliveries(accountId: string, id: string): Promise<DeliveryAttempt[]> {
    await this.get(accountId, id);
    return listDeliveries(this.#db, accountId, id);
  }

  #target(row: WebhooksTable): WebhookTarget {
    return { id: row.id, accountId: row.account_id, url: row.url, secret: this.#box.open(row.secret_sealed) };
  }
}
