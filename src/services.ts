// Everything the service is, without any surface: the database, the stores, the engines, the
// fetcher, the invoke path, runs and webhooks, and the background beats that keep them (usage
// flushes, lease reclaim, retention sweeps). `buildApp(services)` in server.ts mounts REST and MCP
// on top; a worker process or a test can use the services with no HTTP at all.
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { AccountStore } from './accounts/account-store.ts';
import { pruneUsageDays } from './accounts/activity-store.ts';
import { CreditLedger } from './accounts/credit-ledger.ts';
import { RateLimiter, type RequestLimiter } from './accounts/rate-limiter.ts';
import { RedisConnection } from './accounts/redis-connection.ts';
import { SharedRateLimiter } from './accounts/shared-rate-limiter.ts';
import { UsageRecorder } from './accounts/usage-recorder.ts';
import { egressFetcherFromConfig, type EgressFetcher } from './analysis/fetch-supervisor.ts';
import type { Config } from './config.ts';
import { loadCatalog, type Catalog } from './core/catalog.ts';
import { Invoker } from './core/invoke.ts';
import { createAiProvider } from './ai/providers.ts';
import { ComputePool, DEFAULT_COMPUTE_WORKERS } from './core/compute-pool.ts';
import { BatchedLogWriter } from './core/log-writer.ts';
import { Metrics } from './core/metrics.ts';
import { changeCounter, migrateToLatest, openDatabase, type Db } from './db/database.ts';
import { createEngines, engineOptionsFrom, type Engines } from './engines/index.ts';
import { FilePipeline } from './files/file-pipeline.ts';
import type { FileStore } from './files/file-store.ts';
import { openFileStore } from './files/s3-file-store.ts';
import { LinkSigner, loadSigningSecret } from './files/signed-links.ts';
import { CodingJobStore } from './runs/coding-jobs/coding-job-store.ts';
import { JobService } from './runs/workflow/job-service.ts';
import { createFeatureMemory, type FeatureMemory } from './runs/feature-memory/feature-memory.ts';
import { jobReportKey } from './runs/loop/report-signature.ts';
import { PayloadStore } from './runs/payload-store.ts';
import { loadPlaybookRegistry, type PlaybookRegistry } from './runs/playbooks/playbook-registry.ts';
import { RunExecutor } from './runs/run-executor.ts';
import { RunStore } from './runs/run-store.ts';
import { startRunBeats, takeOverRuns } from './runs/run-takeover.ts';
import { WebhookDispatcher } from './runs/webhook-delivery.ts';
import { SecretBox } from './runs/webhook-signature.ts';
import { WebhookStore } from './runs/webhook-store.ts';
import { SessionStore } from './dashboard/session-store.ts';

export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  catalog: Catalog;
  accounts: AccountStore;
  invoker: Invoker;
  /** the per-minute limit of every account: invoke takes from it, and so does every MCP tool call (mcp/tool-guard.ts) */
  rateLimiter: RequestLimiter;
  /** the connection to REDIS_URL, shared by whatever must be shared between nodes; undefined without REDIS_URL */
  redis: RedisConnection | undefined;
  metrics: Metrics;
  ledger: CreditLedger;
  usage: UsageRecorder;
  files: FilePipeline;
  store: FileStore;
  signer: LinkSigner;
  engines: Engines;
  /** worker threads for the tools whose cost grows with their input (core/compute-pool.ts) */
  compute: ComputePool;
  /** the one way the process fetches a URL (src/analysis/): egress rules, limits, a bounded queue */
  fetcher: EgressFetcher;
  /** webhook events (runs call webhooks.emit(accountId, { type: 'mcp.job.finished', data }) when a job finishes) */
  webhooks: WebhookDispatcher;
  /** async runs (invoke_tool async: true): stored in `runs`, executed in this process by runExecutor */
  runs: RunStore;
  runExecutor: RunExecutor;
  /** results kept for fetch_payload */
  payloads: PayloadStore;
  /** the playbooks (skills), checked against the catalog when the services start */
  skills: PlaybookRegistry;
  /** feature memory: features (recordPass on a gate pass), community patterns, playbook profiles */
  featureMemory: FeatureMemory;
  /** frozen coding jobs: a goal, the host's checks and their last submitted results */
  codingJobs: CodingJobStore;
  /** the planner jobs: run_playbook, run_workflow, solve_task, verify_task (src/runs/workflow/) */
  jobs: JobService;
  /** dashboard sign-ins (src/dashboard/), swept on the retention beat */
  sessions: SessionStore;
  /** stops the background beats, the runs, the engines (unless shared) and the database; once */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Replaces the discovered catalog (tests add a tool of a family no real tool has yet). */
  catalog?: Catalog;
  /** Shares one set of engines between several service sets (tests). They are then not closed here. */
  engines?: Engines;
  /**
   * Replaces the fetcher the configuration makes: tests pass the same real fetcher built with
   * their throwaway CA trusted (an operator sets NODE_EXTRA_CA_CERTS instead).
   */
  fetcher?: EgressFetcher;
}

/** Log lines waiting on a slow stdout beyond this are dropped (and counted) rather than held in memory. */
const LOG_BUFFER_LIMIT_BYTES = 16 * 1024 * 1024;

/** The process logger: log lines leave in one write() per event-loop turn (see BatchedLogWriter), not one per line. */
export function createLogger(config: Config): { log: Logger; flush(): void } {
  const destination = new BatchedLogWriter(1, LOG_BUFFER_LIMIT_BYTES);
  return { log: pino({ level: config.logLevel }, destination), flush: () => destination.flushSync() };
}

export async function createServices(config: Config, log: Logger, options: ServiceOptions = {}): Promise<Services> {
  const db = openDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const catalog = options.catalog ?? (await loadCatalog());
  // Playbooks are checked against the catalog here: a broken one stops the start, naming its file.
  const skills = await loadPlaybookRegistry(catalog, undefined, { withTestPlaybooks: config.testPlaybooks });
  const metrics = new Metrics();
  const accounts = new AccountStore(db, { changeCounter: changeCounter(db) });
  // Heartbeats ride on the flushes (at most one a second); a lease is taken for dead on its
  // heartbeat alone only after many of them were missed (see isHolderDead).
  const heartbeatMs = Math.max(1000, config.usageFlushMs);
  const leaseStaleMs = Math.max(30_000, 20 * heartbeatMs);
  const ledger = new CreditLedger(accounts, db, { heartbeatMs, staleMs: leaseStaleMs });
  const usage = new UsageRecorder(ledger);
  // Before the first call: what a process killed on this database had leased and not spent goes back.
  const reclaimedAtStart = await ledger.reclaimDead(Date.now(), true);
  if (reclaimedAtStart > 0) log.info({ credits: reclaimedAtStart }, 'returned the unspent credit leases of a stopped process');
  // FILE_STORE: $DATA_DIR/files, or an S3-compatible bucket that every node shares.
  const store = await openFileStore(config, log);
  const signer = new LinkSigner(loadSigningSecret(config.dataDir, config.fileSigningSecret));
  const files = new FilePipeline({
    workRoot: join(config.dataDir, 'work'),
    store,
    signer,
    publicBaseUrl: config.publicBaseUrl,
    urlTtlSeconds: config.downloadUrlTtlSeconds,
    retentionMs: config.fileRetentionMs,
    outputLimitBytes: config.outputLimitBytes,
    zipLimits: config.zipLimits,
    imageLimits: { maxPixels: config.engines.image.IMAGE_MAX_PIXELS, maxFrames: config.engines.image.IMAGE_MAX_FRAMES },
  });
  const engines =
    options.engines ??
    createEngines({ ...engineOptionsFrom(config.engines), maxQueued: config.engineQueueLimit, jobTimeoutMs: config.engineJobTimeoutMs, zipLimits: config.zipLimits, logger: log });
  const fetcher = options.fetcher ?? egressFetcherFromConfig(config);
  const compute = new ComputePool({ ...config.compute, workers: config.compute.workers || DEFAULT_COMPUTE_WORKERS });
  // With REDIS_URL the limits are counted in Redis for all nodes; the start waits briefly for it,
  // and a Redis that does not answer only means per-node limits until it does (logged, /readyz).
  const redis = config.redisUrl === undefined ? undefined : new RedisConnection(config.redisUrl, log);
  await redis?.connect(2000);
  const rateLimiter: RequestLimiter = redis ? new SharedRateLimiter(redis) : new RateLimiter();
  const invoker = new Invoker({
    compute,
    files,
    fetcher,
    catalog,
    accounts,
    ledger,
    usage,
    rateLimiter,
    metrics,
    toolTimeoutMs: config.toolTimeoutMs,
    idempotencyTtlMs: config.idempotencyTtlMs,
    engines,
    uploadLimitBytes: config.uploadLimitBytes,
    // ai-models' provider (AI_PROVIDER); its calls reach only its configured host (src/ai/provider-fetch.ts).
    ai: config.ai ? createAiProvider(config.ai, config.egress.pins) : undefined,
  });
  // Webhook secrets are sealed under a key derived from the service's signing secret.
  const webhookStore = new WebhookStore(db, new SecretBox(loadSigningSecret(config.dataDir, config.fileSigningSecret)));
  const webhooks = new WebhookDispatcher({ store: webhookStore, fetcher, log });
  const runs = new RunStore(db);
  const payloads = new PayloadStore(db, { ttlMs: config.payloadTtlMs });
  // capture_feature checks a baseline's seal with the per-account key jobReports are sealed with;
  // whatever seals jobReports must use this same key (jobReportKey over the service's signing secret).
  const reportSecret = loadSigningSecret(config.dataDir, config.fileSigningSecret);
  const featureMemory = createFeatureMemory(db, { reportKey: (accountId) => jobReportKey(reportSecret, accountId) });
  const codingJobs = new CodingJobStore(db);
  const jobs = new JobService({ catalog, invoker, files, skills, memory: featureMemory, reportSecret, runs });
  const sessions = new SessionStore(db, config.dashboardSessions);
  const runExecutor = new RunExecutor({ invoker, files, runs, webhooks, holder: ledger.holder, log, concurrency: config.runConcurrency, maxQueued: config.runQueueLimit });
  // Runs a killed process left `accepted` are taken over before any new one (run again when they
  // had not started, else closed as `error` and announced); then on a beat, for other nodes' runs.
  const runTakeover = { runs, executor: runExecutor, accounts, holder: ledger.holder, staleMs: leaseStaleMs, log };
  await takeOverRuns(runTakeover);
  const stopRunBeats = startRunBeats({ ...runTakeover, heartbeatMs, sweepMs: 5 * heartbeatMs });

  // Retention: a sweep at start catches files left from before a restart, then one every few minutes.
  // A storage that does not answer at start must not stop the start; the next beat tries again.
  await store.sweep().catch((err: unknown) => log.error({ err }, 'file sweep failed'));
  await files.sweepWorkDirs();
  const sweepEveryMs = Math.min(10 * 60_000, Math.max(1000, config.fileRetentionMs / 24));
  const sweeper = setInterval(() => {
    store.sweep().catch((err: unknown) => log.error({ err }, 'file sweep failed'));
    files.sweepWorkDirs().catch((err: unknown) => log.error({ err }, 'work folder sweep failed'));
    payloads.sweep().catch((err: unknown) => log.error({ err }, 'payload sweep failed'));
    sessions.sweep().catch((err: unknown) => log.error({ err }, 'dashboard session sweep failed'));
    pruneUsageDays(db).catch((err: unknown) => log.error({ err }, 'usage days prune failed'));
  }, sweepEveryMs);
  sweeper.unref();
  // Usage counts with the leases' consumption, and idle leases, are written back a few times a
  // second, off the hot path; dead processes' leases are reclaimed on the same beat.
  const writer = setInterval(() => {
    usage.flush().catch((err: unknown) => log.error({ err }, 'usage flush failed'));
    ledger.reclaimDead().then(
      (credits) => credits > 0 && log.info({ credits }, 'returned the unspent credit leases of a stopped process'),
      (err: unknown) => log.error({ err }, 'credit lease reclaim failed'),
    );
  }, config.usageFlushMs);
  writer.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(sweeper);
      clearInterval(writer);
      stopRunBeats();
      await runExecutor.close();
      webhooks.close();
      await ledger.close();
      if (!options.engines) await engines.close();
      await compute.close();
      store.close?.();
      await redis?.close();
      await db.destroy();
    })();
    return closing;
  };
  return { config, log, db, catalog, accounts, invoker, rateLimiter, redis, metrics, ledger, usage, files, store, signer, engines, compute, fetcher, webhooks, runs, runExecutor, payloads, skills, featureMemory, codingJobs, jobs, sessions, close };
}
