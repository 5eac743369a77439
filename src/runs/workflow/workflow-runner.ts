// Runs a playbook's workflow: its steps in order, each a catalog call through core/invoke (charged
// as the same REST call, refunded the same way), and their results merged into one signed
// jobReport. Local input (input.html) is analysed free, in this process's analysis workers, by the
// analyzers of the steps whose whole report comes from the page's HTML (ToolDefinition.
// htmlAnalyzers); steps that need the live page run only when the caller gave input.url and asked
// for it with `enhance: true`, and are otherwise reported skipped, so their categories stay
// `unknown` (never a pass by omission). A refusal that would refuse every later step as well (the
// quota, the rate limit, the key) stops the workflow there: the rest is skipped, not charged.
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../../accounts/account-store.ts';
import { analyzeOnWorker } from '../../analysis/analysis-pool.ts';
import type { Catalog } from '../../core/catalog.ts';
import type { FileSource } from '../../core/file-sources.ts';
import type { Invoker } from '../../core/invoke.ts';
import type { FilePipeline } from '../../files/file-pipeline.ts';
import { buildJobReport, type JobReport, type JobReportForm, type StepOutcome } from '../loop/job-report.ts';
import type { SigningKey } from '../loop/report-signature.ts';
import type { Playbook } from '../playbooks/playbook-schema.ts';
import { resolveStep, stepApplies, type StepScope } from '../playbooks/playbook-steps.ts';

export interface WorkflowDeps {
  catalog: Catalog;
  invoker: Invoker;
  files: Pick<FilePipeline, 'createWorkDir' | 'removeWorkDir'>;
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
}

/** Base URL for local HTML: relative links resolve against it and nothing is ever fetched there. */
const LOCAL_BASE = 'https://local.invalid/';

/** Failures after which every later step would be refused the same way. */
const STOPS_THE_RUN = new Set(['quota', 'rate', 'authorize']);

function toFileSource(value: unknown): FileSource | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v['base64'] === 'string') return { kind: 'base64', data: v['base64'], name: typeof v['fileName'] === 'string' ? v['fileName'] : undefined };
  if (typeof v['url'] === 'string') return { kind: 'url', url: v['url'] };
  if (typeof v['fileId'] === 'string') return { kind: 'stored', fileId: v['fileId'] };
  return undefined;
}

export async function runWorkflow(deps: WorkflowDeps, req: WorkflowRequest): Promise<WorkflowResult> {
  const { playbook } = req;
  const scope: StepScope = { input: req.input, results: {} };
  const outcomes: StepOutcome[] = [];
  const notes: string[] = [];
  const toolsUsed: string[] = [];
  let stopped: string | undefined;
  let workDir: string | undefined;
  try {
    for (const step of playbook.steps) {
      const tool = deps.catalog.get(step.operationId);
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
      // enhance with a URL: the playbook's billed calls read the live page instead of the HTML sent.
      if (req.mode === 'local' && !(req.enhance === true && typeof req.input['url'] === 'string')) {
        if (tool.htmlAnalyzers && req.local?.html !== undefined) {
          // Free: the page's HTML as the agent sent it, on the analysis workers; no fetch, no charge.
          const report = await analyzeOnWorker(tool.htmlAnalyzers, req.local.html, null, LOCAL_BASE, req.signal);
          const result = { url: LOCAL_BASE, finalUrl: LOCAL_BASE, status: null, report };
          scope.results[step.id] = result;
          outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'ok', creditsCharged: 0, result, report });
          toolsUsed.push(step.operationId);
          continue;
        }
        if (tool.kind === 'url') {
          skip(`${step.operationId} needs the live page: pass input.url with enhance: true to run it (billed)`);
          continue;
        }
      }
      const { input, file } = resolveStep(step, scope);
      const source = tool.kind === 'file' ? toFileSource(file) : undefined;
      if (tool.kind === 'file' && source === undefined) {
        skip('its file was not given');
        continue;
      }
      if (source !== undefined) workDir ??= await deps.files.createWorkDir();
      const outcome = await deps.invoker.invoke({
        caller: req.caller,
        operationId: step.operationId,
        input,
        requestId: `${req.requestId}:${step.id}`,
        log: req.log,
        signal: req.signal,
        ...(source === undefined ? {} : { file: source, workDir }),
      });
      toolsUsed.push(step.operationId);
      const creditsCharged = outcome.meter?.charged ?? 0;
      if (outcome.ok) {
        scope.results[step.id] = outcome.result;
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'ok', creditsCharged, result: outcome.result });
      } else {
        outcomes.push({ stepId: step.id, operationId: step.operationId, status: 'error', errorCode: outcome.error.error, creditsCharged, result: { error: outcome.error.error, message: outcome.error.message, detail: outcome.error.detail } });
        if (STOPS_THE_RUN.has(outcome.stage)) stopped = `${step.id} was refused with ${outcome.error.error} (${outcome.error.message})`;
      }
    }
  } finally {
    if (workDir !== undefined) await deps.files.removeWorkDir(workDir);
  }
  const report = buildJobReport({ playbook, goalKey: req.goalKey, steps: outcomes, key: req.key, form: req.form ?? 'compact', notes });
  const ran = outcomes.filter((o) => o.status !== 'skipped');
  const failed = ran.filter((o) => o.status === 'error').length;
  const status: WorkflowStatus = ran.length > 0 && failed === ran.length ? 'error' : failed > 0 || stopped !== undefined ? 'partial' : 'ok';
  return { status, report, creditsCharged: report.summary.creditsCharged, toolsUsed, results: scope.results };
}
