// plan_task's answer (free, runs nothing): for a goal and an optional input, the job it maps to,
// the skills and tools that job would use with their prices, a credit estimate of what would be
// billed, how feature memory will record a pass, the canonical preview-deploy flow when the goal
// is about a preview, and what to call next with exact arguments. solve_task routes through the
// same matchGoal / resolveJobInput / suggestAnswer / needInputAnswer, so both agree on every goal.
import { matchGoal, type GoalCandidate, type GoalMatch } from './goal-matcher.ts';
import type { Registries } from './goal-index.ts';
import { extractUrls, rawWords } from './goal-text.ts';
import { accessOf, playbookStepNeeds, resolveJobInput, type ResolvedInput, type StepAccess } from './input-resolution.ts';
import { judgeUrl } from './local-url.ts';
import { needInputAnswer, suggestAnswer, type NeedInputAnswer, type NextAction, type SuggestAnswer } from './planner-answers.ts';

export interface PlannedTool {
  operationId: string;
  title: string;
  /** the catalog price of one call */
  credits: number;
  /** the playbook step that calls it (absent for a single-tool job) */
  stepId?: string;
  access: StepAccess;
  /** false for a step gated by an optional input (`when`) that was not given */
  runs: boolean;
  /** whether this call would be charged: local analysis of input.html is free unless enhance */
  billed: boolean;
}

export interface CreditEstimate {
  total: number;
  estimate: true;
  note: string;
}

export interface FeatureMemoryPlan {
  recordKeeping: {
    /** false when input.featureMemory.capture is false */
    automatic: boolean;
    note: string;
    optOut: { 'input.featureMemory.capture': false };
    recall: NextAction;
  };
}

export interface GoldenStep {
  step: number;
  /** the meta-tool to call, or null for what the host does in its own workspace */
  tool: string | null;
  arguments?: Record<string, unknown>;
  what: string;
}

export interface PlannedAnswer {
  status: 'planned';
  job: GoalCandidate;
  confidence: number;
  /** playbook ids the plan runs (empty for a single tool) */
  skills: string[];
  tools: PlannedTool[];
  estimatedCredits: CreditEstimate;
  /** the input the job would run with, URLs from the goal filled in */
  input: Record<string, unknown>;
  mode: ResolvedInput['mode'];
  nextActions: NextAction[];
}

type Common = { goal: string; featureMemory: FeatureMemoryPlan; goldenPath?: GoldenStep[] };
export type PlanAnswer = Common & (PlannedAnswer | SuggestAnswer | NeedInputAnswer);

export interface PlanOptions {
  /** rule 3: local input is analysed free unless enhance is true */
  enhance?: boolean;
}

function featureMemoryPlan(input: Record<string, unknown> | undefined): FeatureMemoryPlan {
  const fm = input?.featureMemory;
  const automatic = !(typeof fm === 'object' && fm !== null && (fm as Record<string, unknown>).capture === false);
  return {
    recordKeeping: {
      automatic,
      note: automatic
        ? 'A gate pass in run_playbook, solve_task or verify_task is recorded automatically as a feature (the result carries featureMemoryRecord.featureId). Send input.featureMemory.capture=false to opt out. Call recall_context before rebuilding to read what passed before.'
        : 'Recording is off for this input (input.featureMemory.capture=false): a gate pass will not be recorded. Call recall_context to read what passed before, or capture_feature to record by hand.',
      optOut: { 'input.featureMemory.capture': false },
      recall: { tool: 'recall_context', arguments: {}, why: 'What is stored for this project: features that passed, their requirements and acceptance' },
    },
  };
}

// A preview or deploy goal: "check my PR preview", "deploy to staging", "promote the preview".
const PREVIEW_WORDS = new Set(['preview', 'previews', 'staging', 'deploy', 'deployed', 'deploying', 'deployment', 'deployments', 'redeploy', 'promote', 'promoting', 'promotion', 'pr', 'vercel', 'netlify']);

export function isPreviewGoal(goal: string): boolean {
  const words = rawWords(goal.slice(0, 2000));
  return words.some((w, i) => PREVIEW_WORDS.has(w) || ((w === 'pull' || w === 'merge') && words[i + 1] === 'request'));
}

/** Rule 9's canonical flow for a preview deploy, with the ship gate (needs the ship-check playbook). */
export function goldenPathFor(goal: string, urls: readonly string[], registries: Registries): GoldenStep[] | undefined {
  const ship = registries.playbooks.get('ship-check');
  if (ship === undefined || !isPreviewGoal(goal)) return undefined;
  const preview = urls.find((u) => judgeUrl(u).kind === 'public') ?? '<the public https URL of the preview>';
  return [
    { step: 1, tool: 'plan_task', arguments: { goal }, what: 'This plan: the job, its tools and the credit estimate' },
    { step: 2, tool: 'run_playbook', arguments: { skillId: ship.id, input: { url: preview } }, what: `Run the ship gate (${ship.gate.requireGood.join(', ')} must be good) on the deployed preview, not on localhost` },
    { step: 3, tool: null, what: 'Apply only the rank-1 fix, loop.nextActions[0], in your workspace and redeploy the preview; keep loop.remainingFixes for later rounds' },
    { step: 4, tool: 'verify_task', arguments: { goal, baseline: '<the result of step 2, or of the last verify_task>' }, what: 'Re-check and read the delta; repeat steps 3-4 until loop.gate is pass, or stop and ask a human when loop.stop is set or loop.initiate is false' },
    { step: 5, tool: null, what: 'Promote the preview to production only when loop.gate is pass; the pass is recorded in feature memory (featureMemoryRecord.featureId)' },
    { step: 6, tool: 'fetch_payload', arguments: { dataRefId: '<a dataRefId from a result>' }, what: 'Only when raw step detail is needed' },
  ];
}

function plannedTools(resolved: ResolvedInput, registries: Registries, enhance: boolean): PlannedTool[] {
  const free = resolved.mode === 'local' && !enhance;
  if (resolved.job.kind === 'tool') {
    const tool = registries.catalog.get(resolved.job.id);
    if (tool === undefined) return [];
    return [{ operationId: tool.operationId, title: tool.title, credits: tool.credits, access: accessOf(tool), runs: true, billed: !free }];
  }
  const playbook = registries.playbooks.get(resolved.job.id);
  if (playbook === undefined) return [];
  return playbookStepNeeds(playbook, registries.catalog).map((need) => {
    const runs = need.when === undefined || resolved.input[need.when] !== undefined;
    return {
      operationId: need.operationId,
      title: registries.catalog.get(need.operationId)?.title ?? need.operationId,
      credits: need.credits,
      stepId: need.stepId,
      access: need.access,
      runs,
      billed: runs && !free,
    };
  });
}

function estimate(tools: readonly PlannedTool[], mode: ResolvedInput['mode'], enhance: boolean): CreditEstimate {
  const total = tools.filter((t) => t.billed).reduce((sum, t) => sum + t.credits, 0);
  const why =
    mode === 'local' && !enhance
      ? 'the HTML you pass is analysed locally, free (rule 3); send enhance: true to have it billed as a full run.'
      : 'the catalog price of each call that would run, summed; steps gated by an optional input you did not give are left out.';
  return { total, estimate: true, note: `An estimate, not a charge: ${why} Failed calls are refunded as over REST.` };
}

function plannedNext(goal: string, candidate: GoalCandidate, resolved: ResolvedInput, given: Record<string, unknown> | undefined): NextAction[] {
  const passthrough: Record<string, unknown> = {};
  for (const key of ['featureMemory'] as const) if (given?.[key] !== undefined) passthrough[key] = given[key];
  const input = { ...resolved.input, ...(resolved.local ?? {}), ...passthrough, ...(resolved.file === undefined ? {} : { file: resolved.file }) };
  if (resolved.job.kind === 'playbook') {
    return [
      { tool: 'run_playbook', arguments: { skillId: resolved.job.id, input }, why: `Runs "${candidate.title}" and attaches verification.evidence; then follow loop.nextActions` },
      { tool: 'solve_task', arguments: { goal, input }, why: 'The same job, routed from the goal' },
      { tool: 'load_skill', arguments: { skillId: resolved.job.id }, why: 'The steps, acceptance criteria and input schema, to read before running' },
    ];
  }
  const { file, ...fields } = input as Record<string, unknown> & { file?: unknown };
  return [
    { tool: 'solve_task', arguments: { goal, input }, why: `Runs "${candidate.title}" from the goal` },
    { tool: 'invoke_tool', arguments: { operationId: resolved.job.id, input: fields, ...(file === undefined ? {} : { file }) }, why: 'The same call, direct' },
  ];
}

/** A goal routed to a job ready to run, or the free answer to give instead. */
export type RouteResult = { status: 'ready'; job: GoalCandidate; resolved: ResolvedInput; match: GoalMatch } | SuggestAnswer | NeedInputAnswer;

/**
 * solve_task's routing (and plan_task's): match the goal, then resolve the job's input. Only a
 * `ready` result may be run and billed; `suggest` and `need_input` are answered as they are.
 */
export function routeGoal(goal: unknown, input: Record<string, unknown> | undefined, registries: Registries): RouteResult {
  const text = typeof goal === 'string' ? goal : '';
  const match = matchGoal(goal, registries);
  if (match.decision === 'suggest' || match.best === null) return suggestAnswer(text, match, registries, input);
  const resolved = resolveJobInput({ kind: match.best.kind, id: match.best.id }, { input, goalUrls: match.urls, goal: text }, registries);
  if (resolved.status === 'need_input') return needInputAnswer(text, resolved, match.best, input, registries);
  return { status: 'ready', job: match.best, resolved, match };
}

/** plan_task: the plan for a goal (free). `input` is the caller's input object, if any. */
export function planTask(goal: unknown, input: Record<string, unknown> | undefined, registries: Registries, options: PlanOptions = {}): PlanAnswer {
  const text = typeof goal === 'string' ? goal : '';
  const route = routeGoal(goal, input, registries);
  const featureMemory = featureMemoryPlan(input);
  const urls = route.status === 'ready' ? route.match.urls : route.status === 'suggest' ? route.urls : extractUrls(text.slice(0, 2000)).urls;
  const invalid = route.status === 'suggest' && (route.code === 'empty_goal' || route.code === 'goal_too_long');
  const goldenPath = invalid ? undefined : goldenPathFor(text, urls, registries);
  const common: Common = { goal: text, featureMemory, ...(goldenPath === undefined ? {} : { goldenPath }) };
  if (route.status !== 'ready') return { ...common, ...route };
  const { job: best, resolved } = route;
  const enhance = options.enhance === true;
  const tools = plannedTools(resolved, registries, enhance);
  return {
    ...common,
    status: 'planned',
    job: best,
    confidence: best.confidence,
    skills: best.kind === 'playbook' ? [best.id] : [],
    tools,
    estimatedCredits: estimate(tools, resolved.mode, enhance),
    input: resolved.input,
    mode: resolved.mode,
    nextActions: plannedNext(text, best, resolved, input),
  };
}
