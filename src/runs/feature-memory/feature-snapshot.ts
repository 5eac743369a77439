// What a feature record keeps of a run: its scores and statuses per category, the findingIds that
// remained, and the gate. It is read from a jobReport the service produced (recordPass) or from a
// baseline an agent hands back (capture_feature), which may be any of the result shapes
// verify_task accepts: a solve/run result, a verify result (its `after`), a get_run poll payload
// (its nested `result`) or a bare jobReport. Only these few fields are read, each checked and
// bounded, so a forged or odd baseline gives a smaller snapshot, never a failure.

export type Gate = 'pass' | 'fail' | 'unknown';
export const GATES: readonly Gate[] = ['pass', 'fail', 'unknown'];

export interface ReportSnapshot {
  /** score key (category or `overall`) -> 0..100 */
  scores: Record<string, number>;
  /** score key -> good | needs_improvement | poor | unknown */
  statuses: Record<string, string>;
  /** the findingIds the run left, in report order */
  remainingFindingIds: string[];
}

/** What a report handed to the feature memory must have at least (analysis Report is one). */
export interface ReportLike {
  scores?: Readonly<Record<string, unknown>> | undefined;
  statuses?: Readonly<Record<string, unknown>> | undefined;
  findings?: readonly unknown[] | undefined;
  incomplete?: boolean | undefined;
}

const MAX_KEYS = 32;
const MAX_KEY_CHARS = 50;
const MAX_FINDING_IDS = 500;
const MAX_FINDING_ID_CHARS = 200;
const STATUSES = new Set(['good', 'needs_improvement', 'poor', 'unknown']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entriesOf(value: unknown): [string, unknown][] {
  if (!isObject(value)) return [];
  return Object.entries(value)
    .filter(([key]) => key.length > 0 && key.length <= MAX_KEY_CHARS)
    .slice(0, MAX_KEYS);
}

/** A finding, or a bare findingId string. */
function findingIdOf(value: unknown): string | undefined {
  const id = typeof value === 'string' ? value : isObject(value) ? value['findingId'] : undefined;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_FINDING_ID_CHARS ? id : undefined;
}

export function snapshotOf(report: ReportLike): ReportSnapshot {
  const scores: Record<string, number> = {};
  for (const [key, value] of entriesOf(report.scores)) {
    if (typeof value === 'number' && Number.isFinite(value)) scores[key] = Math.round(Math.min(100, Math.max(0, value)));
  }
  const statuses: Record<string, string> = {};
  for (const [key, value] of entriesOf(report.statuses)) {
    if (typeof value === 'string' && STATUSES.has(value)) statuses[key] = value;
  }
  const ids = new Set<string>();
  for (const finding of Array.isArray(report.findings) ? report.findings : []) {
    const id = findingIdOf(finding);
    if (id) ids.add(id);
    if (ids.size >= MAX_FINDING_IDS) break;
  }
  return { scores, statuses, remainingFindingIds: [...ids] };
}

export interface BaselineReading {
  snapshot: ReportSnapshot;
  /** the gate the baseline states; `unknown` when it states none (not re-verified) */
  gate: Gate;
  playbookId: string | null;
  goal: string | null;
  /** the page it ran on, when it says: the default project scope */
  url: string | null;
}

function stringAt(value: unknown, max = 2000): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

function gateOf(container: Json, report: Json): Gate {
  for (const source of [container['loop'], container['delta'], container, report]) {
    const gate = isObject(source) ? source['gate'] : undefined;
    if (typeof gate === 'string' && (GATES as readonly string[]).includes(gate)) return gate as Gate;
  }
  return 'unknown';
}

/**
 * Reads a baseline: the first of the value, its `result` (a get_run payload), and their `after`
 * (a verify result) that holds a `jobReport`, or that is a report itself (has `scores` or
 * `findings`). Undefined when none does.
 */
export function readBaseline(baseline: unknown): BaselineReading | undefined {
  const candidates: unknown[] = [];
  const push = (value: unknown) => {
    if (!isObject(value)) return;
    candidates.push(value['after'], value);
  };
  if (isObject(baseline)) {
    push(baseline['result']);
    push(baseline);
  }
  for (const candidate of candidates) {
    if (!isObject(candidate)) continue;
    const nested = candidate['jobReport'];
    const report = isObject(nested) ? nested : isObject(candidate['scores']) || Array.isArray(candidate['findings']) ? candidate : undefined;
    if (!report) continue;
    const findings = Array.isArray(report['findings'])
      ? report['findings']
      : Array.isArray(report['remainingFindings'])
        ? report['remainingFindings']
        : Array.isArray(report['remainingFindingIds'])
          ? report['remainingFindingIds']
          : [];
    const snapshot = snapshotOf({ scores: report['scores'] as Json | undefined, statuses: report['statuses'] as Json | undefined, findings });
    const input = isObject(candidate['input']) ? candidate['input'] : {};
    return {
      snapshot,
      gate: gateOf(candidate, report),
      playbookId: stringAt(candidate['playbookId'] ?? candidate['skillId'] ?? report['playbookId'], 100),
      goal: stringAt(candidate['goal'] ?? report['goal']),
      url: stringAt(report['url'] ?? input['url']),
    };
  }
  return undefined;
}
