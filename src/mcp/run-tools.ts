// The meta-tools that read what async runs and large results left behind: get_run (a run's state
// and, once it finished, its result) and fetch_payload (a stored result, in pages). Both are free
// and scoped to the caller's account: another account's runId or dataRefId is not found, exactly
// as one that never existed.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { configOnce } from './tool-config-cache.ts';
import { result } from './tool-result.ts';
import type { Caller } from '../accounts/account-store.ts';
import { MAX_PAGE_CHARS, type PayloadStore } from '../runs/payload-store.ts';
import { RESPONSE_MODES, shapeResult } from '../runs/response-mode.ts';
import type { RunExecutor } from '../runs/run-executor.ts';
import type { Run, RunStore } from '../runs/run-store.ts';

/** What the MCP surface needs of src/runs/ (async invoke_tool, get_run, fetch_payload). */
export interface McpRunServices {
  executor: RunExecutor;
  runs: RunStore;
  payloads: PayloadStore;
}

const RUN_ID = /^run_[0-9a-f]{32}$/;

/** A run as get_run answers it, the result shaped by the response mode and the size bound. */
async function runView(run: Run, payloads: PayloadStore, accountId: string, mode: (typeof RESPONSE_MODES)[number]): Promise<Record<string, unknown>> {
  const base = {
    runId: run.runId,
    status: run.status,
    kind: run.kind,
    operationId: run.operationId,
    resultStatus: run.resultStatus,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    credits: run.credits,
  };
  if (run.status === 'error') return { ...base, error: 'run_failed', message: run.errorReason ?? 'The run could not finish' };
  const outcome = run.outcome;
  if (!outcome) return base;
  if (outcome.ok) return { ...base, ...(await shapeResult(payloads, accountId, outcome.result, mode)), warnings: outcome.warnings ?? [] };
  const e = outcome.error;
  return {
    ...base,
    error: e?.code ?? 'internal_error',
    message: e?.message,
    detail: e?.detail,
    stage: outcome.stage,
    ...(e && Object.keys(e.extra).length > 0 ? { details: e.extra } : {}),
  };
}

export function registerRunTools(server: McpServer, ctx: { caller: Caller; services: McpRunServices }): void {
  const { runs, payloads } = ctx.services;
  const accountId = ctx.caller.account.id;

  server.registerTool(
    'get_run',
    configOnce(ctx.services, 'get_run', () => ({
      title: 'Get a run',
      description:
        'The state of a run by its runId: an invoke_tool call with async: true, or any job (solve_task, run_playbook, run_workflow, ' +
        'verify_task; sync or async) by its execution.runId. status: accepted (waiting or running: ask ' +
        'again in a few seconds), completed (the job finished: resultStatus is "ok" with the result, or the error code the ' +
        'operation answered, with message and detail), error (the run could not finish, e.g. the service restarted: submit it ' +
        'again). Results over about 25,000 tokens come as a preview with a dataRefId for fetch_payload. Free.',
      inputSchema: {
        runId: z.string().min(1).max(100).describe('The runId an answer carried (execution.runId)'),
        responseMode: z.enum(RESPONSE_MODES).default('compact').describe('compact or full: the result itself; dataRef: a dataRefId and a summary instead'),
      },
      outputSchema: {
        runId: z.string(),
        status: z.enum(['accepted', 'completed', 'partial', 'error']),
        kind: z.string(),
        operationId: z.string().nullable(),
        resultStatus: z.string().nullable().describe('"ok" or the error code of the operation, once finished'),
        result: z.unknown().optional(),
        warnings: z.array(z.string()).optional(),
        error: z.string().optional(),
        message: z.string().optional(),
        detail: z.string().optional(),
        stage: z.string().optional(),
        dataRefId: z.string().optional(),
        summary: z.string().optional(),
        truncated: z.boolean().optional(),
        preview: z.string().optional(),
        createdAt: z.string(),
        startedAt: z.string().nullable(),
        finishedAt: z.string().nullable(),
        credits: z.number().int(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    async ({ runId, responseMode }) => {
      const run = RUN_ID.test(runId) ? await runs.get(accountId, runId) : undefined;
      if (!run) return result({ status: 'error', error: 'run_not_found', message: `No run ${runId} in this account`, detail: 'Use a runId an answer of this account carried (execution.runId), with the same account\'s key' }, true);
      return result(await runView(run, payloads, accountId, responseMode));
    },
  );

  server.registerTool(
    'fetch_payload',
    configOnce(ctx.services, 'fetch_payload', () => ({
      title: 'Fetch a stored payload',
      description:
        'Reads a stored result by the dataRefId that invoke_tool or get_run answered (responseMode dataRef, or a result too large ' +
        `to send whole). Answers the JSON text, at most ${MAX_PAGE_CHARS} characters a call: when nextOffset is not null, call ` +
        'again with offset: nextOffset and join the texts in order. Payloads expire (expiresAt); an expired one answers ' +
        'payload_expired: call the operation again. Free.',
      inputSchema: {
        dataRefId: z.string().min(1).max(100).describe('The dataRefId to read'),
        offset: z.number().int().min(0).optional().describe('Where to start, in characters of the JSON text (default 0)'),
        limit: z.number().int().min(1).max(MAX_PAGE_CHARS).optional().describe(`Characters to read (default and at most ${MAX_PAGE_CHARS})`),
      },
      outputSchema: {
        dataRefId: z.string(),
        text: z.string().describe('This page of the JSON text'),
        offset: z.number().int(),
        totalChars: z.number().int(),
        nextOffset: z.number().int().nullable().describe('The offset of the next page, or null when this page ends the payload'),
        complete: z.boolean().describe('true when this one answer holds the whole payload'),
        expiresAt: z.string(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    async ({ dataRefId, offset, limit }) => {
      const read = await payloads.read(accountId, dataRefId, { offset, limit });
      if (read.kind === 'not_found') return result({ status: 'error', error: 'payload_not_found', message: `No payload ${dataRefId} in this account`, detail: 'Use a dataRefId answered to this account' }, true);
      if (read.kind === 'expired') {
        return result({ status: 'error', error: 'payload_expired', message: `Payload ${dataRefId} expired at ${read.expiredAt}`, detail: `Payloads are kept ${Math.round(payloads.ttlMs / 1000)} seconds; call the operation again` }, true);
      }
      const complete = read.offset === 0 && read.nextOffset === null;
      return result({
        dataRefId,
        text: read.text,
        offset: read.offset,
        totalChars: read.totalChars,
        nextOffset: read.nextOffset,
        complete,
        expiresAt: read.expiresAt,
      });
    },
  );
}
