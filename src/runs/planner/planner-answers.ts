// The free answers plan_task and solve_task share when they do not run anything: `suggest` (the
// goal is unclear) and `need_input` (the job is clear, a field is not). Both say what to call next
// with exact arguments and give example goals that are checked to match, so an agent can always
// take a next step without guessing; an example goal that does not match the registries in use
// is never offered. A URL the caller gave is kept in every argument that takes one, and every
// next action is one that succeeds when followed as written (placeholders in angle brackets aside).
import { matchGoal, MATCH_THRESHOLD, MAX_CANDIDATES, type GoalCandidate, type GoalMatch, type MatchReason } from './goal-matcher.ts';
import type { Registries } from './goal-index.ts';
import { contentFieldOf, isHtmlMarkup, sentContent } from './input-content.ts';
import { jobReads, playbookExampleInput, toolExampleInput, type NeedInput, type NeedInputCode } from './input-resolution.ts';
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
  /** why the goal was not matched (MatchReason without `matched`), or the job matched reads none of the input.text / input.code sent */
  code: Exclude<MatchReason, 'matched'> | 'input_not_taken';
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
  code: Exclude<NeedInputCode, 'input_not_taken'>;
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
  // The caller's URL replaces the curated goals' example one: the goal then names the page meant.
  for (const g of curatedExampleGoals(registries)) add(url === undefined ? g : { goal: g.goal.replace('https://example.com/', url), leadsTo: g.leadsTo });
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

/** An example input with the caller's URL in the field that names the page (url, or yourUrl of a comparison). */
function withUserUrl(input: Record<string, unknown>, url: string | undefined): Record<string, unknown> {
  if (url === undefined) return input;
  const out = { ...input };
  for (const key of ['url', 'yourUrl']) if (key in out) out[key] = url;
  return out;
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
    case 'vague':
      return `The goal does not say what to do: its words (${(top[0]?.matchedOn ?? []).join(', ')}) fit many jobs, so nothing was run or charged. Say what to check, convert or compute${match.urls[0] === undefined ? '' : ` on ${match.urls[0]}`} (an example goal below leads to each candidate), or run a candidate directly.`;
    default:
      return 'Rephrase the goal.';
  }
}

/**
 * The `suggest` answer for a goal the matcher did not match (free: nothing runs). With the
 * caller's input, content sent as input.text or input.code narrows the candidates to the jobs that
 * read it, each offered with a call on that content.
 */
export function suggestAnswer(goal: string, match: GoalMatch, registries: Registries, given?: Record<string, unknown>): SuggestAnswer {
  const code = match.reason === 'matched' ? 'ambiguous' : match.reason;
  if (given !== undefined && sentContent(given).length > 0 && code !== 'empty_goal' && code !== 'goal_too_long') {
    const sent = sentContent(given).map((k) => `input.${k}`).join(' and ');
    const hint = `The goal does not name clearly (${code}) what to do with the ${sent} you sent. The jobs listed read it as their input: run one of them on it, or rephrase the goal with the job's name.`;
    return { ...contentSuggest(goal, hint, given, registries), code, urls: match.urls };
  }
  const url = match.urls[0];
  const exampleGoals = exampleGoalsFor(match.candidates, registries, url);
  const top = match.candidates[0];
  const exampleInput = top === undefined ? { url: url ?? 'https://example.com/' } : withUserUrl(exampleInputFor(top.kind, top.id, registries), url);
  const nextActions: NextAction[] = [];
  for (const example of exampleGoals.slice(0, 3)) {
    nextActions.push({ tool: 'solve_task', arguments: { goal: example.goal, input: url === undefined || example.goal.includes(url) ? {} : { url } }, why: `Leads to ${example.leadsTo}` });
  }
  for (const c of match.candidates.slice(0, 2)) nextActions.push(runAction(c, withUserUrl(exampleInputFor(c.kind, c.id, registries), url)));
  nextActions.push({ tool: 'list_skills', arguments: {}, why: 'Every playbook, to pick one by id' });
  const query = goal.length <= 200 ? goal.replace(/\bhttps?:\/\/\S+/g, '').trim() : '';
  if (query !== '') nextActions.push({ tool: 'discover_tools', arguments: { query }, why: 'The catalog searched for the goal\'s words' });
  return { status: 'suggest', code, hint: suggestHint(match), candidates: match.candidates, nextActions, exampleGoals, exampleInput, urls: match.urls };
}

// Content echoed back in a next action's arguments at most this long; longer, a placeholder says to send it again.
const ECHO_MAX_CHARS = 2000;

/** The jobs that read the content the caller sent, ranked by the goal, then the others that read it, up to MAX_CANDIDATES. */
function contentReaders(goal: string, keys: readonly ('text' | 'code')[], given: Record<string, unknown>, registries: Registries): GoalCandidate[] {
  const markup = typeof given.code === 'string' && isHtmlMarkup(given.code);
  const reads = (job: { kind: 'playbook' | 'tool'; id: string }): boolean => keys.some((k) => jobReads(job, k, registries, markup));
  const ranked = matchGoal(goal, registries, { only: reads }).candidates;
  const out = [...ranked];
  const jobs = [...registries.playbooks.ids().map((id) => ({ kind: 'playbook' as const, id })), ...registries.catalog.tools.filter((t) => t.websiteOnly !== true).map((t) => ({ kind: 'tool' as const, id: t.operationId }))];
  for (const job of jobs) {
    if (out.length >= MAX_CANDIDATES) break;
    if (out.some((c) => c.id === job.id) || !reads(job)) continue;
    const title = job.kind === 'playbook' ? (registries.playbooks.get(job.id)?.title ?? job.id) : (registries.catalog.get(job.id)?.title ?? job.id);
    out.push({ kind: job.kind, id: job.id, title, confidence: 0, matchedOn: [], matchedPhrase: null });
  }
  return out;
}

/**
 * The free `suggest` for a job that reads none of the input.text / input.code sent: the jobs that
 * do, each with a call that runs it on that same content.
 */
function contentSuggest(goal: string, hint: string, given: Record<string, unknown>, registries: Registries): SuggestAnswer {
  const keys = sentContent(given);
  const candidates = contentReaders(goal, keys, given, registries);
  const content = (k: 'text' | 'code'): unknown => {
    const value = given[k] as string;
    return value.length <= ECHO_MAX_CHARS ? value : `<your input.${k}, as you sent it>`;
  };
  const nextActions: NextAction[] = [];
  for (const c of candidates.slice(0, 3)) {
    if (c.kind === 'tool') {
      const tool = registries.catalog.get(c.id);
      const key = keys.find((k) => tool !== undefined && contentFieldOf(tool, k) !== undefined) ?? 'code';
      const field = tool === undefined ? key : (contentFieldOf(tool, key) ?? key);
      nextActions.push(runAction(c, { ...exampleInputFor('tool', c.id, registries), [field]: content(key) }));
    } else {
      const key = keys.find((k) => registries.playbooks.get(c.id)?.inputs[k] !== undefined);
      nextActions.push(runAction(c, key === undefined ? { html: content('code') } : { ...exampleInputFor('playbook', c.id, registries), [key]: content(key) }));
    }
  }
  nextActions.push({ tool: 'discover_tools', arguments: { query: keys.includes('code') ? 'code' : 'text' }, why: 'The catalog searched for tools that take it' });
  const exampleInput = nextActions[0]?.arguments.input as Record<string, unknown> | undefined;
  return {
    status: 'suggest',
    code: 'input_not_taken',
    hint: `${hint} Nothing was run or charged.`,
    candidates,
    nextActions,
    exampleGoals: exampleGoalsFor(candidates, registries),
    exampleInput: exampleInput ?? {},
    urls: [],
  };
}

/**
 * The caller's input as an answer may repeat it in its suggested calls: short values as they are,
 * a long text or page and a file's base64 as a placeholder naming what goes there (an agent sends
 * its own copy again; an answer that echoed a 5 MB upload back would not fit its context window).
 */
function echoable(given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (typeof value === 'string' && value.length > ECHO_MAX_CHARS) out[key] = `<your input.${key}, as you sent it>`;
    else if (value !== null && typeof value === 'object' && typeof (value as { base64?: unknown }).base64 === 'string') out[key] = { ...value, base64: `<the base64 of your input.${key}, as you sent it>` };
    else if (JSON.stringify(value ?? null).length > ECHO_MAX_CHARS) out[key] = `<your input.${key}, as you sent it>`;
    else out[key] = value;
  }
  return out;
}

/**
 * The `need_input` answer for a matched job missing a field or given a local URL (free: nothing
 * runs); for a job that reads none of the input.text / input.code sent, the `suggest` listing the
 * jobs that do.
 */
export function needInputAnswer(goal: string, need: NeedInput, candidate: GoalCandidate, given: Record<string, unknown> | undefined, registries: Registries): NeedInputAnswer | SuggestAnswer {
  if (need.code === 'input_not_taken') return contentSuggest(goal, need.hint, given ?? {}, registries);
  const kept: Record<string, unknown> = echoable(given ?? {});
  for (const m of need.missing) delete kept[m];
  const input = { ...need.exampleInput, ...kept };
  const nextActions: NextAction[] = [];
  if (need.code === 'local_preview_required' && need.hint.includes('input.html')) {
    // First, as it works with nothing deployed: the page's HTML beside the same goal. The local URL
    // may stay in the goal (with input.html it only names the page); it is left out of the input.
    const { [need.field ?? 'url']: _dropped, ...rest } = kept;
    nextActions.push({
      tool: 'solve_task',
      arguments: { goal, input: { ...rest, html: '<the page HTML>' } },
      why: `Replace <the page HTML> with the full HTML source of the page (what ${need.url ?? 'your local server'} serves): it is analysed free, with no fetch`,
    });
  }
  nextActions.push({ tool: 'solve_task', arguments: { goal, input }, why: `The same goal with ${need.missing.map((m) => `input.${m}`).join(', ') || 'the input'} filled in (replace the example values${need.code === 'local_preview_required' ? ' with the public https URL of a deployed preview' : ''})` });
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
