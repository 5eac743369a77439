import type { Generated } from 'kysely';

// Timestamps are ISO-8601 strings in UTC (sortable, portable between SQLite and PostgreSQL).
export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  email_verified_at: string | null;
  plan: string;
  status: string;
  quota_override: number | null;
  rate_limit_override: number | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** The first characters of the secret, safe to show in listings. */
  display_prefix: string;
  /** SHA-256 of the secret: keys carry >= 128 random bits, so a fast hash is safe and keeps auth cheap. */
  secret_hash: string;
  /** JSON array of operationIds the key may call; null means every tool. */
  tools: string | null;
  can_manage_keys: number;
  created_at: string;
  revoked_at: string | null;
  /** The latest call's time, written by the usage flush (the max of its batch), not per call; null until first used. */
  last_used_at: string | null;
}

export interface EmailVerificationsTable {
  token_hash: string;
  account_id: string;
  expires_at: string;
  used_at: string | null;
}

export interface CreditPeriodsTable {
  account_id: string;
  /** UTC month, `YYYY-MM`. A new month is a new row, which is the monthly reset. */
  period: string;
  used: number;
}

export interface UsageCountersTable {
  account_id: string;
  key_id: string;
  operation_id: string;
  /** UTC month, `YYYY-MM`. */
  period: string;
  calls: number;
  /** Calls answered with a 4xx or 5xx. */
  failures: number;
  credits: number;
}

/**
 * Credits a process took from `credit_periods.used` in one block (a lease) and spends in memory.
 * `granted` is what `used` counts for the lease; `spent` is what its finished calls cost as of
 * the holder's last flush (the same transaction wrote their usage counters). A dead holder's
 * lease gives back `granted - spent`.
 */
export interface CreditLeasesTable {
  id: string;
  account_id: string;
  /** UTC month, `YYYY-MM`. */
  period: string;
  /** A random token per running ledger (process start): a pid alone is reused. */
  holder: string;
  holder_pid: number;
  holder_host: string;
  granted: number;
  spent: number;
  heartbeat_at: string;
  created_at: string;
}

export interface IdempotencyRecordsTable {
  account_id: string;
  idempotency_key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  /** When the claim was made or taken over: the TTL counts from it, and so does a claim's age. */
  created_at: string;
  /** The lease holder (see lease-holder.ts) running the request while `state` is 'pending'. */
  holder: string | null;
  holder_pid: number | null;
  holder_host: string | null;
}

/** A webhook of an account (see src/runs/webhook-store.ts). */
export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of the event types it receives */
  events: string;
  description: string | null;
  /** The signing secret, sealed with AES-256-GCM (never stored or listed in the clear). */
  secret_sealed: string;
  created_at: string;
  /** The latest delivery: its event, outcome ('delivered', 'retrying', 'failed'), attempts so far, last HTTP status or error, and when. */
  last_event_id: string | null;
  last_event_type: string | null;
  last_outcome: string | null;
  last_attempts: number | null;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
}

/** An async run (see src/runs/run-store.ts). */
export interface RunsTable {
  id: string;
  account_id: string;
  /** what ran: 'invoke_tool' (playbook, solve and verify runs later) */
  kind: string;
  operation_id: string | null;
  /** accepted (queued or running), completed (the job finished, whatever the tool answered), partial, error (could not finish) */
  status: string;
  /** 'ok' or the error code the tool answered */
  result_status: string | null;
  /** the StoredOutcome as JSON, once finished */
  outcome: string | null;
  /** why a run ended in `error` */
  error_reason: string | null;
  credits: number;
  /** the lease holder (see lease-holder.ts) running it */
  holder: string;
  holder_pid: number;
  holder_host: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** a job's idempotency key (jobs only: invoke_tool's key lives with the invoke path) */
  idempotency_key: string | null;
  /** the jobReport id a job's answer carried */
  report_id: string | null;
  /** the first run of the job's fix loop */
  chain_id: string | null;
  /** a job's JobState as JSON (src/runs/job-state.ts) */
  job_state: string | null;
  /** the holder's last heartbeat (ISO); null for runs stored before it was kept: created_at stands in */
  heartbeat_at?: string | null;
  /** a re-runnable invoke_tool run's RunRequest as JSON (see run-store.ts); null when it cannot run again */
  request?: string | null;
  /** how many holders have taken it: 1, plus one per takeover */
  attempts?: number;
}

/** A result kept for fetch_payload until `expires_at` (see src/runs/payload-store.ts). */
export interface PayloadsTable {
  id: string;
  account_id: string;
  /** the payload as JSON text */
  body: string;
  chars: number;
  created_at: string;
  expires_at: string;
}

/** A feature that passed (or was captured by hand) in an account's feature memory (see src/runs/feature-memory/). */
export interface FeaturesTable {
  id: string;
  account_id: string;
  /** the agent's project scope, or the page's origin (see project-scope.ts) */
  project_scope: string;
  title: string;
  /** JSON array of strings */
  requirements: string;
  /** JSON array of strings */
  acceptance: string;
  /** 'auto' (recorded on a gate pass) or 'manual' (capture_feature) */
  source: string;
  playbook_id: string | null;
  goal: string | null;
  /** 'pass', 'fail' or 'unknown' */
  gate: string;
  /** JSON: score key -> 0..100 */
  scores: string;
  /** JSON: score key -> status */
  statuses: string;
  /** JSON array of the findingIds that remained */
  remaining_finding_ids: string;
  supersedes_feature_id: string | null;
  created_at: string;
}

/** A feature's requirements and acceptance shared with every account, stripped of URLs, hosts and keys. */
export interface FeaturePatternsTable {
  id: string;
  /** the publisher; never shown to other accounts */
  account_id: string;
  feature_id: string;
  title: string;
  /** JSON array of strings */
  requirements: string;
  /** JSON array of strings */
  acceptance: string;
  published_at: string;
}

/** A playbook run on one https:// URL, with its last-run snapshot for verify_task (see profile-store.ts). */
export interface ProfilesTable {
  id: string;
  account_id: string;
  playbook_id: string;
  url: string;
  /** the last run's snapshot as JSON text */
  snapshot: string;
  created_at: string;
  updated_at: string;
}

/** A frozen coding job: a goal and the host's own checks (see src/runs/coding-jobs/). */
export interface CodingJobsTable {
  id: string;
  account_id: string;
  goal: string;
  created_at: string;
  updated_at: string;
}

/** One check of a coding job and the last result the host submitted for it. */
export interface CodingJobChecksTable {
  job_id: string;
  check_id: string;
  position: number;
  command: string;
  description: string;
  /** how many results were submitted */
  attempts: number;
  last_exit_code: number | null;
  /** the tail of the last output, at most MAX_KEPT_OUTPUT_CHARS */
  last_output: string | null;
  /** the length of the last output as submitted */
  last_output_chars: number | null;
  last_submitted_at: string | null;
}

/** Sign-up and password attempts in the current window of one hashed subject (src/accounts/attempt-limiter.ts). */
export interface AttemptCountersTable {
  /** SHA-256 of the limit's name and its subject (a client address, an e-mail) */
  key: string;
  /** the end of the window, in ms since the epoch */
  expires_at: number;
  count: number;
}

/** A signed-in dashboard session (src/dashboard/session-store.ts). */
export interface DashboardSessionsTable {
  /** SHA-256 of the cookie's random id: the id itself is never stored */
  id_hash: string;
  account_id: string;
  /** the token every state-changing dashboard request must carry (src/dashboard/csrf.ts) */
  csrf_token: string;
  /** ms since the epoch: the absolute limit counts from here */
  created_at: number;
  /** ms since the epoch, written at most once a minute: the idle limit counts from here */
  last_seen_at: number;
}

/** When an account last opened the dashboard's feature memory page (src/dashboard/feature-seen.ts). */
export interface DashboardFeatureSeenTable {
  account_id: string;
  /** ISO time, compared with features.created_at */
  seen_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  email_verifications: EmailVerificationsTable;
  credit_periods: CreditPeriodsTable;
  usage_counters: UsageCountersTable;
  credit_leases: CreditLeasesTable;
  idempotency_records: IdempotencyRecordsTable;
  webhooks: WebhooksTable;
  runs: RunsTable;
  payloads: PayloadsTable;
  features: FeaturesTable;
  feature_patterns: FeaturePatternsTable;
  profiles: ProfilesTable;
  coding_jobs: CodingJobsTable;
  coding_job_checks: CodingJobChecksTable;
  attempt_counters: AttemptCountersTable;
  dashboard_sessions: DashboardSessionsTable;
  password_resets: PasswordResetsTable;
  dashboard_feature_seen: DashboardFeatureSeenTable;
  usage_days: UsageDaysTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** Usage per account, key and UTC day (src/accounts/activity-store.ts), written with usage_counters; kept 400 days. */
export interface UsageDaysTable {
  account_id: string;
  key_id: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  calls: number;
  /** Calls answered with a 4xx or 5xx. */
  failures: number;
  credits: number;
}

/** One attempt of a webhook delivery (src/runs/webhook-deliveries.ts); the last 50 per webhook are kept. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: string;
  /** 1 for the first attempt, then each retry's number */
  attempt: number;
  /** 'delivered', 'retrying' or 'failed' */
  outcome: string;
  /** the receiver's HTTP status, null when it never answered */
  status_code: number | null;
  /** the dispatcher's short text (at most 500 characters), null when delivered */
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

/** A password-reset link sent by mail (src/accounts/password-resets.ts). */
export interface PasswordResetsTable {
  /** SHA-256 of the token in the mailed link: the token itself is never stored */
  token_hash: string;
  account_id: string;
  /** ms since the epoch */
  created_at: number;
  /** ms since the epoch: an hour after created_at */
  expires_at: number;
  /** ms since the epoch; null while the link is unused */
  used_at: number | null;
}
