// The nav's "N improved" badge on every signed-in page. Each page module renders the nav without
// knowing the count (sectionsNav leaves IMPROVED_BADGE_SLOT in the feature memory link), so the
// badge is filled here, once for all of them: signedIn() reads the count for the visitor (one
// query, feature-seen.ts) and sendPage() puts it in the slot, or removes the slot. Page content is
// escaped by html``, so the slot (a literal comment) can only come from the nav itself.
import type { FastifyReply } from 'fastify';
import type { DashboardContext } from './dashboard-context.ts';
import type { FeatureSeenStore } from './feature-seen.ts';
import { html } from './html.ts';
import { IMPROVED_BADGE_SLOT } from './pages.ts';

/** "2 improved", inside the link so its accessible name reads "Feature memory, 2 improved". */
export function improvedBadge(count: number): string {
  if (count <= 0) return '';
  return html`<span class="badge"><span class="visually-hidden">, </span>${String(count)} improved</span>`.text;
}

export interface FeatureBadge {
  /** The improved features' current record ids read for this answer's badge (none before signedIn). */
  improved(reply: FastifyReply): readonly string[];
  /** Clears the badge of this answer: the feature memory page's visit clears it. */
  clear(reply: FastifyReply): void;
}

/** The context with the badge filled on every page it sends; `seen` reads the count. */
export function withFeatureBadge(ctx: DashboardContext, seen: FeatureSeenStore): DashboardContext & { badge: FeatureBadge } {
  const improved = new WeakMap<FastifyReply, readonly string[]>();
  return {
    ...ctx,
    async signedIn(request, reply) {
      const visitor = await ctx.signedIn(request, reply);
      if (visitor) improved.set(reply, await seen.improved(visitor.account.id));
      return visitor;
    },
    sendPage(reply, status, body) {
      return ctx.sendPage(reply, status, body.replace(IMPROVED_BADGE_SLOT, improvedBadge(improved.get(reply)?.length ?? 0)));
    },
    badge: {
      improved: (reply) => improved.get(reply) ?? [],
      clear(reply) {
        improved.set(reply, []);
      },
    },
  };
}
