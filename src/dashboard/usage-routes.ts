import type { FastifyInstance } from 'fastify';
import type { DashboardContext } from './dashboard-context.ts';
import { dayOf } from '../accounts/activity-store.ts';
import { currentUsage } from '../accounts/usage-recorder.ts';
import { USAGE_PATH } from './pages.ts';
import { lastChartDay, monthDays } from './usage-chart.ts';
import { usagePage } from './usage-pages.ts';

export function registerUsageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get(USAGE_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const { account, session } = visitor;
    // The same reading as GET /api/v1/usage (flushed first, so its days hold this process's calls too).
    const usage = await currentUsage(ctx, account);
    const days = monthDays(usage.period, lastChartDay(usage.period, dayOf(new Date()), usage.days), usage.days);
    return ctx.sendPage(reply, 200, usagePage(usage, days, { email: account.email, csrfToken: session.csrfToken }));
  });
}
