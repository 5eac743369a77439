import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { AccountStore } from './accounts/account-store.ts';
import { bootstrapAccount } from './accounts/bootstrap.ts';
import { PLAN_IDS } from './accounts/plans.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { loadCatalog } from './core/catalog.ts';
import { isServiceError } from './core/errors.ts';
import { migrateToLatest, openDatabase } from './db/database.ts';
import { createApp } from './server.ts';

const USAGE = `Usage: tool-service <command>

  serve                                   start the HTTP service (settings from the environment)
  migrate                                 apply database migrations
  accounts create --email E [--plan P] [--verified] [--quota N] [--rate-limit N]
  accounts set-plan --account ID --plan P
  keys create --account ID [--name N] [--tools op1,op2] [--manage-keys]
  keys revoke --key ID

Plans: ${PLAN_IDS.join(', ')}. See docs/configuration.md for the environment variables.`;

class UsageError extends Error {}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

function required(name: string, value: string | undefined): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

async function withStore<T>(config: Config, fn: (store: AccountStore) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db);
    return await fn(new AccountStore(db));
  } finally {
    await db.destroy();
  }
}

async function serve(config: Config): Promise<void> {
  const { app, services } = await createApp(config);
  if (config.bootstrapAccount) {
    const boot = await bootstrapAccount(services.accounts, { dataDir: config.dataDir, email: config.bootstrapEmail });
    if (boot) {
      // The secret appears once, on the first start only (stdout may be collected with the logs);
      // the example reads it from the file rather than printing it a second time.
      process.stdout.write(
        `\nFirst start: created local account ${config.bootstrapEmail} (verified, free plan).\n` +
          `API key (shown once, also written to ${boot.file}):\n\n  ${boot.apiKey}\n\n` +
          `Try: curl -s -X POST ${config.publicBaseUrl}/api/v1/calculators/emi-calculator -H "X-Api-Key: $(cat '${boot.file}')" ` +
          `-H 'Content-Type: application/json' -d '{"principal":100000,"rate":10,"tenure":12}'\n\n`,
      );
    }
  }
  const shutdown = (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await app.listen({ port: config.port, host: config.host });
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  const args = (options: ParseArgsOptionsConfig, list: string[]) => parseArgs({ args: list, options, strict: true }).values as Record<string, string | boolean | undefined>;

  if (command === 'serve') return serve(config);
  if (command === 'migrate') {
    const db = openDatabase(config.databaseUrl);
    try {
      print({ applied: await migrateToLatest(db) });
    } finally {
      await db.destroy();
    }
    return;
  }
  if (command === 'accounts' && sub === 'create') {
    const v = args({ email: { type: 'string' }, plan: { type: 'string' }, verified: { type: 'boolean' }, quota: { type: 'string' }, 'rate-limit': { type: 'string' }, password: { type: 'string' } }, rest);
    const result = await withStore(config, async (store) => {
      const account = await store.createAccount({
        email: required('email', v['email'] as string | undefined),
        plan: v['plan'] as string | undefined,
        password: v['password'] as string | undefined,
        verified: v['verified'] === true,
        quota: positiveInt('quota', v['quota'] as string | undefined),
        rateLimit: positiveInt('rate-limit', v['rate-limit'] as string | undefined),
      });
      const { key, secret } = await store.createKey({ accountId: account.id, name: 'default', canManageKeys: true });
      return { accountId: account.id, apiKey: secret, keyId: key.id };
    });
    return print(result);
  }
  if (command === 'accounts' && sub === 'set-plan') {
    const v = args({ account: { type: 'string' }, plan: { type: 'string' } }, rest);
    const account = await withStore(config, (store) => store.setPlan(required('account', v['account'] as string | undefined), required('plan', v['plan'] as string | undefined)));
    return print({ accountId: account.id, plan: account.plan });
  }
  if (command === 'keys' && sub === 'create') {
    const v = args({ account: { type: 'string' }, name: { type: 'string' }, tools: { type: 'string' }, 'manage-keys': { type: 'boolean' } }, rest);
    const accountId = required('account', v['account'] as string | undefined);
    const result = await withStore(config, async (store) => {
      if (!(await store.getAccount(accountId))) throw new UsageError(`no account ${accountId}`);
      const tools = typeof v['tools'] === 'string' ? v['tools'].split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      if (tools) {
        const catalog = await loadCatalog();
        const unknown = tools.filter((id) => !catalog.get(id));
        if (unknown.length > 0) throw new UsageError(`unknown operationIds: ${unknown.join(', ')}`);
      }
      const { key, secret } = await store.createKey({ accountId, name: v['name'] as string | undefined, tools, canManageKeys: v['manage-keys'] === true });
      return { keyId: key.id, apiKey: secret };
    });
    return print(result);
  }
  if (command === 'keys' && sub === 'revoke') {
    const v = args({ key: { type: 'string' } }, rest);
    const key = await withStore(config, (store) => store.revokeKey(required('key', v['key'] as string | undefined)));
    return print({ keyId: key.id, revokedAt: key.revokedAt });
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`tool-service: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    process.stderr.write(`tool-service: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (isServiceError(err)) {
    process.stderr.write(`tool-service: ${err.message}${err.detail !== err.message ? ` (${err.detail})` : ''}\n`);
    // Bad input (an unknown plan, a taken e-mail) is a usage error like a bad flag: exit 2.
    process.exit(err.status < 500 ? 2 : 1);
  }
  process.stderr.write(`tool-service: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
