// The gate: whether a job is done. It reads only the report (findings, statuses, incomplete) and
// the playbook's gate policy, so solve, run and verify judge alike. The rules are the spec's:
//
//   fail     a high-severity finding remains (in any category, advisory ones too: the spec's rule
//            has no exception), or a category in scope scores poor (advisory ones too: an advisory
//            category is excused only needs_improvement);
//   fail     ship policy: a requireGood category (always tls, security-headers, http-status,
//            mixed-content, plus any the playbook adds) is needs_improvement or unknown, or absent;
//   never    an advisory category (the page-speed proxy) at needs_improvement fails nothing: it is
//            listed in `advisories` instead;
//   unknown  nothing could be judged: the playbook scores categories, every one is unknown and no
//            finding was reported (the page was unreachable, say). There is nothing to fix, so
//            `fail` would send the host into a fix loop with no fix; `unknown` is never a pass;
//   fail     the run was incomplete or partial (a step failed, or a step could not judge everything)
//            but something was judged: an incomplete run never passes, whatever it judged;
//   pass     none of the above.
//
// `reasons` is empty exactly when the gate passes; each reason is one sentence naming the category
// or the finding, so a host (or a person) can read why without the report.
import type { Category, Check, Finding, ScoreKey, Status } from '../../analysis/findings.ts';
import { judgeAcceptance, type AcceptanceItem, type CriterionResult } from './acceptance.ts';
import { SHIP_GATE_CATEGORIES } from '../playbooks/playbook-schema.ts';

export type GateValue = 'pass' | 'fail' | 'unknown';

export interface GateResult {
  gate: GateValue;
  /** why the gate does not pass, one sentence each; empty on pass */
  reasons: string[];
  /** what is reported but does not block (an advisory category at needs_improvement) */
  advisories: string[];
  /** each acceptance criterion met or not, with the findings behind it (when the playbook's are given) */
  criteria?: CriterionResult[];
}

/** A playbook's gate: the policy, and the categories it requires good or treats as advisory. */
export interface GatePolicy {
  policy: 'default' | 'ship';
  requireGood?: readonly Category[];
  advisory?: readonly Category[];
}

/** What the gate reads of a report: a jobReport or a single analyzer report. */
export interface GateInput {
  findings: readonly Pick<Finding, 'findingId' | 'severity' | 'category' | 'title' | 'rule'>[];
  checks?: readonly Pick<Check, 'rule' | 'result'>[];
  steps?: readonly { status: string }[];
  statuses: Partial<Record<ScoreKey, Status>>;
  scores?: Partial<Record<ScoreKey, number>>;
  incomplete: boolean;
  /** the categories in scope (a jobReport's playbook categories); by default those the statuses name */
  categories?: readonly Category[];
}

export interface GateOptions {
  /** the run's own status was partial (some step calls did not finish) */
  partial?: boolean;
  /** the playbook's acceptance criteria: the gate passes only when every one holds */
  acceptance?: readonly AcceptanceItem[];
}

/** High-severity findings named one by one before the rest are counted. */
export const MAX_NAMED_FINDINGS = 10;

/** What a gate result's criteria were judged on, and the findings the unmet ones need, while it is the object evaluateGate returned. */
const JUDGED = new WeakMap<GateResult, { report: GateInput; acceptance: readonly AcceptanceItem[]; needed: ReadonlySet<string> }>();

/**
 * The findings the unmet criteria need fixed, from the judgement the gate made of this report and
 * these criteria (the same objects), so the loop's ranking does not judge them again; undefined
 * when the gate judged other ones, or none (a copy of its result carries no judgement).
 */
export function acceptanceJudged(gate: GateResult, report: object, acceptance: readonly AcceptanceItem[]): ReadonlySet<string> | undefined {
  const judged = JUDGED.get(gate);
  return judged !== undefined && judged.report === report && judged.acceptance === acceptance ? judged.needed : undefined;
}

export function evaluateGate(report: GateInput, gatePolicy: GatePolicy, options: GateOptions = {}): GateResult {
  const categories = report.categories ?? (Object.keys(report.statuses).filter((k) => k !== 'overall') as Category[]);
  const judgement = options.acceptance === undefined ? undefined : judgeAcceptance({ ...report, categories }, options.acceptance);
  const result = verdict(report, gatePolicy, options, categories, judgement?.criteria);
  if (options.acceptance !== undefined && judgement !== undefined) JUDGED.set(result, { report, acceptance: options.acceptance, needed: judgement.needed });
  return result;
}

function verdict(report: GateInput, gatePolicy: GatePolicy, options: GateOptions, categories: readonly Category[], criteria: CriterionResult[] | undefined): GateResult {
  const advisory = new Set(gatePolicy.advisory ?? []);
  const requireGood = gatePolicy.policy === 'ship' ? [...new Set([...SHIP_GATE_CATEGORIES, ...(gatePolicy.requireGood ?? [])])] : [];
  const statusOf = (c: Category): Status => report.statuses[c] ?? 'unknown';
  const scoreText = (c: Category): string => (report.scores?.[c] === undefined ? '' : ` (${report.scores[c]}/100)`);

  const reasons: string[] = [];
  const advisories: string[] = [];

  const high = report.findings.filter((f) => f.severity === 'high');
  for (const f of high.slice(0, MAX_NAMED_FINDINGS)) reasons.push(`High-severity finding ${f.findingId} in ${f.category} remains: ${f.title}.`);
  if (high.length > MAX_NAMED_FINDINGS) reasons.push(`${high.length - MAX_NAMED_FINDINGS} more high-severity findings remain.`);

  for (const c of categories) {
    if (statusOf(c) === 'poor') reasons.push(`${c} scores poor${scoreText(c)}, below 50${advisory.has(c) ? ' (an advisory category still fails the gate when poor)' : ''}.`);
  }
  for (const c of requireGood) {
    const status = statusOf(c);
    if (status === 'needs_improvement') reasons.push(`${c} is needs_improvement${scoreText(c)}: the ship gate requires it good (90 or more).`);
    else if (status === 'unknown') reasons.push(`${c} is unknown (it could not be judged): the ship gate requires it good.`);
  }
  for (const c of categories) {
    if (advisory.has(c) && statusOf(c) === 'needs_improvement') advisories.push(`${c} is needs_improvement${scoreText(c)}: advisory, it does not fail the gate.`);
  }

  const withCriteria = criteria === undefined ? {} : { criteria };
  for (const [index, c] of (criteria ?? []).entries()) {
    const item = options.acceptance?.[index];
    // A sentence, no high finding and no poor category restate the rules above, whose reasons name each finding and category already.
    const restates = item === undefined || typeof item === 'string' || (item.requires.rulesPass === undefined && item.requires.categoriesGood === undefined && item.requires.stepsOk === undefined && item.requires.noSeverity !== 'medium');
    if (!c.met && !restates) reasons.push(`Acceptance criterion not met: "${c.text}". ${c.detail}`);
  }

  const judged = report.findings.length > 0 || categories.some((c) => statusOf(c) !== 'unknown');
  if (categories.length > 0 && !judged) {
    const why = ['Nothing could be judged: every scored category is unknown and no finding was reported, so there is nothing to fix yet.'];
    if (report.incomplete || options.partial) why.push(incompleteReason(options.partial === true));
    return { gate: 'unknown', reasons: why, advisories, ...withCriteria };
  }
  if (report.incomplete || options.partial) return { gate: 'fail', reasons: [...reasons, incompleteReason(options.partial === true)], advisories, ...withCriteria };
  if (reasons.length > 0) return { gate: 'fail', reasons, advisories, ...withCriteria };
  return { gate: 'pass', reasons: [], advisories, ...withCriteria };
}

function incompleteReason(partial: boolean): string {
  return partial
    ? 'The run was partial (a step did not finish): a partial run never passes the gate.'
    : 'The report is incomplete (a step failed or could not judge everything; see its notes): an incomplete report never passes the gate.';
}
