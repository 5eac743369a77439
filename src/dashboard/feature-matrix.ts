// The feature memory page's model, built from FeatureStore.list (list_feature_memory's own read):
// records are grouped into features by their supersedes links (a refinement or a newer gate pass
// of the same job supersedes the previous record), and the matrix has a column per UTC day on
// which any record was made, newest day first.
import type { Gate } from '../runs/feature-memory/feature-snapshot.ts';
import type { FeatureView } from '../runs/feature-memory/feature-store.ts';

/** One feature: its current record and its earlier ones still stored, newest first. */
export interface FeatureHistory {
  current: FeatureView;
  /** newest first, `current` included */
  records: FeatureView[];
}

/** Columns of the matrix at most: the last days on which something was recorded. */
export const MATRIX_DAYS = 10;

/** Features from their records: each record that nothing (listed) supersedes starts one, newest first. */
export function historiesOf(views: readonly FeatureView[]): FeatureHistory[] {
  const byId = new Map(views.map((v) => [v.featureId, v]));
  const listed = new Set(views.filter((v) => v.supersededBy !== null && byId.has(v.supersededBy)).map((v) => v.featureId));
  const out: FeatureHistory[] = [];
  for (const view of views) {
    if (listed.has(view.featureId)) continue;
    out.push(historyFrom(view, byId));
  }
  return out;
}

/** A record and the ones before it that `byId` holds, following its supersedes links. */
export function historyFrom(view: FeatureView, byId: ReadonlyMap<string, FeatureView>): FeatureHistory {
  const records = [view];
  let at = view;
  while (at.supersedesFeatureId !== null && records.length <= byId.size) {
    const previous = byId.get(at.supersedesFeatureId);
    if (!previous) break;
    records.push(previous);
    at = previous;
  }
  return { current: view, records };
}

export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** The matrix's columns: the latest MATRIX_DAYS UTC days holding a record, newest first. */
export function matrixDays(histories: readonly FeatureHistory[]): string[] {
  const days = new Set<string>();
  for (const h of histories) for (const r of h.records) days.add(dayOf(r.createdAt));
  return [...days].sort().reverse().slice(0, MATRIX_DAYS);
}

/** A feature's state on a day: its newest record of that day, if any. */
export function cellOf(history: FeatureHistory, day: string): FeatureView | undefined {
  return history.records.find((r) => dayOf(r.createdAt) === day);
}

/** The checks a record counts: categories rated good out of all rated, and the findings left. */
export function countsOf(f: { statuses: Record<string, string>; remainingFindingIds: readonly string[] }): { good: number; rated: number; findings: number } {
  const statuses = Object.values(f.statuses);
  return { good: statuses.filter((s) => s === 'good').length, rated: statuses.length, findings: f.remainingFindingIds.length };
}

export const GATE_TEXT: Record<Gate, string> = { pass: 'pass', fail: 'fail', unknown: 'unknown' };
