// The jobs behind the planner meta-tools, with no MCP in them: run_playbook and run_workflow (a
// named playbook), solve_task (a goal routed to a playbook or one catalog tool), verify_task (the
// same job again, compared with a baseline). Each answers the spec's "MCP job result": execution,
// status, jobReport, verification.evidence, loop, and on a gate pass featureMemoryRecord. Every
// call a job makes goes through core/invoke (workflow-runner.ts); routing answers (suggest,
// need_input, need_baseline) run nothing and charge nothing.
import { createHash, type KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../../accounts/account-store.ts';
import type { Catalog } from '../../core/catalog.ts';
import type { Invoker } from '../../core/invoke.ts';
import type { FilePipeline } from '../../files/file-pipeline.ts';
import type { FeatureMemory } from '../feature-memory/feature-memory.ts';
import { projectScopeFor } from '../feature-memory/project-scope.ts';
import { inheritedInput, loopMemo, type JobState } from '../loop/job-chain.ts';
import { buildDelta, compactDelta } from '../loop/delta.ts';
import { evaluateGate, type GateResult } from '../loop/gate.ts';
import { compactJobReport, type JobReport } from '../loop/job-report.ts';
import { compactLoop, loopAfterSolve, loopAfterVerify, resolveLoopOptions, type Loop } from '../loop/loop-state.ts';
import { acceptanceText } from '../loop/acceptance.ts';
import { jobReportKey } from '../loop/report-signature.ts';
import { matchGoal } from '../planner/goal-matcher.ts';
import { resolveJobInput, type ResolvedInput } from '../planner/input-resolution.ts';
import { needInputAnswer, suggestAnswer } from '../planner/planner-answers.ts';
import type { Playbook } from '../playbooks/playbook-schema.ts';
import type { PlaybookRegistry } from '../playbooks/playbook-registry.ts';
import type { JobLink, RunStore } from '../run-store.ts';
import { resolveVerifyBaseline } from './job-baseline.ts';
import { jobOutcome } from './job-outcome.ts';
import { runWorkflow, WorkflowRefused, type WorkflowResult } from './workflow-runner.ts';

export interface JobServiceDeps {
  catalog: Catalog;
  invoker: Invoker;
  files: Pick<FilePipeline, 'createWorkDir' | 'removeWorkDir' | 'receiveStored'>;
  skills: PlaybookRegistry;
  memory: FeatureMemory;
  /** the service secret jobReports are sealed under (per account, see jobReportKey) */
  reportSecret: string;
  /** every job is a run: its report, chain and loop are kept on it (job-chain.ts) */
  runs: RunStore;
}

export type IntentType = 'run_playbook' | 'run_workflow' | 'solve_task' | 'verify_task';

export interface JobCall {
  caller: Caller;
  requestId: string;
  log: FastifyBaseLogger;
  signal?: AbortSignal | undefined;
  /** the run that executes this job (async), for execution.runId */
  runId?: string | null | undefined;
  /**
   * Takes the run's link (report, chain, state) for the run's executor to store with the run's
   * end, in the same statement; without it the link is written to the run at once.
   */
  keep?: ((link: JobLink) => void) | undefined;
  idempotencyKey?: string | null | undefined;
  responseMode?: 'compact' | 'full' | 'dataRef' | undefined;
  maxRounds?: unknown;
  sameFindingsLimit?: unknown;
  /** rule 3: local input is analysed free unless enhance; with it the billed calls read input.url */
  enhance?: boolean | undefined;
  /** progress per step, for a client that asked for it (an MCP progressToken) */
  onProgress?: ((p: { done: number; total: number; message: string }) => void) | undefined;
}

type Remembered = { featureId?: string; projectScope: string | null; profileId?: string };

export type JobAnswer = { status: string } & Record<string, unknown>;

interface Execution {
  runId: string | null;
  intentId: string;
  intentType: IntentType;
  idempotencyKey: string | null;
  projectScope: string | null;
}

const capture = (input: Record<string, unknown> | undefined): boolean => {
  const fm = input?.['featureMemory'];
  return !(typeof fm === 'object' && fm !== null && (fm as Record<string, unknown>)['capture'] === false);
};
const goalKeyOf = (job: { kind: string; id: string }): string => (job.kind === 'playbook' ? `playbook:${job.id}` : `tool:${job.id}`);
/** What intentId is derived from: the job a goal routes to, or the goal's own words when it routes nowhere yet. */
const intentOf = (best: { kind: string; id: string } | null, text: string): string => (best === null ? `goal:${text.toLowerCase().replace(/\s+/g, ' ').trim().slice(0, 500)}` : goalKeyOf(best));
const projectScopeOf = (input: Record<string, unknown> | undefined): string | null => (typeof input?.['projectScope'] === 'string' ? input['projectScope'] : null);

/**
 * verification.evidence: the acceptance criteria as sentences, each judged (met, and the findings
 * behind one that is not), and why the gate is what it is. Read before loop.remainingFixes.
 */
function evidenceOf(playbook: Playbook, gate: GateResult): { evidence: Record<string, unknown> } {
  return { evidence: { acceptance: playbook.acceptance.map(acceptanceText), criteria: gate.criteria ?? [], gate: gate.gate, reasons: gate.reasons, advisories: gate.advisories } };
}

/** A single catalog tool as a one-step playbook, so a tool job reports, gates and loops like any other. */
function toolPlaybook(catalog: Catalog, operationId: string): Playbook {
  const tool = catalog.get(operationId);
  return {
    id: `tool-${operationId.replace(/_/g, '-')}`,
    title: tool?.title ?? operationId,
    description: tool?.description ?? operationId,
    version: '1.0.0',
    tags: [],
    aliases: [],
    inputs: {},
    steps: [{ id: 'call', operationId, purpose: tool?.title ?? operationId, input: {} }],
    scores: [],
    gate: { policy: 'default', requireGood: [], advisory: [] },
    acceptance: [{ text: `${operationId} answers without an error`, requires: { stepsOk: true } }],
    guidance: 'A single operation: read its result.',
  };
}

export class JobService {
  readonly #deps: JobServiceDeps;

  constructor(deps: JobServiceDeps) {
    this.#deps = deps;
  }

  get registries() {
    return { playbooks: this.#deps.skills, catalog: this.#deps.catalog };
  }

  // An HMAC per call to derive the same key again: kept per account (bounded; a key is 32 bytes).
  readonly #keys = new Map<string, KeyObject>();

  #key(caller: Caller) {
    let key = this.#keys.get(caller.account.id);
    if (key === undefined) {
      if (this.#keys.size >= 10_000) this.#keys.clear();
      key = jobReportKey(this.#deps.reportSecret, caller.account.id);
      this.#keys.set(caller.account.id, key);
    }
    return key;
  }

  /**
   * intentId names one goal in one project scope of this account, so every call of one fix loop
   * (plan, solve, verify ...) carries the same one; projectScope is the caller's, else the page's
   * origin, else `local`, from the first call on (the scope feature memory files a pass under).
   */
  #execution(call: JobCall, intentType: IntentType, input: Record<string, unknown> | undefined, intent: string, url?: unknown): Execution {
    const projectScope = projectScopeFor(projectScopeOf(input), typeof url === 'string' ? url : typeof input?.['url'] === 'string' ? input['url'] : null);
    const intentId = `int_${createHash('sha256').update(`${call.caller.account.id}\u0000${intent}\u0000${projectScope}`).digest('hex').slice(0, 24)}`;
    return { runId: call.runId ?? null, intentId, intentType, idempotencyKey: call.idempotencyKey ?? null, projectScope };
  }

  /** What a job run keeps for the verifies after it (job-chain.ts); a job without a run (a test's direct call) keeps nothing. */
  async #keep(call: JobCall, answer: JobAnswer, state: Omit<JobState, 'intentId'>, execution: Execution, chainId: string | null): Promise<void> {
    if (!call.runId) return;
    const report = answer['jobReport'] as { reportId?: unknown } | undefined;
    const jobState: JobState = { ...state, intentId: execution.intentId };
    const link: JobLink = { reportId: typeof report?.reportId === 'string' ? report.reportId : null, chainId: chainId ?? call.runId, jobState: JSON.stringify(jobState) };
    if (call.keep) call.keep(link);
    else await this.#deps.runs.attachJob(call.runId, link);
  }

  /** run_playbook / run_workflow: a named playbook with its input. */
  async runPlaybook(call: JobCall, skillId: string, input: Record<string, unknown> | undefined, intentType: 'run_playbook' | 'run_workflow' = 'run_playbook'): Promise<JobAnswer> {
    const execution = this.#execution(call, intentType, input, `playbook:${skillId}`);
    const playbook = this.#deps.skills.get(skillId);
    if (!playbook) {
      const known = this.#deps.skills.list().map((s) => s.id);
      return { status: 'error', error: 'unknown_skill', message: `No playbook ${skillId}`, detail: `Known: ${known.join(', ')}; list_skills describes them`, execution };
    }
    const resolved = resolveJobInput({ kind: 'playbook', id: skillId }, { input }, this.registries);
    if (resolved.status === 'need_input') {
      return { ...needInputAnswer(skillId, resolved, { kind: 'playbook', id: skillId, title: playbook.title, confidence: 1, matchedOn: [], matchedPhrase: null }, input, this.registries), execution };
    }
    resolveLoopOptions(call);
    const needUrl = this.#enhanceNeedsUrl(call, resolved, execution);
    if (needUrl) return needUrl;
    return this.#runResolved(call, execution, playbook, resolved, input, intentType === 'run_playbook');
  }

  /** solve_task: the goal routed to a job by the matcher; suggest and need_input run nothing. */
  async solve(call: JobCall, goal: unknown, input: Record<string, unknown> | undefined): Promise<JobAnswer> {
    const text = typeof goal === 'string' ? goal : '';
    const match = matchGoal(goal, this.registries);
    const execution = this.#execution(call, 'solve_task', input, intentOf(match.best, text), match.urls[0]);
    if (match.decision === 'suggest' || match.best === null) return { ...suggestAnswer(text, match, this.registries, input), execution };
    const best = match.best;
    const resolved = resolveJobInput({ kind: best.kind, id: best.id }, { input, goalUrls: match.urls, goal: text }, this.registries);
    if (resolved.status === 'need_input') return { ...needInputAnswer(text, resolved, best, input, this.registries), execution };
    resolveLoopOptions(call);
    const needUrl = this.#enhanceNeedsUrl(call, resolved, execution);
    if (needUrl) return needUrl;
    const playbook = best.kind === 'playbook' ? this.#deps.skills.get(best.id) : toolPlaybook(this.#deps.catalog, best.id);
    if (!playbook) throw new Error(`the matcher answered ${best.id}, which the registry does not hold`);
    const answer = await this.#runResolved(call, execution, playbook, resolved, input, true);
    return { ...answer, job: { ...best } };
  }

  /**
   * A job with a step the key may not call ran nothing: it answers as invoke answers that call
   * (403 tool_not_allowed or plan_forbidden, stage authorize), naming the operation.
   */
  #refused(refused: WorkflowRefused, execution: Execution): JobAnswer {
    const { refusal } = refused;
    return { status: 'error', operationId: refused.operationId, error: refusal.error, message: refusal.message, detail: refusal.detail, stage: 'authorize', credits: { charged: 0 }, execution };
  }

  /** The job's workflow, or its refusal when a step is one the caller may not call. */
  async #run(call: JobCall, playbook: Playbook, resolved: ResolvedInput, execution: Execution): Promise<WorkflowResult | { refused: JobAnswer }> {
    try {
      return await this.#runWorkflow(call, playbook, resolved);
    } catch (error) {
      if (error instanceof WorkflowRefused) return { refused: this.#refused(error, execution) };
      throw error;
    }
  }

  async #runWorkflow(call: JobCall, playbook: Playbook, resolved: ResolvedInput): Promise<WorkflowResult> {
    const toolJob = resolved.job.kind === 'tool';
    return runWorkflow(
      { catalog: this.#deps.catalog, invoker: this.#deps.invoker, files: this.#deps.files },
      {
        caller: call.caller,
        // A tool job's step takes the resolved input as it is; a playbook's steps map it.
        playbook: toolJob ? { ...playbook, steps: playbook.steps.map((s) => ({ ...s, input: resolved.input as never, ...(resolved.file === undefined ? {} : { file: '{{input.file}}' }) })) } : playbook,
        input: toolJob && resolved.file !== undefined ? { ...resolved.input, file: resolved.file } : resolved.input,
        mode: resolved.mode,
        local: resolved.local,
        enhance: call.enhance === true,
        goalKey: resolved.job.kind === 'playbook' ? `playbook:${resolved.job.id}` : `tool:${resolved.job.id}`,
        key: this.#key(call.caller),
        form: call.responseMode === 'full' ? 'full' : 'compact',
        requestId: call.requestId,
        log: call.log,
        signal: call.signal,
        onProgress: call.onProgress,
      },
    );
  }

  async #runResolved(call: JobCall, execution: Execution, playbook: Playbook, resolved: ResolvedInput, input: Record<string, unknown> | undefined, withLoop: boolean): Promise<JobAnswer> {
    const run = await this.#run(call, playbook, resolved, execution);
    if ('refused' in run) return run.refused;
    const outcome = jobOutcome(run, resolved.job.kind === 'tool' ? this.#deps.catalog.get(resolved.job.id) : undefined);
    const gate = evaluateGate(run.report, playbook.gate, { partial: run.status !== 'ok', acceptance: playbook.acceptance });
    const loop = loopAfterSolve(run.report, gate, { gatePolicy: playbook.gate, maxRounds: call.maxRounds, sameFindingsLimit: call.sameFindingsLimit, toolsUsed: run.toolsUsed, estimatedCredits: this.#estimate(playbook, resolved, call.enhance === true), blocked: outcome.blocked, acceptance: playbook.acceptance, ownCategory: playbook.scores[0] });
    // A conversion is not a feature, and a cancelled run is not a run to remember.
    const memory: Remembered = outcome.fileResult === undefined && run.cancelled !== true ? await this.#remember(call, playbook, resolved, input, run, gate) : { projectScope: null };
    const answer: JobAnswer = {
      status: run.status,
      ...outcome.top,
      execution: { ...execution, projectScope: memory.projectScope ?? execution.projectScope },
      skillId: resolved.job.kind === 'playbook' ? playbook.id : null,
      mode: resolved.mode,
      jobReport: call.responseMode === 'full' ? run.report : compactJobReport(run.report),
      verification: evidenceOf(playbook, gate),
      ...(withLoop ? { loop: call.responseMode === 'full' ? loop : compactLoop(loop) } : {}),
      ...(memory.featureId ? { featureMemoryRecord: { featureId: memory.featureId, projectScope: memory.projectScope } } : {}),
      ...(memory.profileId ? { profileId: memory.profileId } : {}),
      credits: { charged: run.creditsCharged },
      ...(resolved.fromGoal.length > 0 ? { filledFromGoal: resolved.fromGoal } : {}),
      ...(resolved.ignored.length > 0 ? { ignoredInput: resolved.ignored } : {}),
    };
    await this.#keep(call, answer, { goalKey: goalKeyOf(resolved.job), input: inheritedInput(resolved.input), loop: loopMemo(loop) }, execution, null);
    return answer;
  }

  /**
   * `enhance: true` on local input runs the playbook's billed calls on the live page, so it needs
   * input.url; without one the answer says so instead of silently analysing the HTML for free.
   */
  #enhanceNeedsUrl(call: JobCall, resolved: ResolvedInput, execution: Execution): JobAnswer | undefined {
    if (call.enhance !== true || resolved.mode !== 'local' || typeof resolved.input['url'] === 'string') return undefined;
    return {
      status: 'need_input',
      code: 'missing_input',
      missing: ['url'],
      hint: 'enhance: true runs the billed checks on the live page: pass input.url (a public https URL), or leave enhance out for the free analysis of input.html',
      execution,
    };
  }

  /** One more round's catalog price, for loop.receipt (an estimate: local analysis is free). */
  #estimate(playbook: Playbook, resolved: ResolvedInput, enhanced = false): number {
    if (resolved.mode === 'local' && !enhanced) return 0;
    return playbook.steps.reduce((sum, s) => sum + (this.#deps.catalog.get(s.operationId)?.credits ?? 0), 0);
  }

  /** A gate pass is recorded (unless capture is off); an https playbook run keeps its profile snapshot. */
  async #remember(call: JobCall, playbook: Playbook, resolved: ResolvedInput, input: Record<string, unknown> | undefined, run: WorkflowResult, gate: GateResult): Promise<Remembered> {
    const accountId = call.caller.account.id;
    const url = typeof resolved.input['url'] === 'string' ? resolved.input['url'] : null;
    let projectScope: string | null = projectScopeOf(input);
    let featureId: string | undefined;
    if (gate.gate === 'pass' && run.status === 'ok') {
      const recorded = await this.#deps.memory.features.recordPass({ accountId, projectScope, url, playbookId: playbook.id, goal: resolved.job.id, acceptance: playbook.acceptance.map(acceptanceText), report: run.report, capture: capture(input) });
      if (recorded.recorded) {
        featureId = recorded.featureId;
        projectScope = recorded.projectScope;
      }
    }
    let profileId: string | undefined;
    if (url !== null && resolved.job.kind === 'playbook') {
      const stored = await this.#deps.memory.profiles.recordRun({ accountId, playbookId: playbook.id, url, snapshot: { jobReport: compactJobReport(run.report), input: resolved.input } });
      if (stored.kind === 'recorded') profileId = stored.profileId;
    }
    return { ...(featureId ? { featureId } : {}), projectScope, ...(profileId ? { profileId } : {}) };
  }

  /**
   * verify_task: the goal's job again, compared with a baseline (a prior result, a verify's after,
   * a get_run payload, a raw jobReport, or with profileId the stored last run). No usable
   * baseline: need_input need_baseline, and nothing runs.
   */
  async verify(call: JobCall, goal: unknown, input: Record<string, unknown> | undefined, baseline: unknown, profileId: string | undefined): Promise<JobAnswer> {
    const text = typeof goal === 'string' ? goal : '';
    const match = matchGoal(goal, this.registries);
    if (match.decision === 'suggest' || match.best === null) return { ...suggestAnswer(text, match, this.registries, input), execution: this.#execution(call, 'verify_task', input, intentOf(null, text), match.urls[0]) };
    const best = match.best;
    const goalKey = goalKeyOf(best);
    const found = await resolveVerifyBaseline({ caller: call.caller, runs: this.#deps.runs, memory: this.#deps.memory, key: this.#key(call.caller), goalKey, baseline, profileId });
    const runInput = found.ok ? { ...found.inherited, ...(input ?? {}) } : input;
    const execution = this.#execution(call, 'verify_task', runInput, goalKey, match.urls[0]);
    if (!found.ok) return { ...found.answer, ...(baseline === undefined && profileId === undefined ? { nextActions: [{ tool: 'solve_task', arguments: { goal: text, input: input ?? {} }, why: 'Run the job once to get a baseline' }] } : {}), execution };
    if (found.loop?.stop !== undefined) {
      return { status: 'stopped', code: 'loop_stopped', message: `The loop stopped with ${found.loop.stop}: escalate to a human instead of verifying again`, loop: found.loop, execution };
    }
    const resolved = resolveJobInput({ kind: best.kind, id: best.id }, { input: runInput, goalUrls: match.urls, goal: text }, this.registries);
    if (resolved.status === 'need_input') return { ...needInputAnswer(text, resolved, best, runInput, this.registries), execution };
    resolveLoopOptions(call);
    const needUrl = this.#enhanceNeedsUrl(call, resolved, execution);
    if (needUrl) return needUrl;
    const playbook = best.kind === 'playbook' ? this.#deps.skills.get(best.id) : toolPlaybook(this.#deps.catalog, best.id);
    if (!playbook) throw new Error(`the matcher answered ${best.id}, which the registry does not hold`);
    const run = await this.#run(call, playbook, resolved, execution);
    if ('refused' in run) return run.refused;
    const outcome = jobOutcome(run, resolved.job.kind === 'tool' ? this.#deps.catalog.get(resolved.job.id) : undefined);
    const gate = evaluateGate(run.report, playbook.gate, { partial: run.status !== 'ok', acceptance: playbook.acceptance });
    const loop: Loop = loopAfterVerify(found.loop, found.report, run.report, gate, { gatePolicy: playbook.gate, maxRounds: call.maxRounds, sameFindingsLimit: call.sameFindingsLimit, toolsUsed: run.toolsUsed, estimatedCredits: this.#estimate(playbook, resolved, call.enhance === true), blocked: outcome.blocked, acceptance: playbook.acceptance, ownCategory: playbook.scores[0] });
    // The delta lists the fixes the loop ranked (the same report, gate policy and criteria; both
    // keep the first MAX_REMAINING_FIXES), rather than rank them, and judge the criteria, again.
    const delta = buildDelta(found.report, run.report, gate, loop.remainingFixes, { loop, runStatus: run.status === 'ok' ? 'ok' : run.status });
    const memory: Remembered = run.cancelled === true ? { projectScope: null } : await this.#remember(call, playbook, resolved, runInput, run, gate);
    const full = call.responseMode === 'full';
    const after: JobReport = full ? run.report : compactJobReport(run.report);
    const answer: JobAnswer = {
      status: delta.status,
      ...outcome.top,
      execution: { ...execution, projectScope: memory.projectScope ?? execution.projectScope },
      job: { ...best },
      baselineSource: found.source,
      delta: full ? delta : compactDelta(delta),
      jobReport: after,
      // The spec's verify_task.after: in full mode the report again; compact does not repeat it,
      // and names it instead (a later verify takes this, or the whole answer, as its baseline).
      after: full ? after : { runId: call.runId ?? null, reportId: after.reportId, scores: after.scores, statuses: after.statuses },
      verification: evidenceOf(playbook, gate),
      loop: full ? loop : compactLoop(loop),
      ...(memory.featureId ? { featureMemoryRecord: { featureId: memory.featureId, projectScope: memory.projectScope } } : {}),
      ...(memory.profileId ? { profileId: memory.profileId } : {}),
      credits: { charged: run.creditsCharged },
    };
    await this.#keep(call, answer, { goalKey, input: inheritedInput(resolved.input), loop: loopMemo(loop) }, execution, found.chainId);
    return answer;
  }
}
