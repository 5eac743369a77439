// The free answers plan_task and solve_task share when they do not run anything: `suggest` (the
// goal is unclear) and `need_input` (the job is clear, a field is not). Both say what to call next
// with exact arguments and give example goals that are checked to match, so an agent can always
// take a next step without guessing; an example goal that does not match the registries in use
// is never offered.
import { matchGoal, MATCH_THRESHOLD, type GoalCandidate, type GoalMatch, type MatchReason } from './goal-matcher.ts';
import type { Registries } from './goal-index.ts';
import { playbookExampleInput, toolExampleInput, type NeedInput, type NeedInputCode } from './input-resolution.ts';
import { MAX_GOAL_CHARS } from './goal-text.ts';

export interface NextAction {
  /** the MCP tool to call */
  tool: string;
  arguments: Record<string, unknown>;
  why: string;
}

export interface ExampleGoal {
  goal: string;
  /** the playbook id or operationId the goal reaches */
  leadsTo: string;
}

export interface SuggestAnswer {
  status: 'suggest';
  /** why the goal was not matched (MatchReason without `matched`) */
  code: Exclude<MatchReason, 'matched'>;
  hint: string;
  /** the closest jobs, best first (empty for an invalid goal) */
  candidates: GoalCandidate[];
  nextActions: NextAction[];
  exampleGoals: ExampleGoal[];
  exampleInput: Record<string, unknown>;
  urls: string[];
}

export interface NeedInputAnswer {
  status: 'need_input';
  code: NeedInputCode;
  job: { kind: 'playbook' | 'tool'; id: string; title: string; confidence: number };
  missing: string[];
  hint: string;
  nextActions: NextAction[];
  exampleGoals: ExampleGoal[];
  exampleInput: Record<string, unknown>;
  field?: string;
  url?: string;
  reason?: string;
}

// Goals as an agent would write them, one per kind of job; each is offered only when it matches
// its job with the registries in use (checked, then cached per registries).
const CURATED_GOALS: readonly ExampleGoal[] = [
  { goal: 'Audit the SEO of https://example.com/', leadsTo: 'seo-audit' },
  { goal: 'Check the security headers and TLS of https://example.com/', leadsTo: 'security-baseline' },
  { goal: 'Is https://example.com/ ready to ship?', leadsTo: 'ship-check' },
  { goal: 'Why is my page slow? https://example.com/', leadsTo: 'page-speed-audit' },
  { goal: 'Compare https://example.com/ with my competitor https://competitor.example/', leadsTo: 'competitor-comparison' },
  { goal: 'Work out my loan EMI', leadsTo: 'calculators_emi_calculator' },
  { goal: 'Convert a DOCX file to PDF', leadsTo: 'documents_docx_to_pdf' },
];
const MAX_EXAMPLES = 5;

const checked = new WeakMap<Registries['catalog'], WeakMap<Registries['playbooks'], ExampleGoal[]>>();

function leadsTo(goal: string, registries: Registries): string | null {
  const m = matchGoal(goal, registries);
  return m.decision === 'match' ? (m.best?.id ?? null) : null;
}

/** The curated example goals that match their job with these registries. */
export function curatedExampleGoals(registries: Registries): ExampleGoal[] {
  let byPlaybooks = checked.get(registries.catalog);
  if (byPlaybooks === undefined) {
    byPlaybooks = new WeakMap();
    checked.set(registries.catalog, byPlaybooks);
  }
  let goals = byPlaybooks.get(registries.playbooks);
  if (goals === undefined) {
    goals = CURATED_GOALS.filter((g) => leadsTo(g.goal, registries) === g.leadsTo);
    byPlaybooks.set(registries.playbooks, goals);
  }
  return goals;
}

/**
 * 3-5 example goals: first one per candidate (its title or best-named phrase, if that matches it),
 * then the curated ones, each distinct and each checked to match.
 */
export function exampleGoalsFor(candidates: readonly GoalCandidate[], registries: Registries, url?: string): ExampleGoal[] {
  const out: ExampleGoal[] = [];
  const add = (g: ExampleGoal): void => {
    if (out.length < MAX_EXAMPLES && !out.some((o) => o.goal === g.goal || o.leadsTo === g.leadsTo)) out.push(g);
  };
  for (const c of candidates.slice(0, 3)) {
    for (const phrase of [c.title, c.matchedPhrase]) {
      if (phrase === null) continue;
      const goal = c.kind === 'playbook' && url !== undefined ? `${phrase} ${url}` : phrase;
      if (leadsTo(goal, registries) === c.id) {
        add({ goal, leadsTo: c.id });
        break;
      }
    }
  }
  for (const g of curatedExampleGoals(registries)) add(g);
  return out;
}

/** A job's example input: a playbook's required inputs or a tool's first example. */
export function exampleInputFor(kind: 'playbook' | 'tool', id: string, registries: Registries): Record<string, unknown> {
  if (kind === 'playbook') {
    const p = registries.playbooks.get(id);
    return p === undefined ? {} : playbookExampleInput(p);
  }
  const tool = registries.catalog.get(id);
  return tool === undefined ? {} : toolExampleInput(tool);
}

function runAction(c: Pick<GoalCandidate, 'kind' | 'id' | 'title'>, input: Record<string, unknown>): NextAction {
  if (c.kind === 'playbook') return { tool: 'run_playbook', arguments: { skillId: c.id, input }, why: `Runs the playbook "${c.title}" directly` };
  // invoke_tool takes a file tool's file beside the input, not inside it.
  const { file, ...fields } = input;
  return { tool: 'invoke_tool', arguments: { operationId: c.id, input: fields, ...(file === undefined ? {} : { file }) }, why: `Runs the tool "${c.title}" directly` };
}

const list = (cs: readonly GoalCandidate[]): string => cs.map((c) => `${c.id} (${c.confidence})`).join(', ');

function suggestHint(match: GoalMatch): string {
  const top = match.candidates.slice(0, 3);
  switch (match.reason) {
    case 'empty_goal':
      return 'The goal is empty. Say in a few words what to check or compute, with the page URL if there is one, e.g. "Audit the SEO of https://example.com/".';
    case 'goal_too_long':
      return `The goal is longer than ${MAX_GOAL_CHARS} characters. State the job in one sentence; pass page content as input.html and text as input.text, not in the goal.`;
    case 'no_words':
      return match.urls.length > 0
        ? `The goal gives a URL (${match.urls[0] ?? ''}) but no word saying what to do with it. Say what to check, e.g. "Audit the SEO of ${match.urls[0] ?? ''}".`
        : 'No word of the goal names a job this service has. Say what to check or compute in plain words, pick one of the example goals, or search with list_skills and discover_tools.';
    case 'low_confidence':
      return `No job matches the goal clearly enough (best ${list(top.slice(0, 1))}, a match needs ${MATCH_THRESHOLD}). Rephrase with the job's name, or run one of the candidates directly.`;
    case 'ambiguous':
      return `The goal fits several jobs about equally: ${list(top)}. Name the one you mean (an example goal below leads to each), or run it directly.`;
    case 'several_jobs':
      return `The goal names more than one job: ${list(top.slice(0, 2))}. Run them one at a time: one goal per solve_task.`;
    default:
      return 'Rephrase the goal.';
  }
}

/** The `suggest` answer for a goal the matcher did not match (free: nothing runs). */
export function suggestAnswer(goal: string, match: GoalMatch, registries: Registries): SuggestAnswer {
  const code = match.reason === 'matched' ? 'ambiguous' : match.reason;
  const url = match.urls[0];
  const exampleGoals = exampleGoalsFor(match.candidates, registries, url);
  const top = match.candidates[0];
  const exampleInput = top === undefined ? { url: url ?? 'https://example.com/' } : exampleInputFor(top.kind, top.id, registries);
  if (url !== undefined && 'url' in exampleInput) exampleInput.url = url;
  const nextActions: NextAction[] = [];
  for (const example of exampleGoals.slice(0, 3)) {
    nextActions.push({ tool: 'solve_task', arguments: { goal: example.goal, input: url === undefined || example.goal.includes(url) ? {} : { url } }, why: `Leads to ${example.leadsTo}` });
  }
  for (const c of match.candidates.slice(0, 2)) nextActions.push(runAction(c, exampleInputFor(c.kind, c.id, registries)));
  nextActions.push({ tool: 'list_skills', arguments: {}, why: 'Every playbook, to pick one by id' });
  const query = goal.length <= 200 ? goal.replace(/\bhttps?:\/\/\S+/g, '').trim() : '';
  if (query !== '') nextActions.push({ tool: 'discover_tools', arguments: { query }, why: 'The catalog searched for the goal\'s words' });
  return { status: 'suggest', code, hint: suggestHint(match), candidates: match.candidates, nextActions, exampleGoals, exampleInput, urls: match.urls };
}

/** The `need_input` answer for a matched job missing a field or given a local URL (free: nothing runs). */
export function needInputAnswer(goal: string, need: NeedInput, candidate: GoalCandidate, given: Record<string, unknown> | undefined, registries: Registries): NeedInputAnswer {
  const kept: Record<string, unknown> = { ...(given ?? {}) };
  for (const m of need.missing) delete kept[m];
  const input = { ...need.exampleInput, ...kept };
  const nextActions: NextAction[] = [{ tool: 'solve_task', arguments: { goal, input }, why: `The same goal with ${need.missing.map((m) => `input.${m}`).join(', ') || 'the input'} filled in (replace the example values)` }];
  if (need.code === 'local_preview_required' && need.hint.includes('input.html')) {
    const { [need.field ?? 'url']: _dropped, ...rest } = kept;
    nextActions.push({ tool: 'solve_task', arguments: { goal, input: { ...rest, html: '<the page HTML>' } }, why: 'Analyses the HTML you pass, free, with no fetch' });
  }
  nextActions.push(runAction({ kind: need.job.kind, id: need.job.id, title: candidate.title }, input));
  const sameJob = curatedExampleGoals(registries).filter((g) => g.leadsTo === need.job.id);
  const exampleGoals = [...sameJob, ...curatedExampleGoals(registries).filter((g) => g.leadsTo !== need.job.id)].slice(0, 3);
  return {
    status: 'need_input',
    code: need.code,
    job: { kind: need.job.kind, id: need.job.id, title: candidate.title, confidence: candidate.confidence },
    missing: need.missing,
    hint: need.hint,
    nextActions,
    exampleGoals,
    exampleInput: need.exampleInput,
    ...(need.field === undefined ? {} : { field: need.field }),
    ...(need.url === undefined ? {} : { url: need.url }),
    ...(need.reason === undefined ? {} : { reason: need.reason }),
  };
}
