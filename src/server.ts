import { searchTools } from './mcp/tool-search.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sql } from 'kysely';
import { createMailer } from './accounts/mailer.ts';
import type { Config } from './config.ts';
import { accountRoutes, ownerAuthenticator } from './rest/account-routes.ts';
import { AttemptLimiter, keylessLimiter } from './accounts/attempt-limiter.ts';
import { conversionRoutes } from './rest/conversion-routes.ts';
import { installBodyParsers } from './rest/body-parsers.ts';
import { MAX_PATH_SEGMENT_CHARS, clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './rest/http-errors.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { mountRoutes, type RouteSpec } from './rest/route-spec.ts';
import { RequestObserver } from './rest/request-observer.ts';
import { slowClientServerOptions, watchBodyPace } from './rest/body-pace.ts';
import { redactUrl } from './core/log-redaction.ts';
import { registerToolRoutes } from './rest/tool-routes.ts';
import { registerMcpRoutes } from './mcp/mcp-routes.ts';
import { registerDownloadRoute } from './rest/file-routes.ts';
import { storageStatus } from './files/file-store.ts';
import { webhookRoutes } from './rest/webhook-routes.ts';
import { createLogger, createServices, type ServiceOptions, type Services } from './services.ts';
import { prefersHtml } from './dashboard/front-page.ts';
import { registerDashboard, sendFrontPage } from './dashboard/dashboard-routes.ts';
import { FeatureSeenStore } from './dashboard/feature-seen.ts';

export type { Services, ServiceOptions } from './services.ts';

export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** How long /readyz waits for the file storage: under a load balancer's usual probe timeout (5 s). */
const READYZ_STORAGE_TIMEOUT_MS = 2000;

/**
 * Mounts the surfaces on the services: REST (tools, accounts, keys, webhooks, downloads, docs) and
 * MCP. The app owns the services from here: closing it closes them.
 */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, log, catalog, invoker, accounts, ledger, usage, metrics, store, signer, engines, fetcher, db } = services;
  const observer = new RequestObserver(metrics);
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // Slow clients: header and whole-request timeouts, checked often (rest/body-pace.ts).
    http: slowClientServerOptions(config.slowClients),
    requestTimeout: config.slowClients.requestTimeoutMs,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    // Router and HTTP-parser failures answer the JSON error envelope with an X-Request-Id too,
    // and the observer gives each its access line and count (Fastify records neither).
    frameworkErrors: frameworkErrorHandler(observer),
    clientErrorHandler: clientErrorHandler(observer),
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_CHARS },
    // One log line and the metrics per request, without an onResponse hook.
    logController: observer,
    // A caller's own X-Request-Id is kept when it is sane, so it can follow one call through logs.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  // A callback-style hook: on every request, an async hook's promise is measurable overhead.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Kept on its connection until it finishes: a client that leaves first still gets its line.
    observer.opened(reply);
    done();
  });
  observer.watch(app.server);
  watchBodyPace(app.server, config.slowClients, (request, bytes) => {
    app.log.warn({ method: request.method, url: redactUrl(request.url ?? ''), bytesInWindow: bytes }, 'request body too slow; connection closed');
  });
  app.addHook('onClose', () => services.close());
  installErrorHandlers(app, config.bodyLimitBytes, (family, slug) =>
    searchTools(catalog.tools, { query: `${family} ${slug}`.replace(/[-_]/g, ' '), pageSize: 3 })
      .tools.flatMap((t) => {
        const tool = catalog.get(t.operationId);
        return tool === undefined ? [] : [`/api/v1/${tool.family}/${tool.slug}`];
      }),
  );
  installBodyParsers(app);

  const attempts = new AttemptLimiter(services.db, config.attemptLimits);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.smtpFrom, outboxDir: join(config.dataDir, 'outbox'), log: app.log });
  const routes: RouteSpec[] = [
    ...accountRoutes({ accounts, ledger, usage, invoker, mailer, catalog, publicBaseUrl: config.publicBaseUrl, attempts }),
    ...conversionRoutes(catalog, config),
    ...webhookRoutes({ invoker, webhooks: services.webhooks, egress: config.egress }),
  ];
  mountRoutes(app, routes, {
    keyless: keylessLimiter(services.rateLimiter, config.keylessRequestsPerMinute),
    apiKey: (request) => {
      const key = request.headers['x-api-key'];
      return invoker.authenticate(Array.isArray(key) ? key[0] : key);
    },
    apiKeyOrPassword: ownerAuthenticator({ accounts, invoker, attempts }),
  });
  await registerToolRoutes(app, catalog, invoker, {
    uploadLimitBytes: config.uploadLimitBytes,
    store,
    files: services.files,
    binaryDeliveryDeprecatedAt: config.binaryDeliveryDeprecatedAt,
    binaryDeliverySunsetAt: config.binaryDeliverySunsetAt,
    publicBaseUrl: config.publicBaseUrl,
  });
  registerDownloadRoute(app, store, signer, config.downloadUrlTtlSeconds);
  registerMcpRoutes(app, {
    catalog,
    invoker,
    rateLimiter: services.rateLimiter,
    accounts,
    sse: config.mcpSse,
    publicBaseUrl: config.publicBaseUrl,
    version: VERSION,
    progressIntervalMs: config.mcpProgressIntervalMs,
    runs: { executor: services.runExecutor, runs: services.runs, payloads: services.payloads },
    skills: services.skills,
    featureMemory: services.featureMemory,
    codingJobs: services.codingJobs,
    jobs: services.jobs,
    files: { pipeline: services.files },
    bodyLimitBytes: config.mcpBodyLimitBytes,
  });

  const openapi = buildOpenApi(catalog, routes, { publicBaseUrl: config.publicBaseUrl, version: VERSION });
  // The document and the docs page are the heaviest text the service sends (1.2 MB of JSON, a
  // 1.5 MB script bundle): compressed for clients that accept it, in their own scope so tool
  // answers and MCP streams are sent as they are.
  await app.register(async (docs) => {
    await docs.register(compress, {
      global: true,
      threshold: 1024,
      encodings: ['br', 'gzip'],
      // Brotli's default quality (11) takes over a second on 1.2 MB; 5 keeps most of the gain.
      brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } },
      customTypes: /^(application\/json|application\/javascript|text\/(html|css|javascript|plain))\b/,
    });
    await docs.register(swagger, { mode: 'static', specification: { document: openapi as never } });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // filter: a search box over the operations; the tags come in the document's order (openapi-tags.ts).
      uiConfig: { docExpansion: 'list', deepLinking: true, filter: true },
      theme: { title: 'Utility Tool Service API', favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: DOCS_LOGO }] },
      logo: { type: 'image/svg+xml', content: DOCS_LOGO, href: '/docs', target: '_self' },
    });
    // Serialised once: every request would otherwise stringify the whole document again.
    const openapiText = JSON.stringify(openapi);
    docs.get('/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(openapiText));
    // The dashboard's pages and stylesheet are compressed like the docs (src/dashboard/).
    await registerDashboard(docs, { accounts, ledger, usage, catalog, webhooks: services.webhooks, egress: config.egress, playground: { invoker, files: services.files, uploadLimitBytes: config.uploadLimitBytes, multipart }, sessions: services.sessions, attempts, mailer, publicBaseUrl: config.publicBaseUrl, featureMemory: services.featureMemory, featureSeen: new FeatureSeenStore(services.db) });
  });

  // A browser (Accept preferring text/html) gets the product page; API clients keep the JSON.
  app.get('/', async (request, reply) => {
    reply.header('Vary', 'Accept');
    if (prefersHtml(request.headers.accept)) return sendFrontPage(reply, config.publicBaseUrl);
    return rootDocument;
  });
  const rootDocument = {
    name: 'Utility Tool Service',
    version: VERSION,
    docs: `${config.publicBaseUrl}/docs`,
    openapi: `${config.publicBaseUrl}/openapi.json`,
    tools: `${config.publicBaseUrl}/api/v1/tools`,
    mcp: `${config.publicBaseUrl}/mcp`,
  };
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, { state: string; detail?: string }> = {};
    // Asked while the database answers. Every stored result goes through it (a bucket, or the
    // local results folder), so a failed storage is not_ready like the database; the timeout keeps
    // the probe answering when the storage hangs.
    const storage = storageStatus(store, READYZ_STORAGE_TIMEOUT_MS);
    try {
      await sql`select 1`.execute(db);
      checks['database'] = { state: 'ready' };
    } catch (err) {
      checks['database'] = { state: 'failed', detail: err instanceof Error ? err.message : String(err) };
    }
    checks['storage'] = await storage;
    // Redis out is degraded, not failed: each node then limits on its own and serves on.
    if (services.redis) checks['redis'] = services.redis.status();
    const ready = Object.values(checks).every((c) => c.state !== 'failed');
    // A missing engine only disables its own tools (they answer 503), so it is listed, not fatal.
    const engineList = await engines.engineStatus();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', version: VERSION, tools: catalog.tools.length, checks, engines: engineList, compute: services.compute.status(), fetcher: fetcher.status() });
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
  return app;
}

/** The whole service from its configuration: the logger, the services, and the app on top. */
/** The docs page's mark: the product's own, not the framework's. */
const DOCS_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32" viewBox="0 0 160 32"><rect width="32" height="32" rx="7" fill="#1f6f5c"/>' +
    '<path d="M9 10h14M9 16h10M9 22h14" stroke="#fff" stroke-width="3" stroke-linecap="round"/>' +
    '<text x="40" y="21" font-family="sans-serif" font-size="14" font-weight="600" fill="#fff">Utility Tool Service</text></svg>',
);

export async function createApp(config: Config, options: ServiceOptions = {}): Promise<{ app: FastifyInstance; services: Services }> {
  const { log, flush } = createLogger(config);
  const services = await createServices(config, log, options);
  const app = await buildApp(services);
  // Last: the final log lines leave after everything else has closed.
  app.addHook('onClose', (_instance, done) => {
    flush();
    done();
  });
  return { app, services };
}
