import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { columnTypes } from './dialect.ts';

/** The web dashboard's tables (issue 23), in the same Kysely style as migrations.ts, which spreads them in. */
export const dashboardMigrations: Record<string, Migration> = {
  // Dashboard sign-ins (src/dashboard/session-store.ts): in the database so any node serves a
  // session. The row is keyed by SHA-256 of the cookie's id, so a leaked table holds no usable
  // session; times in ms since the epoch, compared with the idle and absolute limits.
  '0012_dashboard_sessions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dashboard_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', columnTypes(db).epochMs, (c) => c.notNull())
        .addColumn('last_seen_at', columnTypes(db).epochMs, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dashboard_sessions_last_seen').on('dashboard_sessions').column('last_seen_at').execute();
      await db.schema.createIndex('dashboard_sessions_created').on('dashboard_sessions').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists dashboard_sessions`.execute(db);
    },
  },
  // Password reset by mail (src/accounts/password-resets.ts): SHA-256 of the mailed token, never
  // the token; an hour to live and one use, both in ms since the epoch so a test can give `now`.
  '0013_password_resets': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('password_resets')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', columnTypes(db).epochMs, (c) => c.notNull())
        .addColumn('expires_at', columnTypes(db).epochMs, (c) => c.notNull())
        .addColumn('used_at', columnTypes(db).epochMs)
        .execute();
      await db.schema.createIndex('password_resets_account').on('password_resets').column('account_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists password_resets`.execute(db);
    },
  },
  // The feature memory page's last visit per account (src/dashboard/feature-seen.ts): the nav's
  // "N improved" badge counts features whose records since then improved. The badge reads the
  // account's features newer than that time on every page, so features get an index on
  // (account_id, created_at); the 0007 index leads with project_scope after account_id.
  '0015_feature_memory_seen': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dashboard_feature_seen')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('seen_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('features_account_created').on('features').columns(['account_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index if exists features_account_created`.execute(db);
      await sql`drop table if exists dashboard_feature_seen`.execute(db);
    },
  },
};
