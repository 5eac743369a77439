// compare_feature_memory: what changed between two records of an account's feature memory, and
// whether the feature matrix (each category's score and status, the findings left and the gate)
// improved. The rule, stated once here and in the tool's description:
//   improved = nothing got worse AND something got better, where
//   worse  = a score went down, a status fell (good > needs_improvement > poor > unknown),
//            a finding appeared that the older record did not have, or the gate left `pass`;
//   better = a score went up, a status rose, a finding of the older record is gone,
//            or the gate became `pass`.
// Requirement and acceptance changes are reported but do not count either way: rewording a
// requirement changes no quality. A category only one record scored is reported with a null delta
// and counts neither way, since there is nothing to compare it with.
import type { Feature } from './feature-store.ts';

const STATUS_RANK: Record<string, number> = { good: 3, needs_improvement: 2, poor: 1, unknown: 0 };

export const IMPROVED_RULE =
  'improved is true when nothing got worse and something got better. Worse: a category score went down, a status fell ' +
  '(good > needs_improvement > poor > unknown), a finding appeared, or the gate left pass. Better: a score went up, a ' +
  'status rose, a finding was resolved, or the gate became pass. Requirement and acceptance changes are listed but do ' +
  'not count; a category scored on one side only has a null delta and does not count.';

export interface FeatureComparison {
  from: { featureId: string; title: string; createdAt: string; gate: string; source: string };
  to: { featureId: string; title: string; createdAt: string; gate: string; source: string };
  requirements: { added: string[]; removed: string[]; kept: string[] };
  acceptance: { added: string[]; removed: string[] };
  /** to minus from, per score key either record has; null when one side has no score */
  scoreDeltas: Record<string, number | null>;
  statusChanges: { key: string; from: string | null; to: string | null }[];
  findings: { resolved: string[]; new: string[]; remaining: string[] };
  gate: { from: string; to: string };
  improvements: string[];
  regressions: string[];
  improved: boolean;
  rule: string;
}

function listDiff(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[]; kept: string[] } {
  const a = new Set(before);
  const b = new Set(after);
  return { added: after.filter((x) => !a.has(x)), removed: before.filter((x) => !b.has(x)), kept: after.filter((x) => a.has(x)) };
}

function brief(f: Feature): FeatureComparison['from'] {
  return { featureId: f.featureId, title: f.title, createdAt: f.createdAt, gate: f.gate, source: f.source };
}

export function compareFeatures(from: Feature, to: Feature): FeatureComparison {
  const improvements: string[] = [];
  const regressions: string[] = [];

  const scoreDeltas: Record<string, number | null> = {};
  const scoreKeys = [...new Set([...Object.keys(from.scores), ...Object.keys(to.scores)])].sort();
  for (const key of scoreKeys) {
    const a = from.scores[key];
    const b = to.scores[key];
    const delta = a === undefined || b === undefined ? null : b - a;
    scoreDeltas[key] = delta;
    if (delta !== null && delta > 0) improvements.push(`${key} score ${a} -> ${b}`);
    if (delta !== null && delta < 0) regressions.push(`${key} score ${a} -> ${b}`);
  }

  const statusChanges: FeatureComparison['statusChanges'] = [];
  const statusKeys = [...new Set([...Object.keys(from.statuses), ...Object.keys(to.statuses)])].sort();
  for (const key of statusKeys) {
    const a = from.statuses[key] ?? null;
    const b = to.statuses[key] ?? null;
    if (a === b) continue;
    statusChanges.push({ key, from: a, to: b });
    if (a === null || b === null) continue;
    const ra = STATUS_RANK[a] ?? 0;
    const rb = STATUS_RANK[b] ?? 0;
    if (rb > ra) improvements.push(`${key} status ${a} -> ${b}`);
    if (rb < ra) regressions.push(`${key} status ${a} -> ${b}`);
  }

  const findings = listDiff(from.remainingFindingIds, to.remainingFindingIds);
  for (const id of findings.removed) improvements.push(`finding ${id} resolved`);
  for (const id of findings.added) regressions.push(`finding ${id} new`);

  if (from.gate !== 'pass' && to.gate === 'pass') improvements.push(`gate ${from.gate} -> pass`);
  if (from.gate === 'pass' && to.gate !== 'pass') regressions.push(`gate pass -> ${to.gate}`);

  const acceptance = listDiff(from.acceptance, to.acceptance);
  return {
    from: brief(from),
    to: brief(to),
    requirements: listDiff(from.requirements, to.requirements),
    acceptance: { added: acceptance.added, removed: acceptance.removed },
    scoreDeltas,
    statusChanges,
    findings: { resolved: findings.removed, new: findings.added, remaining: findings.kept },
    gate: { from: from.gate, to: to.gate },
    improvements,
    regressions,
    improved: regressions.length === 0 && improvements.length > 0,
    rule: IMPROVED_RULE,
  };
}
