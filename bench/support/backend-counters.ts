/**
 * What the shared engines were asked to do, read from their own counters: PostgreSQL's committed
 * and rolled-back transactions in one database (pg_stat_database) and Redis's commands processed
 * (INFO stats). Divided by the answers served, they say how many round trips each call costs.
 *
 * PostgreSQL's backends report their counts at most once a second, so a reading is up to a second
 * behind: read it over a span of several seconds, and wait a moment before the last reading.
 */
import { Redis } from 'ioredis';
import pg from 'pg';

export interface BackendCounters {
  read(): Promise<{ pgTransactions: number; redisCommands: number }>;
  close(): Promise<void>;
}

export async function backendCounters(databaseUrl: string, redisUrl: string): Promise<BackendCounters> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  return {
    async read() {
      const { rows } = await client.query<{ n: string }>('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()');
      const info = await redis.info('stats');
      const commands = /^total_commands_processed:(\d+)/m.exec(info);
      return { pgTransactions: Number(rows[0]?.n ?? Number.NaN), redisCommands: Number(commands?.[1] ?? Number.NaN) };
    },
    async close() {
      await client.end();
      redis.disconnect();
    },
  };
}
