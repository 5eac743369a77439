// The planner meta-tools (issue 11): plan_task (free), solve_task, run_playbook, run_workflow and
// verify_task (billed as the catalog calls they make, through core/invoke). The jobs themselves
// live in src/runs/workflow/job-service.ts; here they get their MCP shape: schemas written for an
// agent, async runs through the run executor, and responseMode (compact, full, dataRef).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../accounts/account-store.ts';
import { isServiceError } from '../core/errors.ts';
import { failure } from '../core/outcome.ts';
import { planTask } from '../runs/planner/plan.ts';
import { RESPONSE_MODES, shapeResult, type ResponseMode } from '../runs/response-mode.ts';
import type { JobLink } from '../runs/run-store.ts';
import type { JobAnswer, JobCall, JobService } from '../runs/workflow/job-service.ts';
import { outcomeResult } from './meta-tools.ts';
import { progressNotifier, type ProgressExtra } from './progress-notifier.ts';
import type { McpRunServices } from './run-tools.ts';
import { configOnce } from './tool-config-cache.ts';
import { result, sentWhole } from './tool-result.ts';

export interface JobToolContext {
  caller: Caller;
  jobs: JobService;
  runs?: McpRunServices | undefined;
  log: FastifyBaseLogger;
  requestId: string;
}

const jobAnswer = z.looseObject({
  status: z.string().describe('ok | partial | error | suggest | need_input (solve, run); verified | fail | continue | stopped | need_input (verify); accepted (async)'),
  execution: z.record(z.string(), z.unknown()).optional().describe('runId, intentId, intentType, idempotencyKey, projectScope: keep it between calls'),
  jobReport: z.unknown().optional().describe('Scores, statuses and findings (stable findingIds); signed: pass the whole result back as a verify baseline'),
  verification: z.unknown().optional().describe('evidence: the acceptance criteria and the gate\'s reasons; read it before loop.remainingFixes'),
  loop: z.unknown().optional().describe('gate, initiate, stop, round, maxRounds, sameFindingsStreak, nextActions (rank-1 fix only), remainingFixes, next, receipt'),
  delta: z.unknown().optional().describe('verify only: what changed against the baseline, by findingId'),
  featureMemoryRecord: z.unknown().optional().describe('featureId of the pass recorded automatically'),
  runId: z.string().optional().describe('async: poll get_run with it'),
  dataRefId: z.string().optional().describe('responseMode dataRef or an oversize answer: the whole answer, for fetch_payload'),
});

const inputField = z.record(z.string(), z.unknown()).optional().describe(
  'url (public https), or html / text / code (analysed free), competitorUrl, file ({base64, fileName} | {url} | {fileId}), ' +
    'featureMemory: {capture: false} (do not record a pass), projectScope',
);
const common = {
  responseMode: z.enum(RESPONSE_MODES).default('compact').describe('full adds raw step payloads; dataRef adds a dataRefId for fetch_payload'),
  async: z.boolean().default(false).describe('Answer {status: "accepted", runId} at once; poll get_run'),
  idempotencyKey: z.string().min(1).max(255).optional().describe('A retry with the same key replays the first answer free'),
  maxRounds: z.number().optional().describe('Integer 1-20 (default 5)'),
  sameFindingsLimit: z.number().optional().describe('Integer 1-10 (default 2): stop after this many unchanged verifies'),
  enhance: z.boolean().default(false).describe('Run the billed live checks on input.url too (local input is free without it)'),
};

type CommonArgs = { responseMode: string; async: boolean; enhance?: boolean | undefined; idempotencyKey?: string | undefined; maxRounds?: number | undefined; sameFindingsLimit?: number | undefined };

/**
 * A job called again with an idempotencyKey it already ran with: the stored answer, free (credits
 * charged 0, replayed: true), as invoke_tool replays; a run still going answers its runId (async)
 * or that it is still running (sync); undefined when the key is new.
 */
async function replayed(services: McpRunServices, accountId: string, intent: string, key: string, async: boolean): Promise<{ done: boolean; answer: JobAnswer } | undefined> {
  const run = await services.runs.byIdempotencyKey(accountId, intent, key);
  if (!run) return undefined;
  const execution = { runId: run.runId, idempotencyKey: key, intentType: intent };
  if (run.status === 'accepted') {
    return async
      ? { done: false, answer: { status: 'accepted', runId: run.runId, replayed: true, execution } }
      : { done: false, answer: { status: 'error', error: 'idempotency_key_in_use', message: `A ${intent} with this idempotencyKey is still running`, detail: `Poll get_run with runId ${run.runId} for its answer; nothing was charged for this call`, runId: run.runId, execution } };
  }
  const stored = run.outcome?.ok === true ? (run.outcome.result as JobAnswer | null) : null;
  if (stored === null || typeof stored !== 'object') {
    return { done: true, answer: { status: 'error', error: 'run_failed', message: `The ${intent} with this idempotencyKey could not finish`, detail: run.errorReason ?? 'Use a new idempotencyKey to run it again', runId: run.runId, execution } };
  }
  const charged = Number((stored['credits'] as { charged?: unknown } | undefined)?.charged ?? 0);
  return { done: true, answer: { ...stored, replayed: true, credits: { charged: 0, replayedFromCharged: charged } } };
}

export function registerJobTools(server: McpServer, ctx: JobToolContext): void {
  const { jobs } = ctx;
  const accountId = ctx.caller.account.id;

  /** Runs a job now or as a run; shapes its answer by the response mode; a validation error is an isError result. */
  const answer = async (intent: string, label: string | null, args: CommonArgs & { input?: Record<string, unknown> | undefined }, work: (call: JobCall) => Promise<JobAnswer>, extra: ProgressExtra & { signal: AbortSignal }): Promise<CallToolResult> => {
    const input = args.input;
    const mode = args.responseMode as ResponseMode;
    const { signal } = extra;
    // A sync job with a progressToken reports each step (notifications/progress), as invoke_tool reports its call.
    const progress = args.async ? undefined : progressNotifier(extra, ctx.log);
    const onProgress = progress && ((p: { done: number; total: number; message: string }) => progress.report(p.done, p.total, p.message));
    const base: JobCall = { caller: ctx.caller, requestId: ctx.requestId, log: ctx.log, idempotencyKey: args.idempotencyKey ?? null, responseMode: mode, maxRounds: args.maxRounds, sameFindingsLimit: args.sameFindingsLimit, enhance: args.enhance === true || input?.['enhance'] === true, onProgress };
    const shaped = async (a: JobAnswer): Promise<Record<string, unknown>> => {
      if (!ctx.runs) return a;
      const { status, execution, loop } = a;
      const s = await shapeResult(ctx.runs.payloads, accountId, a, mode);
      if ('result' in s) return a;
      // dataRef: the compact answer stays readable; the whole of it is stored for fetch_payload.
      return mode === 'dataRef' && !s.truncated ? { ...a, dataRefId: s.dataRefId, payloadExpiresAt: s.payloadExpiresAt } : { status, execution, loop, ...s };
    };
    const goalArg = (args as { goal?: unknown }).goal;
    const goal = typeof goalArg === 'string' ? goalArg : undefined;
    const execute = async (runSignal: AbortSignal, log: FastifyBaseLogger, runId: string) => {
      // The job's link to its run is handed back, to be stored with the run's end in one statement.
      let job: JobLink | undefined;
      const done = await work({ ...base, log, signal: runSignal, runId, keep: (link) => (job = link) });
      return { result: done, credits: Number((done['credits'] as { charged?: number } | undefined)?.charged ?? 0), job };
    };
    try {
      if (args.idempotencyKey !== undefined && ctx.runs) {
        const replay = await replayed(ctx.runs, accountId, intent, args.idempotencyKey, args.async);
        if (replay !== undefined) return replay.done ? result(await shaped(replay.answer), replay.answer.status === 'error') : result(replay.answer, replay.answer.status === 'error');
      }
      if (args.async) {
        if (!ctx.runs) return result({ status: 'error', error: 'async_unavailable', message: 'Async runs are not available on this server; call without async' }, true);
        const submitted = await ctx.runs.executor.submitJob({ caller: ctx.caller, kind: intent, label, requestId: ctx.requestId, log: ctx.log, idempotencyKey: args.idempotencyKey ?? null, goal, execute });
        if (!submitted.accepted) return outcomeResult(label ?? intent, submitted.refusal, { runId: null, intentId: ctx.requestId, intentType: intent, idempotencyKey: args.idempotencyKey ?? null, projectScope: null });
        return result({ status: 'accepted', runId: submitted.runId, execution: { runId: submitted.runId, intentId: ctx.requestId, intentType: intent, idempotencyKey: args.idempotencyKey ?? null, projectScope: null } });
      }
      // A sync job is a run too (stored, served by get_run, announced by mcp.job.finished).
      const done = ctx.runs
        ? await ctx.runs.executor.runInline({ caller: ctx.caller, kind: intent, label, requestId: ctx.requestId, log: ctx.log, idempotencyKey: args.idempotencyKey ?? null, goal, signal, execute })
        : await work({ ...base, signal });
      await progress?.flush();
      // The answer whole first; shaped only when it cannot go as it is (tool-result.ts).
      const whole = result(done, done.status === 'error');
      if (sentWhole(whole, mode)) return whole;
      return result(await shaped(done), done.status === 'error');
    } catch (err) {
      if (!isServiceError(err) || err.status >= 500) throw err;
      return outcomeResult(label ?? intent, failure('input', err), { runId: null, intentId: ctx.requestId, intentType: intent, idempotencyKey: args.idempotencyKey ?? null, projectScope: null });
    }
  };

  server.registerTool(
    'plan_task',
    configOnce(jobs, 'plan_task', () => ({
      title: 'Plan a task',
      description:
        'Free, runs nothing. For a goal in your words ("audit the SEO of https://shop.example", "is my preview ready to ship?"), the job it ' +
        'maps to (a playbook or one operation) with a confidence, the skills and tools it would use with their prices, estimatedCredits ' +
        '(always an estimate: local HTML is analysed free), featureMemory.recordKeeping, a goldenPath for preview-deploy goals, and ' +
        'nextActions with exact arguments. An unclear goal answers suggest (hint, exampleGoals, exampleInput); a missing field or a ' +
        'localhost URL answers need_input naming it. Canonical flow: plan_task, then run_playbook or solve_task, apply loop.nextActions ' +
        'in your workspace, then verify_task.',
      inputSchema: { goal: z.string().max(4000).describe('What you want done, in your words'), input: inputField, enhance: z.boolean().default(false).describe('Estimate local input as billed live analysis') },
      outputSchema: jobAnswer,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    ({ goal, input, enhance }) => result(planTask(goal, input, jobs.registries, { enhance }) as unknown as Record<string, unknown>),
  );

  server.registerTool(
    'solve_task',
    configOnce(jobs, 'solve_task', () => ({
      title: 'Solve a task',
      description:
        'Billed as the catalog calls it makes (local html, text and code are analysed free). Routes the goal to a playbook or one ' +
        'operation (unclear: a free suggest; missing fields or a localhost URL: need_input) and answers status, execution (runId), ' +
        'jobReport, verification.evidence (each acceptance criterion met or not) and loop (gate, initiate, nextActions = the rank-1 ' +
        'fix, remainingFixes, round 0). A conversion answers its file (result.downloadUrl). A gate pass is recorded in feature memory. ' +
        'Then apply only loop.nextActions[0] and call verify_task with baseline: {runId: execution.runId}.',
      inputSchema: { goal: z.string().max(4000).describe('What you want done, in your words'), input: inputField, ...common },
      outputSchema: jobAnswer,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    })),
    (args, extra) => answer('solve_task', null, args, (call) => jobs.solve(call, args.goal, args.input), extra),
  );

  for (const [name, title, what] of [
    ['run_playbook', 'Run a playbook', 'a playbook (skill) by id, with verification.evidence and the loop'],
    ['run_workflow', 'Run a workflow', "a named workflow (a playbook's steps) by id: its jobReport and gate, without starting a fix loop"],
  ] as const) {
    server.registerTool(
      name,
      configOnce(jobs, name, () => ({
        title,
        description:
          `Billed as the catalog calls it makes (local input.html is analysed free). Runs ${what}. ids: list_skills; inputs: load_skill. ` +
          'Answers status (ok | partial | error | need_input), execution, jobReport, verification.evidence' +
          (name === 'run_playbook' ? ', loop, and featureMemoryRecord on a gate pass. Verify with baseline: {runId: execution.runId}.' : '.'),
        inputSchema: { [name === 'run_playbook' ? 'skillId' : 'workflowId']: z.string().min(1).max(100).describe('The playbook id (list_skills)'), input: inputField, ...common },
        outputSchema: jobAnswer,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      })),
      (args: Record<string, unknown> & CommonArgs, extra) => {
        const id = String(args['skillId'] ?? args['workflowId'] ?? '');
        return answer(name, id, args, (call) => jobs.runPlaybook(call, id, args['input'] as Record<string, unknown> | undefined, name), extra);
      },
    );
  }

  server.registerTool(
    'verify_task',
    configOnce(jobs, 'verify_task', () => ({
      title: 'Verify a task',
      description:
        'Billed like solve_task. Re-runs the job of baseline {runId} (the execution.runId of your last solve_task, run_playbook or ' +
        'verify_task; its URL and job are reused) and answers delta (scoreDeltas, new, resolved and remaining findings, gate) and the ' +
        'loop, whose round and stops the server keeps. status: verified only when the gate passes, else fail, continue or stopped ' +
        '(escalate to a human). No usable baseline: need_input need_baseline, nothing charged. For local pages pass input.html again.',
      inputSchema: {
        goal: z.string().max(4000).describe('The same goal as the baseline\'s'),
        baseline: z.unknown().optional().describe('{runId} of the previous answer (or that whole answer, or its jobReport)'),
        profileId: z.string().max(100).optional().describe('Instead of a baseline: the profile of an https playbook run'),
        input: inputField,
        ...common,
      },
      outputSchema: jobAnswer,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    })),
    (args, extra) => answer('verify_task', null, args, (call) => jobs.verify(call, args.goal, args.input, args.baseline, args.profileId), extra),
  );
}
