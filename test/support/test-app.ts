import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { CreateAccountInput } from '../../src/accounts/account-store.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { createApp, type Services } from '../../src/server.ts';
import type { EgressFetcher } from '../../src/analysis/fetch-supervisor.ts';
import { testPostgresCluster, testsUsePostgres } from './postgres-cluster.ts';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  config: Config;
  dataDir: string;
  /** Creates an account (verified unless said otherwise) and a key that may manage keys. */
  account(input?: Partial<CreateAccountInput> & { tools?: string[] }): Promise<{ accountId: string; apiKey: string; keyId: string }>;
  /** POSTs JSON to a path with an API key through the real Fastify request pipeline. */
  call(path: string, body: unknown, apiKey?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let counter = 0;
const databaseByDataDir = new Map<string, string>();

/**
 * A real app in a fresh temp DATA_DIR, on a real SQLite file there, or with TEST_DATABASE=postgres
 * on a fresh database of the test process's PostgreSQL cluster (see postgres-cluster.ts), dropped
 * on close. A DATABASE_URL in `env` wins over both.
 */
export async function startTestApp(options: { catalog?: Catalog; env?: Record<string, string>; fetcher?: EgressFetcher } = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tool-service-test-'));
  const cluster = testsUsePostgres() && options.env?.DATABASE_URL === undefined ? await testPostgresCluster() : undefined;
  // A test that restarts an app on the DATA_DIR it passes expects the database it had: it is kept
  // (not dropped on close) and given again for that folder.
  const reusedDir = options.env?.DATA_DIR;
  let databaseUrl = reusedDir === undefined ? undefined : databaseByDataDir.get(reusedDir);
  if (cluster && databaseUrl === undefined) {
    databaseUrl = await cluster.createDatabase();
    // Under the folder the app runs on, so a second app given this one's dataDir (another node on
    // the same data) shares its database too, as it would share the SQLite file there.
    databaseByDataDir.set(reusedDir ?? dataDir, databaseUrl);
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://localhost:8080',
    ENGINES_WARM_ON_START: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });
  const { app, services } = await createApp(config, { ...(options.catalog ? { catalog: options.catalog } : {}), ...(options.fetcher ? { fetcher: options.fetcher } : {}) });
  await app.ready();
  return {
    app,
    services,
    config,
    dataDir,
    async account(input = {}) {
      const account = await services.accounts.createAccount({
        email: input.email ?? `user${++counter}-${Date.now()}@example.com`,
        verified: input.verified ?? true,
        plan: input.plan,
        quota: input.quota,
        rateLimit: input.rateLimit ?? 100_000,
        password: input.password,
      });
      const { key, secret } = await services.accounts.createKey({ accountId: account.id, tools: input.tools ?? null, canManageKeys: true });
      return { accountId: account.id, apiKey: secret, keyId: key.id };
    },
    call(path, body, apiKey, headers = {}) {
      return app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
        payload: JSON.stringify(body),
      });
    },
    async close() {
      const closing = app.close();
      // A test has no request in flight when it closes; a client's keep-alive socket that the
      // server has not yet marked idle would otherwise hold close() for the keep-alive timeout (72 s).
      app.server.closeAllConnections();
      await closing;
      rmSync(dataDir, { recursive: true, force: true });
      if (cluster && databaseUrl && reusedDir === undefined) {
        databaseByDataDir.delete(dataDir);
        await cluster.dropDatabase(databaseUrl);
      }
    },
  };
}
