import type { FastifyInstance } from 'fastify';
import { FEATURE_ID, type FeatureView } from '../runs/feature-memory/feature-store.ts';
import type { DashboardContext } from './dashboard-context.ts';
import type { FeatureBadge } from './feature-badge.ts';
import { historiesOf, historyFrom } from './feature-matrix.ts';
import { featurePage, featuresPage } from './feature-pages.ts';
import { FEATURES_PATH, messagePage } from './pages.ts';

/** Records the page reads, newest first: every feature of a typical account (the memory holds at most 2,000). */
export const FEATURE_PAGE_RECORDS = 500;

/**
 * The feature memory pages: the account's features with their latest gate state and a matrix per
 * day, and one page per feature with its history. Read through the MCP tools' own FeatureStore
 * (list, get: list_feature_memory's and compare_feature_memory's reads), scoped to the account,
 * so another account's featureId is as unknown as one that never existed. Opening the list marks
 * the visit: the nav's "improved" badge counts from then.
 */
export function registerFeatureRoutes(app: FastifyInstance, ctx: DashboardContext & { badge: FeatureBadge }): void {
  const { features } = ctx.featureMemory;

  app.get(FEATURES_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const accountId = visitor.account.id;
    // The marks are those of the badge the person just followed (read by signedIn); the visit then clears it.
    const improved = new Set(ctx.badge.improved(reply));
    const seenAt = await ctx.featureSeen.seenAt(accountId);
    const { features: views, total } = await features.list(accountId, { limit: FEATURE_PAGE_RECORDS });
    await ctx.featureSeen.markSeen(accountId);
    ctx.badge.clear(reply);
    const signedIn = { email: visitor.account.email, csrfToken: visitor.session.csrfToken };
    return ctx.sendPage(reply, 200, featuresPage({ histories: historiesOf(views), total, shown: views.length, improved, seenAt, signedIn }));
  });

  app.get(`${FEATURES_PATH}/:featureId`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const accountId = visitor.account.id;
    const featureId = String((request.params as Record<string, unknown>)['featureId'] ?? '');
    const notFound = () => ctx.sendPage(reply, 404, messagePage('Feature not found', 'This account has no feature with that id.', { href: FEATURES_PATH, label: 'Back to feature memory' }));
    if (!FEATURE_ID.test(featureId)) return notFound();
    const { features: views } = await features.list(accountId, { limit: FEATURE_PAGE_RECORDS });
    const byId = new Map<string, FeatureView>(views.map((v) => [v.featureId, v]));
    let view = byId.get(featureId);
    if (!view) {
      // Older than the records listed: read it and the records before it one by one.
      const feature = await features.get(accountId, featureId);
      if (!feature) return notFound();
      view = { ...feature, superseded: false, supersededBy: null };
      for (let at: FeatureView = view; at.supersedesFeatureId !== null && byId.size < FEATURE_PAGE_RECORDS * 2; ) {
        const previous = await features.get(accountId, at.supersedesFeatureId);
        if (!previous) break;
        at = { ...previous, superseded: true, supersededBy: at.featureId };
        byId.set(at.featureId, at);
      }
    }
    const signedIn = { email: visitor.account.email, csrfToken: visitor.session.csrfToken };
    return ctx.sendPage(reply, 200, featurePage(historyFrom(view, byId), signedIn));
  });
}
