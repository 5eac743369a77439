import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { columnTypes } from './dialect.ts';

/**
 * The dashboard's activity data (issue 23): usage per day, recent webhook deliveries, keys' last
 * use. In the same Kysely style as migrations.ts, which spreads them in.
 */
export const activityMigrations: Record<string, Migration> = {
  '0014_activity': {
    async up(db: Kysely<unknown>) {
      // Calls, failures and credits per account, key and UTC day (`YYYY-MM-DD`), added by the
      // same flush that writes usage_counters (one upsert per batch, never per call). No tool
      // column: the per-tool figures stay monthly, and a day row per key stays small. Kept 400
      // days (src/accounts/activity-store.ts pruneUsageDays, on the retention sweep).
      await db.schema
        .createTable('usage_days')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_days_pk', ['account_id', 'key_id', 'day'])
        .execute();
      // The prune deletes by day alone.
      await db.schema.createIndex('usage_days_day').on('usage_days').column('day').execute();
      // Every attempt of a delivery, the last 50 per webhook (older ones deleted with each insert,
      // src/runs/webhook-deliveries.ts). The numbered id orders them as they were written. The
      // error is the dispatcher's short text (500 characters at most), never a header or a secret.
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', columnTypes(db).autoId.type, (c) => (columnTypes(db).autoId.autoIncrement ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
      // The latest call of a key (ISO time), written by the usage flush from its batch: never per call.
      await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
      await sql`drop table if exists webhook_deliveries`.execute(db);
      await sql`drop table if exists usage_days`.execute(db);
    },
  },
};
