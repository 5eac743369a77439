// The `delta` of a verify: what changed between the baseline and the fresh run, by stable
// findingId (analysis/findings.ts compareReports), with the verify status.
//
// verifyStatus, first rule that holds:
//   error | partial | suggest  the fresh run itself ended so: propagated as it is, never verified
//                              (the comparison of a run that did not finish says nothing);
//   verified                   the gate passes (and only then);
//   stopped                    the loop has stopped (same_findings or max_rounds): escalate;
//   continue                   the gate does not pass, the round improved, and the loop may go on
//                              (loop.initiate is not false);
//   fail                       the gate does not pass and the round did not improve (the same or
//                              worse), or the loop cannot go on (nothing to fix, an incomplete or
//                              unknown result).
// "improved": more findings resolved than appeared, or as many resolved as appeared and the overall
// score rose. A round that swaps one finding for another of its kind is not progress; a round
// that fixed one and broke two is not either.
// nextActions is the loop's (the rank-1 fix while loop.initiate, else none). Called without a loop,
// buildDelta judges initiate as the loop would, stop aside: a failing, complete result with a fix.
import { z } from 'zod';
import { compareReports, findingSchema, scoreKeySchema, type Report, type ReportComparison } from '../../analysis/findings.ts';
import { fixItemSchema, type FixItem } from './fix-ranking.ts';
import type { GateResult } from './gate.ts';
import { MAX_REMAINING_FIXES, type Loop } from './loop-state.ts';

export const VERIFY_STATUSES = ['verified', 'fail', 'continue', 'stopped', 'error', 'partial', 'suggest'] as const;
export type VerifyStatus = (typeof VERIFY_STATUSES)[number];

/** The fresh run's own outcome: ok when it finished (whatever the gate says). */
export type FreshRunStatus = 'ok' | 'error' | 'partial' | 'suggest';

/** Each finding list of a delta names at most this many (the counts say how many there are). */
export const MAX_DELTA_FINDINGS = 200;

export const deltaSchema = z.object({
  status: z.enum(VERIFY_STATUSES),
  improved: z.boolean().describe('More findings resolved than appeared, or as many and a higher overall score'),
  scoreDeltas: z.partialRecord(scoreKeySchema, z.number().nullable()).describe('after minus baseline, per score; null when one side has no score'),
  newFindings: z.array(findingSchema).max(MAX_DELTA_FINDINGS),
  resolvedFindings: z.array(findingSchema).max(MAX_DELTA_FINDINGS),
  remainingFindings: z.array(findingSchema).max(MAX_DELTA_FINDINGS),
  counts: z.object({ new: z.number().int().min(0), resolved: z.number().int().min(0), remaining: z.number().int().min(0) }),
  remainingFixes: z.array(fixItemSchema).max(MAX_REMAINING_FIXES),
  nextActions: z.array(fixItemSchema).max(1),
  gate: z.enum(['pass', 'fail', 'unknown']),
  gateReasons: z.array(z.string()),
});
export type Delta = z.infer<typeof deltaSchema>;

export interface VerifyStatusInput {
  gate: Pick<GateResult, 'gate'>;
  comparison: Pick<ReportComparison, 'newFindings' | 'resolvedFindings' | 'scoreDeltas'>;
  loop?: Pick<Loop, 'stop' | 'initiate'>;
  runStatus?: FreshRunStatus;
}

export function improvedBetween(comparison: VerifyStatusInput['comparison']): boolean {
  const resolved = comparison.resolvedFindings.length;
  const added = comparison.newFindings.length;
  if (resolved !== added) return resolved > added;
  return (comparison.scoreDeltas.overall ?? 0) > 0;
}

export function verifyStatus(input: VerifyStatusInput): VerifyStatus {
  if (input.runStatus !== undefined && input.runStatus !== 'ok') return input.runStatus;
  if (input.gate.gate === 'pass') return 'verified';
  if (input.loop?.stop !== undefined) return 'stopped';
  if (improvedBetween(input.comparison) && input.loop?.initiate !== false) return 'continue';
  return 'fail';
}

export interface DeltaContext {
  /** the loop built for this verify (loopAfterVerify): its stop, initiate and nextActions are used */
  loop?: Pick<Loop, 'stop' | 'initiate' | 'nextActions'>;
  runStatus?: FreshRunStatus;
}

export function buildDelta(
  baseline: Pick<Report, 'findings' | 'scores'>,
  after: Pick<Report, 'findings' | 'scores' | 'incomplete'>,
  gate: GateResult,
  ranked: readonly FixItem[],
  context: DeltaContext = {},
): Delta {
  const comparison = compareReports(baseline, after);
  // Without a loop, whether the loop may go on is judged as loop.initiate would judge it (stop
  // aside): a failing, complete result with something to fix.
  const loop = context.loop ?? { initiate: gate.gate === 'fail' && !after.incomplete && ranked.length > 0, nextActions: ranked.slice(0, 1) };
  const status = verifyStatus({ gate, comparison, loop, ...(context.runStatus ? { runStatus: context.runStatus } : {}) });
  const nextActions = loop.initiate ? loop.nextActions : [];
  return {
    status,
    improved: improvedBetween(comparison),
    scoreDeltas: comparison.scoreDeltas,
    newFindings: comparison.newFindings.slice(0, MAX_DELTA_FINDINGS),
    resolvedFindings: comparison.resolvedFindings.slice(0, MAX_DELTA_FINDINGS),
    remainingFindings: comparison.remainingFindings.slice(0, MAX_DELTA_FINDINGS),
    counts: { new: comparison.newFindings.length, resolved: comparison.resolvedFindings.length, remaining: comparison.remainingFindings.length },
    remainingFixes: ranked.slice(0, MAX_REMAINING_FIXES),
    nextActions: [...nextActions],
    gate: gate.gate,
    gateReasons: [...gate.reasons],
  };
}

/** A finding as a compact delta names it: which one, how bad, how many places; the report holds the rest. */
export interface FindingRef {
  findingId: string;
  rule: string;
  severity: string;
  title: string;
  count?: number;
}

/** A fix as a compact delta names it: loop.remainingFixes holds the item, in the same order, and jobReport.findings its finding. */
export interface FixRef {
  rank: number;
  findingId: string;
}

export type CompactDelta = Omit<Delta, 'newFindings' | 'resolvedFindings' | 'remainingFindings' | 'remainingFixes' | 'nextActions' | 'gateReasons'> & {
  newFindings: FindingRef[];
  resolvedFindings: FindingRef[];
  remainingFindings: FindingRef[];
  remainingFixes: FixRef[];
  nextActions: FixRef[];
};

const fixRef = (f: Delta['remainingFixes'][number]): FixRef => ({ rank: f.rank, findingId: f.findingId });

const refOf = (f: Delta['newFindings'][number]): FindingRef => {
  const count = (f as { count?: unknown }).count;
  return { findingId: f.findingId, rule: f.rule, severity: f.severity, title: f.title, ...(typeof count === 'number' ? { count } : {}) };
};

/**
 * The delta of a compact answer: every list by reference (findings by id, rule, severity, title and
 * count; fixes by rank and id), so
 * the answer does not carry each finding and fix a second and third time beside jobReport.findings
 * and loop.remainingFixes; nextActions too (loop.nextActions holds the fix to apply, whole). No
 * gateReasons: the answer says them once, in verification.evidence.reasons.
 */
export function compactDelta(delta: Delta): CompactDelta {
  const { gateReasons: _reasons, ...rest } = delta;
  return {
    ...rest,
    newFindings: delta.newFindings.map(refOf),
    resolvedFindings: delta.resolvedFindings.map(refOf),
    remainingFindings: delta.remainingFindings.map(refOf),
    remainingFixes: delta.remainingFixes.map(fixRef),
    nextActions: delta.nextActions.map(fixRef),
  };
}
