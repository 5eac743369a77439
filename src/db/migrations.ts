import { sql, type Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { activityMigrations } from './activity-migrations.ts';
import { dashboardMigrations } from './dashboard-migrations.ts';
import { columnTypes } from './dialect.ts';

// Migrations live in code (not files found at run time) so they ship with the module graph.
// Written with Kysely's schema builder so the same steps run on SQLite and PostgreSQL; the types
// that differ come from columnTypes (dialect.ts), which gives SQLite the types it always had.
const migrations: Record<string, Migration> = {
  '0001_accounts_keys_credits': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('email_verified_at', 'text')
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('quota_override', 'integer')
        .addColumn('rate_limit_override', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('display_prefix', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('tools', 'text')
        .addColumn('can_manage_keys', columnTypes(db).flag, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();
      await db.schema
        .createTable('email_verifications')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createTable('credit_periods')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('credit_periods_pk', ['account_id', 'period'])
        .execute();
      await db.schema
        .createTable('usage_events')
        .addColumn('id', columnTypes(db).autoId.type, (c) => (columnTypes(db).autoId.autoIncrement ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('operation_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('usage_events_account_period').on('usage_events').columns(['account_id', 'period']).execute();
      await db.schema
        .createTable('idempotency_records')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_records_pk', ['account_id', 'idempotency_key'])
        .execute();
      await db.schema.createIndex('idempotency_records_created').on('idempotency_records').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['idempotency_records', 'usage_events', 'credit_periods', 'email_verifications', 'api_keys', 'accounts']) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  },
  // Usage as counters per (account, key, tool, month) instead of one row per call: the writer
  // upserts a handful of rows a few times a second, and GET /usage reads them without a scan.
  '0002_usage_counters': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('usage_counters')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('operation_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_pk', ['account_id', 'period', 'key_id', 'operation_id'])
        .execute();
      await sql`insert into usage_counters (account_id, key_id, operation_id, period, calls, failures, credits)
        select account_id, key_id, operation_id, period, count(*), sum(case when status_code >= 400 then 1 else 0 end), sum(credits)
        from usage_events group by account_id, key_id, operation_id, period`.execute(db);
      await db.schema.dropTable('usage_events').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists usage_counters`.execute(db);
    },
  },
  // Credit leases as rows, so that a process that dies without a goodbye (SIGKILL, the OOM
  // killer, a power cut) does not keep the credits it leased: any live process, or the next
  // start, finds the row of a dead holder and gives back what it had not spent. `spent` is
  // written in the same transaction as the usage counters, so the two always agree.
  '0003_credit_leases': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('credit_leases')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('holder_pid', 'integer', (c) => c.notNull())
        .addColumn('holder_host', 'text', (c) => c.notNull())
        .addColumn('granted', 'integer', (c) => c.notNull())
        .addColumn('spent', 'integer', (c) => c.notNull())
        .addColumn('heartbeat_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_leases_holder').on('credit_leases').column('holder').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists credit_leases`.execute(db);
    },
  },
  // An in-progress Idempotency-Key claim records its holder, the same holder as the credit
  // leases (see lease-holder.ts): a retry that finds the claim of a dead holder (SIGKILL, the OOM
  // killer, a power cut) takes it over and runs the request, instead of answering 409 until the
  // TTL. Null on rows claimed before this migration: those are judged by their age alone.
  '0004_idempotency_holders': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('idempotency_records').addColumn('holder', 'text').execute();
      await db.schema.alterTable('idempotency_records').addColumn('holder_pid', 'integer').execute();
      await db.schema.alterTable('idempotency_records').addColumn('holder_host', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const column of ['holder', 'holder_pid', 'holder_host']) {
        await db.schema.alterTable('idempotency_records').dropColumn(column).execute();
      }
    },
  },
  // Webhooks an account registered (at most 5, see webhook-store.ts). The signing secret is kept
  // to sign with, so it is stored sealed (AES-256-GCM under a key derived from the service's
  // signing secret), and only ever returned in the answer that created it. The last_* columns
  // are the outcome of the latest delivery, for GET /api/v1/webhooks to show.
  '0005_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_event_id', 'text')
        .addColumn('last_event_type', 'text')
        .addColumn('last_outcome', 'text')
        .addColumn('last_attempts', 'integer')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('last_attempt_at', 'text')
        .execute();
      await db.schema.createIndex('webhooks_account').on('webhooks').column('account_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists webhooks`.execute(db);
    },
  },
  // Async runs (invoke_tool with async: true) and the payloads kept for fetch_payload, both
  // scoped to an account. A run records its holder (the same holder as the credit leases, see
  // lease-holder.ts) so that the next start can tell a run left `accepted` by a dead process and
  // mark it `error`. The outcome is the stored Outcome (core/outcome.ts storeOutcome) as JSON.
  '0006_runs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('operation_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('result_status', 'text')
        .addColumn('outcome', 'text')
        .addColumn('error_reason', 'text')
        .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('holder_pid', 'integer', (c) => c.notNull())
        .addColumn('holder_host', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('runs_status').on('runs').column('status').execute();
      await db.schema
        .createTable('payloads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('chars', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('payloads_expires').on('payloads').column('expires_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists payloads`.execute(db);
      await sql`drop table if exists runs`.execute(db);
    },
  },
  // Feature memory (src/runs/feature-memory/): features of an account, the community patterns
  // published from them (a copy stripped of URLs, hosts and keys, removed with its feature), and
  // the playbook profiles (account, playbook, https URL) holding the last-run snapshot that
  // verify_task falls back on. A deleted feature leaves the features that superseded it standing.
  '0007_feature_memory': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('features')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('project_scope', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('requirements', 'text', (c) => c.notNull())
        .addColumn('acceptance', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('playbook_id', 'text')
        .addColumn('goal', 'text')
        .addColumn('gate', 'text', (c) => c.notNull())
        .addColumn('scores', 'text', (c) => c.notNull())
        .addColumn('statuses', 'text', (c) => c.notNull())
        .addColumn('remaining_finding_ids', 'text', (c) => c.notNull())
        .addColumn('supersedes_feature_id', 'text', (c) => c.references('features.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('features_account_scope').on('features').columns(['account_id', 'project_scope', 'created_at']).execute();
      await db.schema.createIndex('features_supersedes').on('features').column('supersedes_feature_id').execute();
      await db.schema
        .createTable('feature_patterns')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('feature_id', 'text', (c) => c.notNull().unique().references('features.id').onDelete('cascade'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('requirements', 'text', (c) => c.notNull())
        .addColumn('acceptance', 'text', (c) => c.notNull())
        .addColumn('published_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('feature_patterns_published').on('feature_patterns').column('published_at').execute();
      await db.schema
        .createTable('profiles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('playbook_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('snapshot', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('profiles_account_playbook_url', ['account_id', 'playbook_id', 'url'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists profiles`.execute(db);
      await sql`drop table if exists feature_patterns`.execute(db);
      await sql`drop table if exists features`.execute(db);
    },
  },
  // Frozen coding jobs (src/runs/coding-jobs/): a goal, the host's own checks in order, and the
  // last result the host submitted for each. The service never runs a check's command.
  '0008_coding_jobs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('coding_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('goal', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('coding_jobs_account').on('coding_jobs').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('coding_job_checks')
        .addColumn('job_id', 'text', (c) => c.notNull().references('coding_jobs.id').onDelete('cascade'))
        .addColumn('check_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('command', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_exit_code', 'integer')
        .addColumn('last_output', 'text')
        .addColumn('last_output_chars', 'integer')
        .addColumn('last_submitted_at', 'text')
        .addPrimaryKeyConstraint('coding_job_checks_pk', ['job_id', 'check_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists coding_job_checks`.execute(db);
      await sql`drop table if exists coding_jobs`.execute(db);
    },
  },
  // In the database rather than in memory: processes sharing it must share the counts too.
  '0009_attempt_counters': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('attempt_counters')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', columnTypes(db).epochMs, (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('attempt_counters_expires').on('attempt_counters').column('expires_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists attempt_counters`.execute(db);
    },
  },
  // The jobs of the MCP loop (solve_task, run_playbook, run_workflow, verify_task) are runs too,
  // sync or async, so get_run serves every one and verify_task can take `baseline: { runId }`.
  // A job run keeps the jobReport id it answered (a baseline passed as a bare jobReport finds its
  // run by it), the chain it belongs to (the first run of a fix loop; verifies join its chain, so
  // the loop's round and stops live on the server whatever form the host's baseline takes), its
  // idempotency key (a retry replays the stored answer), and its job state (the goal key, the
  // re-run input, the loop) as JSON.
  '0010_job_runs': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('idempotency_key', 'text').execute();
      await db.schema.alterTable('runs').addColumn('report_id', 'text').execute();
      await db.schema.alterTable('runs').addColumn('chain_id', 'text').execute();
      await db.schema.alterTable('runs').addColumn('job_state', 'text').execute();
      await db.schema.createIndex('runs_idempotency').on('runs').columns(['account_id', 'kind', 'idempotency_key']).execute();
      await db.schema.createIndex('runs_report').on('runs').columns(['account_id', 'report_id']).execute();
      await db.schema.createIndex('runs_chain').on('runs').columns(['chain_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index if exists runs_chain`.execute(db);
      await sql`drop index if exists runs_report`.execute(db);
      await sql`drop index if exists runs_idempotency`.execute(db);
      for (const column of ['job_state', 'chain_id', 'report_id', 'idempotency_key']) await db.schema.alterTable('runs').dropColumn(column).execute();
    },
  },
  // Durable runs (issue 21 item 3): the node running a run rewrites its heartbeat, so another
  // node can tell a run whose node died (its heartbeat stale, or its pid gone on this host) and
  // take it: `request` holds what an invoke_tool run needs to be run again there (the key that
  // submitted it, the tool, the input), and `attempts` how many nodes have taken it.
  '0011_durable_runs': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('heartbeat_at', 'text').execute();
      await db.schema.alterTable('runs').addColumn('request', 'text').execute();
      await db.schema.alterTable('runs').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const column of ['attempts', 'request', 'heartbeat_at']) await db.schema.alterTable('runs').dropColumn(column).execute();
    },
  },
  ...dashboardMigrations,
  ...activityMigrations,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
