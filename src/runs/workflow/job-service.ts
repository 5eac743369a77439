// The jobs behind the planner meta-tools, with no MCP in them: run_playbook and run_workflow (a
// named playbook), solve_task (a goal routed to a playbook or one catalog tool), verify_task (the
// same job again, compared with a baseline). Each answers the spec's "MCP job result": execution,
// status, jobReport, verification.evidence, loop, and on a gate pass featureMemoryRecord. Every
// call a job makes goes through core/invoke (workflow-runner.ts); routing answers (suggest,
// need_input, need_baseline) run nothing and charge nothing.
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../../accounts/account-store.ts';
import type { Catalog } from '../../core/catalog.ts';
import type { Invoker } from '../../core/invoke.ts';
import type { FilePipeline } from '../../files/file-pipeline.ts';
import type { FeatureMemory } from '../feature-memory/feature-memory.ts';
import { extractBaseline } from '../loop/baseline.ts';
import { buildDelta } from '../loop/delta.ts';
import { rankFixes } from '../loop/fix-ranking.ts';
import { evaluateGate, type GateResult } from '../loop/gate.ts';
import { compactJobReport, type JobReport } from '../loop/job-report.ts';
import { loopAfterSolve, loopAfterVerify, resolveLoopOptions, type Loop } from '../loop/loop-state.ts';
import { jobReportKey } from '../loop/report-signature.ts';
import { matchGoal } from '../planner/goal-matcher.ts';
import { resolveJobInput, type ResolvedInput } from '../planner/input-resolution.ts';
import { needInputAnswer, suggestAnswer } from '../planner/planner-answers.ts';
import type { Playbook } from '../playbooks/playbook-schema.ts';
import type { PlaybookRegistry } from '../playbooks/playbook-registry.ts';
import { runWorkflow, WorkflowRefused, type WorkflowResult } from './workflow-runner.ts';

export interface JobServiceDeps {
  catalog: Catalog;
  invoker: Invoker;
  files: Pick<FilePipeline, 'createWorkDir' | 'removeWorkDir' | 'receiveStored'>;
  skills: PlaybookRegistry;
  memory: FeatureMemory;
  /** the service secret jobReports are sealed under (per account, see jobReportKey) */
  reportSecret: string;
}

export type IntentType = 'run_playbook' | 'run_workflow' | 'solve_task' | 'verify_task';

export interface JobCall {
  caller: Caller;
  requestId: string;
  log: FastifyBaseLogger;
  signal?: AbortSignal | undefined;
  /** the run that executes this job (async), for execution.runId */
  runId?: string | null | undefined;
  idempotencyKey?: string | null | undefined;
  responseMode?: 'compact' | 'full' | 'dataRef' | undefined;
  maxRounds?: unknown;
  sameFindingsLimit?: unknown;
  /** rule 3: local input is analysed free unless enhance; with it the billed calls read input.url */
  enhance?: boolean | undefined;
  /** progress per step, for a client that asked for it (an MCP progressToken) */
  onProgress?: ((p: { done: number; total: number; message: string }) => void) | undefined;
}

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
const projectScopeOf = (input: Record<string, unknown> | undefined): string | null => (typeof input?.['projectScope'] === 'string' ? input['projectScope'] : null);

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
    acceptance: [`${operationId} answers without an error`],
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
  readonly #keys = new Map<string, Buffer>();

  #key(caller: Caller) {
    let key = this.#keys.get(caller.account.id);
    if (key === undefined) {
      if (this.#keys.size >= 10_000) this.#keys.clear();
      key = jobReportKey(this.#deps.reportSecret, caller.account.id);
      this.#keys.set(caller.account.id, key);
    }
    return key;
  }

  #execution(call: JobCall, intentType: IntentType, input: Record<string, unknown> | undefined): Execution {
    return { runId: call.runId ?? null, intentId: call.requestId, intentType, idempotencyKey: call.idempotencyKey ?? null, projectScope: projectScopeOf(input) };
  }

  /** run_playbook / run_workflow: a named playbook with its input. */
  async runPlaybook(call: JobCall, skillId: string, input: Record<string, unknown> | undefined, intentType: 'run_playbook' | 'run_workflow' = 'run_playbook'): Promise<JobAnswer> {
    const execution = this.#execution(call, intentType, input);
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
    const execution = this.#execution(call, 'solve_task', input);
    const text = typeof goal === 'string' ? goal : '';
    const match = matchGoal(goal, this.registries);
    if (match.decision === 'suggest' || match.best === null) return { ...suggestAnswer(text, match, this.registries), execution };
    const best = match.best;
    const resolved = resolveJobInput({ kind: best.kind, id: best.id }, { input, goalUrls: match.urls }, this.registries);
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
    const gate = evaluateGate(run.report, playbook.gate, { partial: run.status !== 'ok' });
    const loop = loopAfterSolve(run.report, gate, { gatePolicy: playbook.gate, maxRounds: call.maxRounds, sameFindingsLimit: call.sameFindingsLimit, toolsUsed: run.toolsUsed, estimatedCredits: this.#estimate(playbook, resolved, call.enhance === true) });
    const memory = await this.#remember(call, playbook, resolved, input, run, gate);
    return {
      status: run.status,
      execution: { ...execution, projectScope: memory.projectScope ?? execution.projectScope },
      skillId: resolved.job.kind === 'playbook' ? playbook.id : null,
      mode: resolved.mode,
      jobReport: call.responseMode === 'full' ? run.report : compactJobReport(run.report),
      verification: { evidence: { acceptance: playbook.acceptance, gate: gate.gate, reasons: gate.reasons, advisories: gate.advisories } },
      ...(withLoop ? { loop } : {}),
      ...(memory.featureId ? { featureMemoryRecord: { featureId: memory.featureId, projectScope: memory.projectScope } } : {}),
      ...(memory.profileId ? { profileId: memory.profileId } : {}),
      credits: { charged: run.creditsCharged },
      ...(resolved.fromGoal.length > 0 ? { filledFromGoal: resolved.fromGoal } : {}),
      ...(resolved.ignored.length > 0 ? { ignoredInput: resolved.ignored } : {}),
    };
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
  async #remember(call: JobCall, playbook: Playbook, resolved: ResolvedInput, input: Record<string, unknown> | undefined, run: WorkflowResult, gate: GateResult): Promise<{ featureId?: string; projectScope: string | null; profileId?: string }> {
    const accountId = call.caller.account.id;
    const url = typeof resolved.input['url'] === 'string' ? resolved.input['url'] : null;
    let projectScope: string | null = projectScopeOf(input);
    let featureId: string | undefined;
    if (gate.gate === 'pass' && run.status === 'ok') {
      const recorded = await this.#deps.memory.features.recordPass({ accountId, projectScope, url, playbookId: playbook.id, goal: resolved.job.id, acceptance: playbook.acceptance, report: run.report, capture: capture(input) });
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
    const execution = this.#execution(call, 'verify_task', input);
    const text = typeof goal === 'string' ? goal : '';
    const match = matchGoal(goal, this.registries);
    if (match.decision === 'suggest' || match.best === null) return { ...suggestAnswer(text, match, this.registries), execution };
    const best = match.best;
    const goalKey = best.kind === 'playbook' ? `playbook:${best.id}` : `tool:${best.id}`;
    let given = baseline;
    let runInput = input;
    if (given === undefined && profileId !== undefined) {
      const profile = await this.#deps.memory.profiles.lastSnapshot(call.caller.account.id, profileId);
      if (!profile) return { status: 'need_input', code: 'need_baseline', message: `No profile ${profileId} in this account`, hint: 'Pass the result of your last solve_task or run_playbook as baseline, or a profileId from one', execution };
      const snapshot = profile.snapshot as { jobReport?: unknown; input?: Record<string, unknown> };
      given = snapshot.jobReport;
      runInput = { ...(snapshot.input ?? {}), ...(input ?? {}) };
    }
    if (given === undefined) {
      return { status: 'need_input', code: 'need_baseline', message: 'verify_task compares with a baseline, and none was given', hint: 'Pass baseline: the whole result of your last solve_task, run_playbook or verify_task (or its jobReport), or profileId from an https run', nextActions: [{ tool: 'solve_task', arguments: { goal: text, input: input ?? {} }, why: 'Run the job once to get a baseline' }], execution };
    }
    const found = extractBaseline(given, { key: this.#key(call.caller), goalKey });
    if (!found.ok) return { status: 'need_input', code: found.code, message: found.message, hint: found.message, execution };
    if (found.loop?.stop !== undefined) {
      return { status: 'stopped', code: 'loop_stopped', message: `The loop stopped with ${found.loop.stop}: escalate to a human instead of verifying again`, loop: found.loop, execution };
    }
    const resolved = resolveJobInput({ kind: best.kind, id: best.id }, { input: runInput, goalUrls: match.urls }, this.registries);
    if (resolved.status === 'need_input') return { ...needInputAnswer(text, resolved, best, runInput, this.registries), execution };
    resolveLoopOptions(call);
    const needUrl = this.#enhanceNeedsUrl(call, resolved, execution);
    if (needUrl) return needUrl;
    const playbook = best.kind === 'playbook' ? this.#deps.skills.get(best.id) : toolPlaybook(this.#deps.catalog, best.id);
    if (!playbook) throw new Error(`the matcher answered ${best.id}, which the registry does not hold`);
    const run = await this.#run(call, playbook, resolved, execution);
    if ('refused' in run) return run.refused;
    const gate = evaluateGate(run.report, playbook.gate, { partial: run.status !== 'ok' });
    const loop: Loop = loopAfterVerify(found.loop, found.report, run.report, gate, { gatePolicy: playbook.gate, maxRounds: call.maxRounds, sameFindingsLimit: call.sameFindingsLimit, toolsUsed: run.toolsUsed, estimatedCredits: this.#estimate(playbook, resolved, call.enhance === true) });
    const ranked = rankFixes(run.report, playbook.gate);
    const delta = buildDelta(found.report, run.report, gate, ranked, { loop, runStatus: run.status === 'ok' ? 'ok' : run.status });
    const memory = await this.#remember(call, playbook, resolved, runInput, run, gate);
    const after: JobReport = call.responseMode === 'full' ? run.report : compactJobReport(run.report);
    return {
      status: delta.status,
      execution: { ...execution, projectScope: memory.projectScope ?? execution.projectScope },
      job: { ...best },
      baselineSource: found.source,
      delta,
      jobReport: after,
      after,
      verification: { evidence: { acceptance: playbook.acceptance, gate: gate.gate, reasons: gate.reasons, advisories: gate.advisories } },
      loop,
      ...(memory.featureId ? { featureMemoryRecord: { featureId: memory.featureId, projectScope: memory.projectScope } } : {}),
      ...(memory.profileId ? { profileId: memory.profileId } : {}),
      credits: { charged: run.creditsCharged },
    };
  }
}
