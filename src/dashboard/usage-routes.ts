import type { FastifyInstance } from 'fastify';
import type { Account } from '../accounts/account-store.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { dayOf } from '../accounts/activity-store.ts';
import { USAGE_PATH, type UsageSummary } from './pages.ts';
import { lastChartDay, monthDays } from './usage-chart.ts';
import { usagePage } from './usage-pages.ts';

/**
 * The account's usage as GET /api/v1/usage computes it: counts this process holds are written
 * first, and `used` includes what its credit leases hold unspent. The overview and the usage page
 * both read it here.
 */
export async function usageOf(ctx: DashboardContext, account: Account): Promise<UsageSummary> {
  await ctx.usage.flush();
  return ctx.accounts.usageSummary(account, await ctx.ledger.used(account.id));
}

export function registerUsageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get(USAGE_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const { account, session } = visitor;
    // usageOf flushed first, so the days hold this process's calls too; '-31' bounds any month.
    const usage = await usageOf(ctx, account);
    const rows = await ctx.accounts.usageDays(account.id, `${usage.period}-01`, `${usage.period}-31`);
    const days = monthDays(usage.period, lastChartDay(usage.period, dayOf(new Date()), rows), rows);
    return ctx.sendPage(reply, 200, usagePage(usage, days, { email: account.email, csrfToken: session.csrfToken }));
  });
}
