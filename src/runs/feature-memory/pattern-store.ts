// Community patterns: a feature's title, requirements and acceptance, shared by the account that
// recorded it so that every account can list and reuse them. What is shared is a redacted copy
// made at publish time (see pattern-redaction.ts): never the feature's URLs, hosts, scope,
// scores, findings or goal text, and never the publisher's account id. Only the publisher can
// unpublish; deleting the feature removes its pattern too (a foreign key cascade).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { containsText } from '../../db/dialect.ts';
import type { FeaturePatternsTable } from '../../db/schema.ts';
import type { FeatureStore } from './feature-store.ts';
import { projectNames, redactList, redactText } from './pattern-redaction.ts';

export const PATTERN_ID = /^pat_[0-9a-f]{32}$/;
export const MAX_QUERY_CHARS = 200;

export interface Pattern {
  patternId: string;
  title: string;
  requirements: string[];
  acceptance: string[];
  publishedAt: string;
  /** true for the viewer's own patterns (the only ones it may unpublish) */
  mine: boolean;
}

export type PublishResult =
  | { kind: 'published'; pattern: Pattern; redactions: number; alreadyPublished: boolean }
  | { kind: 'feature_not_found' }
  | { kind: 'nothing_to_share' };

function toPattern(row: FeaturePatternsTable, viewerAccountId: string): Pattern {
  return {
    patternId: row.id,
    title: row.title,
    requirements: JSON.parse(row.requirements) as string[],
    acceptance: JSON.parse(row.acceptance) as string[],
    publishedAt: row.published_at,
    mine: row.account_id === viewerAccountId,
  };
}

export class PatternStore {
  readonly #db: Db;
  readonly #features: FeatureStore;

  constructor(db: Db, features: FeatureStore) {
    this.#db = db;
    this.#features = features;
  }

  /** Publishes the account's feature; publishing it again answers the pattern already shared. */
  async publish(accountId: string, featureId: string, now: Date = new Date()): Promise<PublishResult> {
    const feature = await this.#features.get(accountId, featureId);
    if (!feature) return { kind: 'feature_not_found' };
    const existing = await this.#db.selectFrom('feature_patterns').selectAll().where('feature_id', '=', featureId).where('account_id', '=', accountId).executeTakeFirst();
    if (existing) return { kind: 'published', pattern: toPattern(existing, accountId), redactions: 0, alreadyPublished: true };
    const names = projectNames(feature.projectScope);
    const title = redactText(feature.title, names);
    const requirements = redactList(feature.requirements, names);
    const acceptance = redactList(feature.acceptance, names);
    if (requirements.items.length === 0 && acceptance.items.length === 0) return { kind: 'nothing_to_share' };
    const row: FeaturePatternsTable = {
      id: `pat_${randomUUID().replace(/-/g, '')}`,
      account_id: accountId,
      feature_id: featureId,
      title: title.text || 'Pattern',
      requirements: JSON.stringify(requirements.items),
      acceptance: JSON.stringify(acceptance.items),
      published_at: now.toISOString(),
    };
    await this.#db.insertInto('feature_patterns').values(row).execute();
    return { kind: 'published', pattern: toPattern(row, accountId), redactions: title.redactions + requirements.redactions + acceptance.redactions, alreadyPublished: false };
  }

  /** Unpublishes a pattern the account published; false for any other (another's, or none). */
  async unpublish(accountId: string, patternId: string): Promise<boolean> {
    if (!PATTERN_ID.test(patternId)) return false;
    const result = await this.#db.deleteFrom('feature_patterns').where('id', '=', patternId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The pattern published from a feature of the account, if any. */
  async forFeature(accountId: string, featureId: string): Promise<string | undefined> {
    const row = await this.#db.selectFrom('feature_patterns').select('id').where('feature_id', '=', featureId).where('account_id', '=', accountId).executeTakeFirst();
    return row?.id;
  }

  /**
   * Every account's patterns, newest first; with `query`, those whose title, requirements or
   * acceptance contain every word of it (case-insensitive).
   */
  async list(viewerAccountId: string, options: { query?: string | undefined; offset?: number; limit: number }): Promise<{ patterns: Pattern[]; total: number }> {
    const words = (options.query ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length > 0)
      .slice(0, 10);
    let query = this.#db.selectFrom('feature_patterns');
    for (const word of words) {
      // instr/strpos instead of LIKE: the word is matched as written, with no wildcard characters to escape
      query = query.where((eb) =>
        eb.or(
          (['title', 'requirements', 'acceptance'] as const).map((column) => containsText(this.#db, eb, eb.fn<string>('lower', [column]), word)),
        ),
      );
    }
    const rows = await query.selectAll().orderBy('published_at', 'desc').orderBy('id', 'desc').limit(options.limit).offset(options.offset ?? 0).execute();
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { patterns: rows.map((row) => toPattern(row, viewerAccountId)), total: Number(counted.n) };
  }
}
