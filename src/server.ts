import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sql } from 'kysely';
import { AccountStore } from './accounts/account-store.ts';
import { createMailer } from './accounts/mailer.ts';
import { RateLimiter } from './accounts/rate-limiter.ts';
import type { Config } from './config.ts';
import { loadCatalog, type Catalog } from './core/catalog.ts';
import { Invoker } from './core/invoke.ts';
import { BatchedLogWriter } from './core/log-writer.ts';
import { Metrics } from './core/metrics.ts';
import { changeCounter, migrateToLatest, openDatabase, type Db } from './db/database.ts';
import { CreditLedger } from './accounts/credit-ledger.ts';
import { UsageRecorder } from './accounts/usage-recorder.ts';
import { accountRoutes, ownerAuthenticator } from './rest/account-routes.ts';
import { conversionRoutes } from './rest/conversion-routes.ts';
import { installBodyParsers } from './rest/body-parsers.ts';
import { MAX_PATH_SEGMENT_CHARS, clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './rest/http-errors.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { mountRoutes, type RouteSpec } from './rest/route-spec.ts';
import { RequestObserver } from './rest/request-observer.ts';
import { registerToolRoutes } from './rest/tool-routes.ts';
import { registerMcpRoutes } from './mcp/mcp-routes.ts';
import { loadPlaybookRegistry } from './runs/playbooks/playbook-registry.ts';
import { registerDownloadRoute } from './rest/file-routes.ts';
import { createEngines, type Engines } from './engines/index.ts';
import { egressFetcherFromConfig, type EgressFetcher } from './analysis/fetch-supervisor.ts';
import { FilePipeline } from './files/file-pipeline.ts';
import { LocalFileStore, type FileStore } from './files/file-store.ts';
import { LinkSigner, loadSigningSecret } from './files/signed-links.ts';
import { webhookRoutes } from './rest/webhook-routes.ts';
import { WebhookDispatcher } from './runs/webhook-delivery.ts';
import { SecretBox } from './runs/webhook-signature.ts';
import { WebhookStore } from './runs/webhook-store.ts';
import { PayloadStore } from './runs/payload-store.ts';
import { RunExecutor } from './runs/run-executor.ts';
import { RunStore } from './runs/run-store.ts';

export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface Services {
  config: Config;
  db: Db;
  catalog: Catalog;
  accounts: AccountStore;
  invoker: Invoker;
  metrics: Metrics;
  ledger: CreditLedger;
  usage: UsageRecorder;
  files: FilePipeline;
  store: FileStore;
  engines: Engines;
  /** the one way the process fetches a URL (src/analysis/): egress rules, limits, a bounded queue */
  fetcher: EgressFetcher;
  /** webhook events (runs call webhooks.emit(accountId, { type: 'mcp.job.finished', data }) when a job finishes) */
  webhooks: WebhookDispatcher;
  /** async runs (invoke_tool async: true): stored in `runs`, executed in this process by runExecutor */
  runs: RunStore;
  runExecutor: RunExecutor;
  /** results kept for fetch_payload */
  payloads: PayloadStore;
}

export interface BuildOptions {
  /** Replaces the discovered catalog (tests add a tool of a family no real tool has yet). */
  catalog?: Catalog;
  /** Shares one set of engines between several apps (tests). The app then does not close them. */
  engines?: Engines;
  /**
   * Replaces the fetcher the configuration makes: tests pass the same real fetcher built with
   * their throwaway CA trusted (an operator sets NODE_EXTRA_CA_CERTS instead).
   */
  fetcher?: EgressFetcher;
}

/** Log lines waiting on a slow stdout beyond this are dropped (and counted) rather than held in memory. */
const LOG_BUFFER_LIMIT_BYTES = 16 * 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<{ app: FastifyInstance; services: Services }> {
  const db = openDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const catalog = options.catalog ?? (await loadCatalog());
  const metrics = new Metrics();
  const accounts = new AccountStore(db, { changeCounter: changeCounter(db) });
  // Heartbeats ride on the flushes (at most one a second); a lease is taken for dead on its
  // heartbeat alone only after many of them were missed (see isHolderDead).
  const heartbeatMs = Math.max(1000, config.usageFlushMs);
  const ledger = new CreditLedger(accounts, db, { heartbeatMs, staleMs: Math.max(30_000, 20 * heartbeatMs) });
  const usage = new UsageRecorder(ledger);
  // Before the first call: what a process killed on this database had leased and not spent goes back.
  const reclaimedAtStart = await ledger.reclaimDead(Date.now(), true);
  const store = new LocalFileStore(join(config.dataDir, 'files'));
  const signer = new LinkSigner(loadSigningSecret(config.dataDir, config.fileSigningSecret));
  const files = new FilePipeline({
    workRoot: join(config.dataDir, 'work'),
    store,
    signer,
    publicBaseUrl: config.publicBaseUrl,
    urlTtlSeconds: config.downloadUrlTtlSeconds,
    retentionMs: config.fileRetentionMs,
    outputLimitBytes: config.outputLimitBytes,
    binaryDeliverySunsetAt: config.binaryDeliverySunsetAt,
  });

  // Log lines leave in one write() per event-loop turn (see BatchedLogWriter), not one per line.
  const logDestination = new BatchedLogWriter(1, LOG_BUFFER_LIMIT_BYTES);
  const logger = pino({ level: config.logLevel }, logDestination);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    // Router and HTTP-parser failures answer the JSON error envelope with an X-Request-Id too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_CHARS },
    // One log line and the metrics per finished request, without an onResponse hook.
    logController: new RequestObserver(metrics),
    // A caller's own X-Request-Id is kept when it is sane, so it can follow one call through logs.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  const engineLimits = { maxQueued: config.engineQueueLimit, jobTimeoutMs: config.engineJobTimeoutMs };
  const engines =
    options.engines ??
    createEngines({
      libreoffice: { ...engineLimits, instances: config.libreofficeInstances, soffice: config.libreofficeProgram },
      chromium: { ...engineLimits, executablePath: config.chromiumProgram },
      pandoc: engineLimits,
      poppler: engineLimits,
      logger: app.log,
    });
  const fetcher = options.fetcher ?? egressFetcherFromConfig(config);
  const invoker = new Invoker({
    files,
    fetcher,
    catalog,
    accounts,
    ledger,
    usage,
    rateLimiter: new RateLimiter(),
    metrics,
    toolTimeoutMs: config.toolTimeoutMs,
    idempotencyTtlMs: config.idempotencyTtlMs,
    engines,
  });
  // Webhook secrets are sealed under a key derived from the service's signing secret.
  const webhookStore = new WebhookStore(db, new SecretBox(loadSigningSecret(config.dataDir, config.fileSigningSecret)));
  const webhooks = new WebhookDispatcher({ store: webhookStore, fetcher, log: app.log });
  const runs = new RunStore(db);
  const payloads = new PayloadStore(db, { ttlMs: config.payloadTtlMs });
  const runExecutor = new RunExecutor({ invoker, runs, webhooks, holder: ledger.holder, log: app.log, concurrency: config.runConcurrency, maxQueued: config.runQueueLimit });
  // Runs a killed process left `accepted` are closed as `error` (and announced) before any new one.
  for (const run of await runs.sweepDead()) {
    app.log.warn({ runId: run.runId }, 'closed a run left in flight by a stopped process');
    runExecutor.announce(run.accountId, run);
  }
  const services: Services = { config, db, catalog, accounts, invoker, metrics, ledger, usage, files, store, engines, fetcher, webhooks, runs, runExecutor, payloads };

  // A callback-style hook: on every request, an async hook's promise is measurable overhead.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  // Retention: a sweep at start catches files left from before a restart, then one every few minutes.
  await store.sweep();
  await files.sweepWorkDirs();
  const sweepEveryMs = Math.min(10 * 60_000, Math.max(1000, config.fileRetentionMs / 24));
  // Usage counts with the leases' consumption, and idle leases, are written back a few times a
  // second, off the hot path; dead processes' leases are reclaimed on the same beat.
  const writer = setInterval(() => {
    usage.flush().catch((err: unknown) => app.log.error({ err }, 'usage flush failed'));
    ledger.reclaimDead().then(
      (credits) => credits > 0 && app.log.info({ credits }, 'returned the unspent credit leases of a stopped process'),
      (err: unknown) => app.log.error({ err }, 'credit lease reclaim failed'),
    );
  }, config.usageFlushMs);
  writer.unref();
  if (reclaimedAtStart > 0) app.log.info({ credits: reclaimedAtStart }, 'returned the unspent credit leases of a stopped process');
  const sweeper = setInterval(() => {
    store.sweep().catch((err: unknown) => app.log.error({ err }, 'file sweep failed'));
    files.sweepWorkDirs().catch((err: unknown) => app.log.error({ err }, 'work folder sweep failed'));
    payloads.sweep().catch((err: unknown) => app.log.error({ err }, 'payload sweep failed'));
  }, sweepEveryMs);
  sweeper.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    clearInterval(writer);
    await runExecutor.close();
    webhooks.close();
    await ledger.close();
    if (!options.engines) await engines.close();
    await db.destroy();
    logDestination.flushSync();
  });
  installErrorHandlers(app, config.bodyLimitBytes);
  installBodyParsers(app);

  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.smtpFrom, outboxDir: join(config.dataDir, 'outbox'), log: app.log });
  const routes: RouteSpec[] = [
    ...accountRoutes({ accounts, ledger, usage, invoker, mailer, catalog, publicBaseUrl: config.publicBaseUrl }),
    ...conversionRoutes(catalog, config),
    ...webhookRoutes({ invoker, webhooks, egress: config.egress }),
  ];
  mountRoutes(app, routes, {
    apiKey: (request) => {
      const key = request.headers['x-api-key'];
      return invoker.authenticate(Array.isArray(key) ? key[0] : key);
    },
    apiKeyOrPassword: ownerAuthenticator({ accounts, invoker }),
  });
  await registerToolRoutes(app, catalog, invoker, {
    uploadLimitBytes: config.uploadLimitBytes,
    store,
    binaryDeliveryDeprecatedAt: config.binaryDeliveryDeprecatedAt,
    binaryDeliverySunsetAt: config.binaryDeliverySunsetAt,
    publicBaseUrl: config.publicBaseUrl,
  });
  registerDownloadRoute(app, store, signer);
  // Playbooks are checked against the catalog here: a broken one stops the start, naming its file.
  const skills = await loadPlaybookRegistry(catalog);
  registerMcpRoutes(app, { catalog, invoker, publicBaseUrl: config.publicBaseUrl, version: VERSION, runs: { executor: runExecutor, runs, payloads }, skills, files: { uploadLimitBytes: config.uploadLimitBytes, fetcher } });

  const openapi = buildOpenApi(catalog, routes, { publicBaseUrl: config.publicBaseUrl, version: VERSION });
  await app.register(swagger, { mode: 'static', specification: { document: openapi as never } });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', async () => openapi);

  app.get('/', async () => ({
    name: 'Utility Tool Service',
    version: VERSION,
    docs: `${config.publicBaseUrl}/docs`,
    openapi: `${config.publicBaseUrl}/openapi.json`,
    tools: `${config.publicBaseUrl}/api/v1/tools`,
  }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, { state: string; detail?: string }> = {};
    try {
      await sql`select 1`.execute(db);
      checks['database'] = { state: 'ready' };
    } catch (err) {
      checks['database'] = { state: 'failed', detail: err instanceof Error ? err.message : String(err) };
    }
    const ready = Object.values(checks).every((c) => c.state === 'ready');
    // A missing engine only disables its own tools (they answer 503), so it is listed, not fatal.
    const engineList = await engines.engineStatus();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', version: VERSION, tools: catalog.tools.length, checks, engines: engineList, fetcher: fetcher.status() });
  });
  app.get('/metrics', async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  if (config.enginesWarmOnStart) {
    // Warm engines in the background: the service answers at once, the first conversion is fast.
    app.addHook('onReady', async () => {
      engines.warm().catch((err: unknown) => app.log.warn({ err }, 'engine warm-up failed'));
    });
  }
  return { app, services };
}
