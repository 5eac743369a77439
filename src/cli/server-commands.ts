// serve and migrate. serve prints, on the first start only, the local operator's account and its
// key (bootstrap.ts): the one place that secret appears.
import { bootstrapAccount } from '../accounts/bootstrap.ts';
import { getPlan } from '../accounts/plans.ts';
import { migrateToLatest, openDatabase } from '../db/database.ts';
import { createApp } from '../server.ts';
import type { CommandSpec } from './cli-spec.ts';

export const serveCommand: CommandSpec = {
  path: ['serve'],
  summary: 'start the HTTP API and MCP server',
  description:
    'Settings come from the environment (PORT, default 8080; HOST, default 0.0.0.0; DATA_DIR, default ./data; ' +
    'PUBLIC_BASE_URL; DATABASE_URL; see docs/configuration.md). On the first start with an empty database it creates ' +
    "the local operator's account and prints its key once.",
  options: [],
  examples: ['PORT=8080 tool-service serve'],
  async run(_values, ctx) {
    const config = ctx.config();
    const { app, services } = await createApp(config);
    if (config.bootstrapAccount) {
      const boot = await bootstrapAccount(services.accounts, { dataDir: config.dataDir, email: config.bootstrapEmail });
      if (boot) {
        const plan = getPlan(boot.plan);
        const limits = plan ? `${plan.monthlyCredits.toLocaleString('en-US')} credits a month, ${plan.requestsPerMinute.toLocaleString('en-US')} requests a minute` : '';
        // The secret appears once, on the first start only (stdout may be collected with the logs);
        // the example reads it from the file rather than printing it a second time.
        ctx.write(
          `\nFirst start: created the local operator's account ${config.bootstrapEmail}\n` +
            `  account id: ${boot.accountId}\n  plan: ${boot.plan} (${limits}), verified\n` +
            `API key (shown once, also written to ${boot.file}):\n\n  ${boot.apiKey}\n\n` +
            `Try: curl -s -X POST ${config.publicBaseUrl}/api/v1/calculators/emi-calculator -H "X-Api-Key: $(cat '${boot.file}')" ` +
            `-H 'Content-Type: application/json' -d '{"principal":100000,"rate":10,"tenure":12}'\n` +
            `Accounts: tool-service accounts show --account ${boot.accountId}\n\n`,
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
  },
};

export const migrateCommand: CommandSpec = {
  path: ['migrate'],
  summary: 'apply the database migrations (serve applies them too)',
  options: [],
  async run(_values, ctx) {
    const db = openDatabase(ctx.config().databaseUrl);
    try {
      ctx.print({ applied: await migrateToLatest(db) });
    } finally {
      await db.destroy();
    }
  },
};
