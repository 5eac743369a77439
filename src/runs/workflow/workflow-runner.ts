// Runs a playbook's workflow: its steps in order, each a catalog call through core/invoke (charged
// as the same REST call, refunded the same way), and their results merged into one signed
// jobReport. Local input (input.html) is analysed free, in this process's analysis workers, by the
// analyzers of the steps whose whole report comes from the page's HTML (ToolDefinition.
// htmlAnalyzers), all on one parse of the page (analysis/parse-reuse.ts); steps that need the
// live page run only when the caller gave input.url and asked for it with `enhance: true`, and
// are otherwise reported skipped, so their categories stay `unknown` (never a pass by omission).
// A file step takes an earlier step's stored result by `{{steps.<id>.result.fileId}}`; a later
// step that reads `{{steps.<id>.result.text}}` of a file step gets that result's text (a text/*
// file up to STEP_TEXT_MAX_BYTES), so a workflow can convert a document, extract its text and
// check it with a JSON tool. A refusal that would
// refuse every later step as well (the quota, the rate limit, the key) stops the workflow there:
// the rest is skipped, not charged.
//
// Before anything runs, every step that would run (a local analysis included: it runs the tool's
// analyzers, which a key may not be allowed to call) is put to the invoke path's own check of the
// key's scope and the plan (Invoker.authorizeTool): one step the key may not call refuses the
// whole job with that 403 (WorkflowRefused), and nothing ran or was charged.
//
// A long job reports where it is (onProgress, before each step and once at the end: an MCP client
// with a progressToken gets one notification per step, which keeps its resetTimeoutOnProgress
// timer alive) and stops when its signal aborts (the client cancelled or went away): the step in
// flight is aborted through invoke (its fetch ends), and no later step runs or is charged.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../../accounts/account-store.ts';
import { analyzeOnWorker } from '../../analysis/analysis-pool.ts';
import { LOCAL_PAGE_URL } from '../../analysis/local-page.ts';
import { PageMemo } from '../../analysis/page-memo.ts';
import type { Catalog } from '../../core/catalog.ts';
import { ServiceError } from '../../core/errors.ts';
import type { FileSource } from '../../core/file-sources.ts';
import type { Invoker } from '../../core/invoke.ts';
import { runAsJobOwner } from '../../engines/job-owner.ts';
import type { FilePipeline } from '../../files/file-pipeline.ts';
import { buildJobReport, type JobReport, type JobReportForm, type StepOutcome } from '../loop/job-report.ts';
import type { SigningKey } from '../loop/report-signature.ts';
import { parseReference, templatesIn, type Playbook } from '../playbooks/playbook-schema.ts';
import { resolveStep, stepApplies, type StepScope } from '../playbooks/playbook-steps.ts';

export interface WorkflowDeps {
  catalog: Catalog;
  invoker: Invoker;
  files: Pick<FilePipeline, 'createWorkDir' | 'removeWorkDir' | 'receiveStored'>;
}

export interface WorkflowRequest {
  caller: Caller;
  playbook: Playbook;
  /** the playbook's input, validated against inputSchemaOf(playbook) */
  input: Record<string, unknown>;
  /** local: HTML the agent passed, analysed free; live: the page at input.url, fetched by billed steps */
  mode: 'local' | 'live' | 'plain';
  local?: { html?: string | undefined } | undefined;
  /** local mode: also run the steps that need the live page (billed), on input.url */
  enhance?: boolean | undefined;
  goalKey: string;
  /** the per-account report key (jobReportKey) */
  key: SigningKey;
  form?: JobReportForm | undefined;
  requestId: string;
  log: FastifyBaseLogger;
  signal?: AbortSignal | undefined;
  /** called before each step and once when the last has finished: done steps of total, and what runs */
  onProgress?: ((progress: WorkflowProgress) => void) | undefined;
}

export interface WorkflowProgress {
  /** steps finished (run, skipped or failed) so far; increases with every call */
  done: number;
  total: number;
  /** the step about to run and its operation, or that the job finished */
  message: string;
}

export type WorkflowStatus = 'ok' | 'partial' | 'error';

export interface WorkflowResult {
  /** ok: every step that applied answered; partial: some failed or were cut short; error: none answered */
  status: WorkflowStatus;
  report: JobReport;
  creditsCharged: number;
  /** the operations that ran (free local analyses included) */
  toolsUsed: string[];
  /** each step's raw result, by step id (for {{steps.<id>.result...}} and the full form) */
  results: Record<string, unknown>;
  /** the signal aborted (cancelled, or the client went away): the steps after it were not run (status partial, or error when none had answered) */
  cancelled?: boolean;
}

/** Base URL for local HTML: relative links resolve against it, nothing is ever fetched there, and no fix quotes it (local-page.ts). */
const LOCAL_BASE = LOCAL_PAGE_URL;

/** Failures after which every later step would be refused the same way. */
const STOPS_THE_RUN = new Set(['quota', 'rate', 'authorize']);

/** The largest text file result handed to later steps as `result.text` (the text tools' own input bound). */
export const STEP_TEXT_MAX_BYTES = 1_000_000;

/** The HTTP status of the page a URL tool fetched (or of your page in a comparison), when it is an error. */
function errorPageStatus(result: unknown): number | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const page = ('yours' in result ? (result as { yours: unknown }).yours : result) as { status?: unknown; url?: unknown } | null;
  const status = page?.status;
  return typeof status === 'number' && status >= 400 && typeof page?.url === 'string' ? status : undefined;
}

/** A job refused before it ran: a step's tool is one the key (or the plan) may not call. */
export class WorkflowRefused extends Error {
  readonly operationId: string;
  /** invoke's own refusal (403 tool_not_allowed, plan_forbidden, account_inactive ...) */
  readonly refusal: ServiceError;

  constructor(operationId: string, refusal: ServiceError) {
    super(refusal.message);
    this.name = 'WorkflowRefused';
    this.operationId = operationId;
    this.refusal = refusal;
  }
}

/** How a step runs in this request: analysed locally (free), skipped for want of the live page, or through invoke. */
function stepRoute(tool: { kind: string; htmlAnalyzers?: unknown }, req: Pick<WorkflowRequest, 'mode' | 'enhance' | 'input' | 'local'>): 'local' | 'needs_live' | 'invoke' {
  // enhance with a URL: the playbook's billed calls read the live page instead of the HTML sent.
  if (req.mode === 'local' && !(req.enhance === true && typeof req.input['url'] === 'string')) {
    if (tool.htmlAnalyzers && req.local?.html !== undefined) return 'local';
    if (tool.kind === 'url') return 'needs_live';
  }
  return 'invoke';
}

/**
 * Throws WorkflowRefused for the first step that would run a tool the caller may not call: the
 * invoke path's authorizeAccount and authorizeTool, asked for every step before any runs.
 */
export function authorizeWorkflow(deps: Pick<WorkflowDeps, 'catalog' | 'invoker'>, req: Pick<WorkflowRequest, 'caller' | 'playbook' | 'input' | 'mode' | 'enhance' | 'local'>): void {
  const scope: StepScope = { input: req.input, results: {} };
  let limits: ReturnType<Invoker['authorizeAccount']> | undefined;
  for (const step of req.playbook.steps) {
    const tool = deps.catalog.get(step.operationId);
    if (!tool || !stepApplies(step, scope) || stepRoute(tool, req) === 'needs_live') continue;
    try {
      limits ??= deps.invoker.authorizeAccount(req.caller);
      deps.invoker.authorizeTool(req.caller, limits, tool);
    } catch (error) {
      if (error instanceof ServiceError) throw new WorkflowRefused(step.operationId, error);
      throw error;
    }
  }
}

function toFileSource(value: unknown): FileSource | undefined {
  // {{steps.<id>.result.fileId}}: an earlier step's stored result, read as the caller's own file.
  if (typeof value === 'string' && value !== '') return { kind: 'stored', fileId: value };
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  // fileName, as every description names it; `name`, invoke_tool's first spelling, read as well.
  const name = typeof v['fileName'] === 'string' ? v['fileName'] : typeof v['name'] === 'string' ? v['name'] : undefined;
  if (typeof v['base64'] === 'string') return { kind: 'base64', data: v['base64'], name };
  if (typeof v['url'] === 'string') return { kind: 'url', url: v['url'] };
  if (typeof v['fileId'] === 'string') return { kind: 'stored', fileId: v['fileId'] };
  return undefined;
}

/** The earlier steps a step reads results of ({{steps.<id>.result...}} in its input or file). */
function stepsReadBy(step: Playbook['steps'][number]): string[] {
  const refs = [...templatesIn(step.input, 'input'), ...(step.file === undefined ? [] : templatesIn(step.file, 'file'))];
  return [...new Set(refs.map((r) => parseReference(r.text)).flatMap((ref) => (ref?.kind === 'step' ? [ref.stepId] : [])))];
}

/** The steps whose `result.text` a later step reads. */
function stepsReadAsText(playbook: Playbook): Set<string> {
  const ids = new Set<string>();
  for (const step of playbook.steps) {
    for (const { text } of templatesIn(step.input, 'input')) {
      const ref = parseReference(text);
      if (ref?.kind === 'step' && ref.path.length === 1 && ref.path[0] === 'text') ids.add(ref.stepId);
    }
  }
  return ids;
}

/** The text of a file step's stored result, or undefined with a note saying why a later step gets none. */
async function resultText(deps: WorkflowDeps, accountId: string, stepId: string, result: unknown, notes: string[]): Promise<string | undefined> {
  const r = (result ?? {}) as { fileId?: unknown; mimeType?: unknown; sizeBytes?: unknown };
  if (typeof r.fileId !== 'string' || typeof r.mimeType !== 'string' || !r.mimeType.startsWith('text/')) {
    notes.push(`step "${stepId}" result is ${typeof r.mimeType === 'string' ? r.mimeType : 'not a file'}, not text: later steps get no result.text`);
    return undefined;
  }
  if (typeof r.sizeBytes === 'number' && r.sizeBytes > STEP_TEXT_MAX_BYTES) {
    notes.push(`step "${stepId}" result has ${r.sizeBytes} bytes, over the ${STEP_TEXT_MAX_BYTES} passed between steps: later steps get no result.text`);
    return undefined;
  }
  const dir = await deps.files.createWorkDir();
  try {
    const copy = await deps.files.receiveStored(r.fileId, accountId, dir);
    return await readFile(copy.path, 'utf8');
  } catch (error) {
    notes.push(`step "${stepId}" result could not be read back (${error instanceof Error ? error.message : String(error)}): later steps get no result.text`);
    return undefined;
  } finally {
    await deps.files.removeWorkDir(dir);
  }
}

export async function runWorkflow(deps: WorkflowDeps, req: WorkflowRequest): Promise<WorkflowResult> {
  authorizeWorkflow(deps, req);
  const { playbook } = req;
  const readAsText = stepsReadAsText(playbook);
  const scope: StepScope = { input: req.input, results: {} };
  const outcomes: StepOutcome[] = [];
  const notes: string[] = [];
  const toolsUsed: string[] = [];
  let stopped: string | undefined;
  let cancelled = false;
  let workDir: string | undefined;
  // The job's own token for its local steps: they share one parse of input.html on the workers (parse-reuse.ts).
  const parseKey = randomUUID();
  // And its pages: its steps' URL tools fetch input.url once for the whole job (page-memo.ts).
  const pages = new PageMemo();
  const total = playbook.steps.length;
  // A listener that throws must not fail the job: progress is advisory.
  const progress = (done: number, message: string) => {
    try {
      req.onProgress?.({ done, total, message });
    } catch (error) {
      req.log.warn({ err: error }, 'progress listener failed');
    }
  };
  /** Whether the caller is gone: checked before each step and right before its call, so nothing after is run or charged. */
  const cancelledNow = () => {
    if (req.signal?.aborted !== true || cancelled) return cancelled;
    cancelled = true;
    stopped ??= 'the request was cancelled';
    return true;
  };
  try {
    for (const [index, step] of playbook.steps.entries()) {
      const tool = deps.catalog.get(step.operationId);
      if (!cancelledNow()) progress(index, `step ${index + 1} of ${total}: ${step.id} (${step.operationId})`);
      const skip = (why: string) => {
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'skipped', creditsCharged: 0 });
        notes.push(`step "${step.id}" skipped: ${why}`);
      };
      if (!tool) {
        skip(`${step.operationId} is not in this catalog`);
        continue;
      }
      if (stopped !== undefined) {
        skip(`not run after ${stopped}`);
        continue;
      }
      if (!stepApplies(step, scope)) {
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'skipped', creditsCharged: 0 });
        continue;
      }
      const route = stepRoute(tool, req);
      if (route === 'local' && tool.htmlAnalyzers && req.local?.html !== undefined) {
        // Free: the page's HTML as the agent sent it, on the analysis workers; no fetch, no charge.
        // As the account's job, so the analysis threads serve accounts in turn (analysis-pool.ts).
        const analyzers = tool.htmlAnalyzers;
        const html = req.local.html;
        const owner = { id: req.caller.account.id, maxJobs: deps.invoker.authorizeAccount(req.caller).plan.engineJobs };
        let report: Awaited<ReturnType<typeof analyzeOnWorker>>;
        try {
          report = await runAsJobOwner(owner, () => analyzeOnWorker(analyzers, html, null, LOCAL_BASE, req.signal, parseKey));
        } catch (error) {
          // The caller went away while the page was on a worker: the job stops like an invoked step's.
          if (!cancelledNow()) throw error;
          skip(`not run after ${stopped ?? 'the request was cancelled'}`);
          continue;
        }
        const result = { url: LOCAL_BASE, finalUrl: LOCAL_BASE, status: null, report };
        scope.results[step.id] = result;
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'ok', creditsCharged: 0, result, report });
        toolsUsed.push(step.operationId);
        continue;
      }
      if (route === 'needs_live') {
        skip(`${step.operationId} needs the live page: pass input.url with enhance: true to run it (billed)`);
        continue;
      }
      // A step fed by a step that did not answer would only be refused for the missing value: skip it, saying why.
      const unanswered = stepsReadBy(step).filter((id) => !Object.hasOwn(scope.results, id));
      if (unanswered.length > 0) {
        skip(`it reads the result of step ${unanswered.map((id) => `"${id}"`).join(', ')}, which did not answer`);
        continue;
      }
      const { input, file } = resolveStep(step, scope);
      const source = tool.kind === 'file' ? toFileSource(file) : undefined;
      if (tool.kind === 'file' && source === undefined) {
        skip('its file was not given');
        continue;
      }
      if (source !== undefined) workDir ??= await deps.files.createWorkDir();
      // invoke does not look at a signal that aborted before the call: asked here, after the last await.
      if (cancelledNow()) {
        skip(`not run after ${stopped ?? 'the request was cancelled'}`);
        continue;
      }
      const outcome = await deps.invoker.invoke({
        caller: req.caller,
        operationId: step.operationId,
        input,
        requestId: `${req.requestId}:${step.id}`,
        log: req.log,
        signal: req.signal,
        pages,
        ...(source === undefined ? {} : { file: source, workDir }),
      });
      toolsUsed.push(step.operationId);
      const creditsCharged = outcome.meter?.charged ?? 0;
      const pageStatus = outcome.ok ? errorPageStatus(outcome.result) : undefined;
      if (pageStatus !== undefined && outcome.ok) {
        // The page answered an error status: what the tool analysed is an error page, not the page
        // the job was asked to judge, and every later step would fetch the same error. The step is
        // reported failed (page_error) and the job stops here, charged only for what ran.
        scope.results[step.id] = outcome.result;
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'error', errorCode: 'page_error', creditsCharged, result: outcome.result });
        stopped = `the page answered HTTP ${pageStatus}`;
        notes.push(`The page answered HTTP ${pageStatus}: the steps after "${step.id}" were not run`);
      } else if (outcome.ok) {
        const text = tool.kind === 'file' && readAsText.has(step.id) ? await resultText(deps, req.caller.account.id, step.id, outcome.result, notes) : undefined;
        // The text is for later steps only: the report keeps the tool's result as it answered.
        scope.results[step.id] = text === undefined ? outcome.result : { ...(outcome.result as object), text };
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'ok', creditsCharged, result: outcome.result });
      } else {
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'error', errorCode: outcome.error.error, creditsCharged, result: { error: outcome.error.error, message: outcome.error.message, detail: outcome.error.detail } });
        if (STOPS_THE_RUN.has(outcome.stage)) stopped = `${step.id} was refused with ${outcome.error.error} (${outcome.error.message})`;
      }
    }
  } finally {
    if (workDir !== undefined) await deps.files.removeWorkDir(workDir);
  }
  if (!cancelledNow()) progress(total, `finished: ${outcomes.filter((o) => o.status !== 'skipped').length} of ${total} steps ran`);
  const report = buildJobReport({ playbook, goalKey: req.goalKey, steps: outcomes, key: req.key, form: req.form ?? 'compact', notes });
  const ran = outcomes.filter((o) => o.status !== 'skipped');
  const failed = ran.filter((o) => o.status === 'error').length;
  const status: WorkflowStatus = ran.length > 0 && failed === ran.length ? 'error' : failed > 0 || stopped !== undefined ? 'partial' : 'ok';
  return { status, report, creditsCharged: report.summary.creditsCharged, toolsUsed, results: scope.results, ...(cancelled ? { cancelled } : {}) };
}
