// The feature memory page's "improved" badge (issue 23; spec, Events 3: "the dashboard notifies
// when the feature matrix improves"). The dashboard keeps, per account, when the person last opened
// the feature memory page; a feature counts as improved when its newest record since then is better
// than the record they saw last, by compare_feature_memory's own rule (compareFeatures: nothing
// got worse and something got better, e.g. the gate became pass or a finding was resolved). A
// feature first recorded since the visit is new, not improved: there is nothing to compare it with.
import type { Db } from '../db/database.ts';
import type { FeaturesTable } from '../db/schema.ts';
import { compareFeatures } from '../runs/feature-memory/feature-comparison.ts';
import { toFeature, type Feature } from '../runs/feature-memory/feature-store.ts';

/** Records read for the badge at most: the account's newest since the visit (2,000 is the whole memory's cap). */
const MAX_RECORDS = 500;

/** The predecessor's columns, aliased so one row carries both records. */
const PREVIOUS = ['title', 'requirements', 'acceptance', 'source', 'playbook_id', 'goal', 'gate', 'scores', 'statuses', 'remaining_finding_ids', 'supersedes_feature_id', 'created_at', 'project_scope'] as const;

export class FeatureSeenStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The current record ids of the features improved since the account's last visit of the page.
   * One query on every page view: the account's records newer than the visit (the
   * features_account_created index), each joined with the record it supersedes; the visit time
   * is a subquery on the primary key.
   */
  async improved(accountId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('features as f')
      .leftJoin('features as p', (join) => join.onRef('p.id', '=', 'f.supersedes_feature_id').onRef('p.account_id', '=', 'f.account_id'))
      .selectAll('f')
      .select(PREVIOUS.map((c) => `p.${c} as p_${c}` as const))
      .select('p.id as p_id')
      .where('f.account_id', '=', accountId)
      .where((eb) =>
        eb('f.created_at', '>', eb.fn.coalesce(eb.selectFrom('dashboard_feature_seen').select('seen_at').where('account_id', '=', accountId), eb.val(''))),
      )
      .orderBy('f.created_at', 'asc')
      .limit(MAX_RECORDS)
      .execute();
    const newer = new Map<string, { feature: Feature; previous: Feature | undefined }>();
    for (const row of rows) {
      const r = row as unknown as Record<string, unknown>;
      const previous = typeof r['p_id'] === 'string' ? toFeature(Object.fromEntries([['id', r['p_id']], ['account_id', accountId], ...PREVIOUS.map((c) => [c, r[`p_${c}`]])]) as unknown as FeaturesTable) : undefined;
      newer.set(row.id, { feature: toFeature(row), previous });
    }
    const superseded = new Set([...newer.values()].map((n) => n.feature.supersedesFeatureId).filter((id): id is string => id !== null));
    const featureIds: string[] = [];
    for (const [id, entry] of newer) {
      if (superseded.has(id)) continue;
      // Back through this feature's records since the visit to the first one: the record it
      // superseded is what the person saw last.
      let first = entry;
      for (let hop = 0; first.feature.supersedesFeatureId !== null && newer.has(first.feature.supersedesFeatureId) && hop < MAX_RECORDS; hop++) {
        first = newer.get(first.feature.supersedesFeatureId)!;
      }
      if (first.previous && compareFeatures(first.previous, entry.feature).improved) featureIds.push(id);
    }
    return featureIds;
  }

  async seenAt(accountId: string): Promise<string | null> {
    const row = await this.#db.selectFrom('dashboard_feature_seen').select('seen_at').where('account_id', '=', accountId).executeTakeFirst();
    return row?.seen_at ?? null;
  }

  /** The person opened the feature memory page now: the badge counts from here. */
  async markSeen(accountId: string, now: Date = new Date()): Promise<void> {
    const seenAt = now.toISOString();
    await this.#db
      .insertInto('dashboard_feature_seen')
      .values({ account_id: accountId, seen_at: seenAt })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ seen_at: seenAt }))
      .execute();
  }
}
