// The feature memory of an account: what passed (recorded on a gate pass by verify_task,
// run_playbook and solve_task) and what an agent captured by hand, grouped by project scope, so
// an agent recalls what exists before rebuilding it. Every read and write is scoped to the
// account: another account's featureId is as unknown as one that never existed.
//
// Records are never edited: a refinement is a new record that supersedes the old one. An
// automatic record supersedes the newest standing record of the same playbook (or, without a
// playbook, the same goal) in the same scope, so the memory shows one current record per job.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { withAccountLocked } from '../../db/dialect.ts';
import type { FeaturesTable } from '../../db/schema.ts';
import { readBaseline, snapshotOf, type BaselineReading, type Gate, type ReportLike, type ReportSnapshot } from './feature-snapshot.ts';
import { projectScopeFor } from './project-scope.ts';

export const MAX_TITLE_CHARS = 200;
export const MAX_ITEMS = 50;
export const MAX_ITEM_CHARS = 500;
export const MAX_GOAL_CHARS = 2000;
/** Features an account keeps at most: past it, new records are refused until some are deleted. */
export const MAX_FEATURES_PER_ACCOUNT = 2000;
export const FEATURE_ID = /^feat_[0-9a-f]{32}$/;

export type FeatureSource = 'auto' | 'manual';

export interface Feature {
  featureId: string;
  projectScope: string;
  title: string;
  requirements: string[];
  acceptance: string[];
  source: FeatureSource;
  playbookId: string | null;
  goal: string | null;
  gate: Gate;
  scores: Record<string, number>;
  statuses: Record<string, string>;
  remainingFindingIds: string[];
  supersedesFeatureId: string | null;
  createdAt: string;
}

/** A feature as listed: with the newest record that supersedes it, if any. */
export interface FeatureView extends Feature {
  superseded: boolean;
  supersededBy: string | null;
}

export interface RecordPassInput {
  accountId: string;
  /** the agent's input.projectScope, if it sent one */
  projectScope?: string | null | undefined;
  /** the page the run checked: its origin is the scope when the agent named none */
  url?: string | null | undefined;
  playbookId: string | null;
  goal: string | null;
  /** default: the goal, else the playbook id */
  title?: string | null | undefined;
  /** what the feature had to do; default: the goal as the one requirement */
  requirements?: readonly string[] | undefined;
  /** the playbook's acceptance criteria */
  acceptance: readonly string[];
  /** the run's jobReport (scores, statuses, findings, incomplete) */
  report: ReportLike;
  /** input.featureMemory.capture: false records nothing */
  capture?: boolean | undefined;
  now?: Date | undefined;
}

export type RecordPassResult =
  | { recorded: true; featureId: string; projectScope: string; supersedesFeatureId: string | null }
  | { recorded: false; reason: 'capture_disabled' | 'incomplete_report' | 'memory_full' };

export interface CaptureInput {
  accountId: string;
  title: string;
  requirements: readonly string[];
  acceptance?: readonly string[] | undefined;
  projectScope?: string | null | undefined;
  supersedesFeatureId?: string | null | undefined;
  /** a prior result or jobReport whose scores, statuses, findings and gate the record keeps, as it states them */
  baseline?: unknown;
  /** the same, read from a baseline whose seal the caller checked (wins over `baseline`) */
  checkedBaseline?: BaselineReading | undefined;
  now?: Date | undefined;
}

export type CaptureResult =
  | { kind: 'captured'; feature: Feature }
  | { kind: 'superseded_not_found'; featureId: string }
  | { kind: 'bad_baseline' }
  | { kind: 'memory_full' };

export function newFeatureId(): string {
  return `feat_${randomUUID().replace(/-/g, '')}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

/** Trimmed, non-empty, bounded, without repeats. */
export function cleanItems(items: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const item of items ?? []) {
    const text = clip(item.replace(/\s+/g, ' ').trim(), MAX_ITEM_CHARS);
    if (text && !out.includes(text)) out.push(text);
    if (out.length >= MAX_ITEMS) break;
  }
  return out;
}

/** A row as a Feature (exported for the dashboard's badge, which reads a record with its predecessor in one join). */
export function toFeature(row: FeaturesTable): Feature {
  return {
    featureId: row.id,
    projectScope: row.project_scope,
    title: row.title,
    requirements: JSON.parse(row.requirements) as string[],
    acceptance: JSON.parse(row.acceptance) as string[],
    source: row.source as FeatureSource,
    playbookId: row.playbook_id,
    goal: row.goal,
    gate: row.gate as Gate,
    scores: JSON.parse(row.scores) as Record<string, number>,
    statuses: JSON.parse(row.statuses) as Record<string, string>,
    remainingFindingIds: JSON.parse(row.remaining_finding_ids) as string[],
    supersedesFeatureId: row.supersedes_feature_id,
    createdAt: row.created_at,
  };
}

export class FeatureStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Records a gate pass (verify_task, run_playbook, solve_task call this when loop.gate is
   * `pass`). Nothing is recorded when the agent turned capture off, or for an incomplete report
   * (which is never a pass), or when the account's memory is full.
   */
  async recordPass(input: RecordPassInput): Promise<RecordPassResult> {
    if (input.capture === false) return { recorded: false, reason: 'capture_disabled' };
    if (input.report.incomplete === true) return { recorded: false, reason: 'incomplete_report' };
    const projectScope = projectScopeFor(input.projectScope, input.url);
    const goal = input.goal ? clip(input.goal.trim(), MAX_GOAL_CHARS) : null;
    const previous = await this.#standing(input.accountId, projectScope, input.playbookId, goal);
    const requirements = cleanItems(input.requirements ?? (goal ? [goal] : []));
    const title = clip((input.title ?? goal ?? input.playbookId ?? 'Feature').replace(/\s+/g, ' ').trim(), MAX_TITLE_CHARS) || 'Feature';
    const feature = await this.#insert(input.accountId, {
      projectScope,
      title,
      requirements,
      acceptance: cleanItems(input.acceptance),
      source: 'auto',
      playbookId: input.playbookId,
      goal,
      gate: 'pass',
      snapshot: snapshotOf(input.report),
      supersedesFeatureId: previous ?? null,
      createdAt: (input.now ?? new Date()).toISOString(),
    });
    if (feature === undefined) return { recorded: false, reason: 'memory_full' };
    return { recorded: true, featureId: feature.featureId, projectScope, supersedesFeatureId: feature.supersedesFeatureId };
  }

  /**
   * A record by hand. Superseding a feature inherits its scope, acceptance and (without a
   * baseline) its snapshot and gate; a baseline's gate is taken as the baseline states it.
   */
  async capture(input: CaptureInput): Promise<CaptureResult> {
    let superseded: Feature | undefined;
    if (input.supersedesFeatureId) {
      superseded = await this.get(input.accountId, input.supersedesFeatureId);
      if (!superseded) return { kind: 'superseded_not_found', featureId: input.supersedesFeatureId };
    }
    let reading = input.checkedBaseline;
    if (!reading && input.baseline !== undefined && input.baseline !== null) {
      reading = readBaseline(input.baseline);
      if (!reading) return { kind: 'bad_baseline' };
    }
    const snapshot: ReportSnapshot = reading?.snapshot ?? {
      scores: superseded?.scores ?? {},
      statuses: superseded?.statuses ?? {},
      remainingFindingIds: superseded?.remainingFindingIds ?? [],
    };
    const feature = await this.#insert(input.accountId, {
      projectScope: input.projectScope?.trim() ? projectScopeFor(input.projectScope) : (superseded?.projectScope ?? projectScopeFor(null, reading?.url)),
      title: clip(input.title.replace(/\s+/g, ' ').trim(), MAX_TITLE_CHARS),
      requirements: cleanItems(input.requirements),
      acceptance: cleanItems(input.acceptance ?? superseded?.acceptance),
      source: 'manual',
      playbookId: reading?.playbookId ?? superseded?.playbookId ?? null,
      goal: reading?.goal ?? superseded?.goal ?? null,
      gate: reading?.gate ?? superseded?.gate ?? 'unknown',
      snapshot,
      supersedesFeatureId: superseded?.featureId ?? null,
      createdAt: (input.now ?? new Date()).toISOString(),
    });
    if (feature === undefined) return { kind: 'memory_full' };
    return { kind: 'captured', feature };
  }

  async get(accountId: string, featureId: string): Promise<Feature | undefined> {
    if (!FEATURE_ID.test(featureId)) return undefined;
    const row = await this.#db.selectFrom('features').selectAll().where('id', '=', featureId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toFeature(row) : undefined;
  }

  async count(accountId: string, projectScope?: string): Promise<number> {
    let query = this.#db.selectFrom('features').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId);
    if (projectScope !== undefined) query = query.where('project_scope', '=', projectScope);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Newest first (ties by id, so pages are stable), each marked when a newer record supersedes it. */
  async list(accountId: string, options: { projectScope?: string | undefined; offset?: number; limit: number }): Promise<{ features: FeatureView[]; total: number }> {
    let query = this.#db.selectFrom('features').selectAll().where('account_id', '=', accountId);
    if (options.projectScope !== undefined) query = query.where('project_scope', '=', options.projectScope);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .offset(options.offset ?? 0)
      .execute();
    const total = await this.count(accountId, options.projectScope);
    return { features: await this.#withSupersededBy(accountId, rows.map(toFeature)), total };
  }

  /** The account's scopes, with how many features each holds and the newest record's time. */
  async scopes(accountId: string, limit: number): Promise<{ projectScope: string; features: number; latestAt: string }[]> {
    const rows = await this.#db
      .selectFrom('features')
      .select((eb) => ['project_scope', eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('latest')])
      .where('account_id', '=', accountId)
      .groupBy('project_scope')
      .orderBy('latest', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ projectScope: r.project_scope, features: Number(r.n), latestAt: String(r.latest) }));
  }

  /** Deletes the account's feature (and the pattern published from it); false when there is none. */
  async delete(accountId: string, featureId: string): Promise<boolean> {
    if (!FEATURE_ID.test(featureId)) return false;
    const result = await this.#db.deleteFrom('features').where('id', '=', featureId).where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async #withSupersededBy(accountId: string, features: Feature[]): Promise<FeatureView[]> {
    const ids = features.map((f) => f.featureId);
    const newer = new Map<string, { id: string; at: string }>();
    if (ids.length > 0) {
      const rows = await this.#db
        .selectFrom('features')
        .select(['id', 'supersedes_feature_id', 'created_at'])
        .where('account_id', '=', accountId)
        .where('supersedes_feature_id', 'in', ids)
        .execute();
      for (const row of rows) {
        const target = row.supersedes_feature_id as string;
        const known = newer.get(target);
        if (!known || row.created_at > known.at || (row.created_at === known.at && row.id > known.id)) newer.set(target, { id: row.id, at: row.created_at });
      }
    }
    return features.map((f) => {
      const by = newer.get(f.featureId)?.id ?? null;
      return { ...f, superseded: by !== null, supersededBy: by };
    });
  }

  /** The newest record of this job in this scope that nothing supersedes yet. */
  async #standing(accountId: string, projectScope: string, playbookId: string | null, goal: string | null): Promise<string | undefined> {
    if (playbookId === null && goal === null) return undefined;
    let query = this.#db
      .selectFrom('features as f')
      .select('f.id')
      .where('f.account_id', '=', accountId)
      .where('f.project_scope', '=', projectScope)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('features as n').select('n.id').whereRef('n.supersedes_feature_id', '=', 'f.id'))));
    query = playbookId !== null ? query.where('f.playbook_id', '=', playbookId) : query.where('f.playbook_id', 'is', null).where('f.goal', '=', goal);
    const row = await query.orderBy('f.created_at', 'desc').orderBy('f.id', 'desc').executeTakeFirst();
    return row?.id;
  }

  async #insert(
    accountId: string,
    f: Omit<Feature, 'featureId' | 'scores' | 'statuses' | 'remainingFindingIds'> & { snapshot: ReportSnapshot },
  ): Promise<Feature | undefined> {
    const row: FeaturesTable = {
      id: newFeatureId(),
      account_id: accountId,
      project_scope: f.projectScope,
      title: f.title,
      requirements: JSON.stringify(f.requirements),
      acceptance: JSON.stringify(f.acceptance),
      source: f.source,
      playbook_id: f.playbookId,
      goal: f.goal,
      gate: f.gate,
      scores: JSON.stringify(f.snapshot.scores),
      statuses: JSON.stringify(f.snapshot.statuses),
      remaining_finding_ids: JSON.stringify(f.snapshot.remainingFindingIds),
      supersedes_feature_id: f.supersedesFeatureId,
      created_at: f.createdAt,
    };
    // The cap and the insert are one statement, as for webhooks (webhook-store.ts): two captures at
    // once cannot both pass a count of 1,999; on PostgreSQL the account's row lock orders them too.
    // Undefined when the memory is full.
    const columns = Object.keys(row) as (keyof FeaturesTable)[];
    const result = await withAccountLocked(this.#db, accountId, (db) =>
      sql`insert into features (${sql.join(columns.map((column) => sql.ref(column)))})
        select ${sql.join(columns.map((column) => row[column]))}
        where (select count(*) from features where account_id = ${accountId}) < ${MAX_FEATURES_PER_ACCOUNT}`.execute(db),
    );
    return Number(result.numAffectedRows ?? 0) === 0 ? undefined : toFeature(row);
  }
}
