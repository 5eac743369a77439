// The frozen coding jobs' completion loop (spec rule 8), free: job_start (a goal and the host's own
// check commands), job_status (each check's last result and what remains) and job_submit_check
// (the host's run of one check). The service runs nothing and sees no workspace: the host runs
// each check's command with its own runner and submits the exit code and output it printed. A
// check passed when its last exit code is 0; the job is done when every check's last result
// passed. This is the whole of it: no planning (plan_task is not for coding jobs), no fix loop
// on our side, no judgement of the output.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { configOnce } from './tool-config-cache.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, result } from './tool-result.ts';
import type { Caller } from '../accounts/account-store.ts';
import {
  CHECK_ID,
  MAX_CHECKS,
  MAX_COMMAND_CHARS,
  MAX_DESCRIPTION_CHARS,
  MAX_GOAL_CHARS,
  MAX_JOBS_PER_ACCOUNT,
  MAX_KEPT_OUTPUT_CHARS,
  MAX_OUTPUT_CHARS,
  type CodingJob,
  type CodingJobStore,
} from '../runs/coding-jobs/coding-job-store.ts';


const LOOP =
  'The completion loop: job_status says which checks remain; edit your workspace; run the remaining check\'s command with ' +
  'your own runner; submit its exit code and output with job_submit_check; repeat until status is done. The service never ' +
  'runs a command and cannot see your workspace: submit exactly what the command printed and the exit code it returned, ' +
  'never a result written by hand. Do not call plan_task on a coding job.';

const checkResultSchema = z.object({
  exitCode: z.number().int(),
  passed: z.boolean(),
  output: z.string().describe(`The tail of the output, at most ${MAX_KEPT_OUTPUT_CHARS} characters`),
  outputChars: z.number().int().describe('The length of the output as submitted'),
  truncated: z.boolean(),
  submittedAt: z.string(),
});

const jobShape = {
  jobId: z.string(),
  goal: z.string(),
  status: z.enum(['open', 'done']).describe('done when every check\'s last result passed'),
  done: z.boolean(),
  checks: z.array(
    z.object({
      id: z.string(),
      command: z.string(),
      description: z.string(),
      attempts: z.number().int(),
      last: checkResultSchema.nullable().describe('The last result submitted, or null before the first'),
    }),
  ),
  remaining: z.array(z.string()).describe('Ids of the checks whose last result did not pass or that have none, in order'),
  next: z.string().describe('What to do next'),
  createdAt: z.string(),
  updatedAt: z.string(),
};

const jobIdInput = z.string().min(1).max(100).describe('The jobId job_start answered');

function nextStep(job: CodingJob): string {
  if (job.status === 'done') return 'Every check\'s last result passed: the job is done. A later failing submission would reopen it.';
  const check = job.checks.find((c) => c.id === job.remaining[0]);
  if (!check) return 'Submit a result for each check with job_submit_check.';
  const failed = check.last ? `Check ${check.id} failed last (exit code ${check.last.exitCode}): read the tail of its output, fix the cause, then ` : 'Edit your workspace, then ';
  return `${failed}run \`${check.command}\` with your own runner and call job_submit_check with jobId, checkId "${check.id}", its exitCode and its output. Remaining: ${job.remaining.join(', ')}.`;
}

function jobOut(job: CodingJob): Record<string, unknown> {
  return { ...job, done: job.status === 'done', next: nextStep(job) };
}

function jobNotFound(jobId: string) {
  return errorResult('job_not_found', `No coding job ${jobId} in this account`, { jobId, detail: 'Use the jobId job_start answered to this account, or start a job with job_start' });
}

export function registerCodingJobTools(server: McpServer, ctx: { caller: Caller; jobs: CodingJobStore }): void {
  const { jobs } = ctx;
  const accountId = ctx.caller.account.id;

  server.registerTool(
    'job_start',
    configOnce(jobs, 'job_start', () => ({
      title: 'Start a coding job',
      description:
        'Starts a frozen coding job: a goal and the checks that prove it done, each the command you (the host) run in your own ' +
        `workspace, e.g. {id: "tests", command: "npm test"}. The job is open until every check's last submitted result passed ` +
        `(exit code 0). ${LOOP} At most ${MAX_CHECKS} checks a job and ${MAX_JOBS_PER_ACCOUNT} jobs an account. Free.`,
      inputSchema: {
        goal: z.string().trim().min(1).max(MAX_GOAL_CHARS).describe('What the coding job must achieve'),
        checks: z
          .array(
            z.object({
              id: z.string().regex(CHECK_ID, 'a check id is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit').describe('A short id, e.g. "tests", "lint", "typecheck"'),
              command: z.string().trim().min(1).max(MAX_COMMAND_CHARS).describe('The command you run for it, e.g. "npm test" (shown back to you; never run by the service)'),
              description: z.string().max(MAX_DESCRIPTION_CHARS).default('').describe('What the check proves'),
            }),
          )
          .min(1)
          .max(MAX_CHECKS)
          .describe('The checks, in the order to run them'),
      },
      outputSchema: jobShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    })),
    async ({ goal, checks }) => {
      const started = await jobs.start(accountId, { goal, checks });
      if (started.kind === 'duplicate_check') return errorResult('duplicate_check_id', `Check id ${started.checkId} appears more than once`, { checkId: started.checkId, detail: 'Give every check its own id' });
      if (started.kind === 'too_many_jobs') return errorResult('too_many_jobs', `This account holds ${MAX_JOBS_PER_ACCOUNT} coding jobs, the most it may`, { detail: 'Continue an existing job with job_status' });
      return result(jobOut(started.job));
    },
  );

  server.registerTool(
    'job_status',
    configOnce(jobs, 'job_status', () => ({
      title: 'Coding job status',
      description:
        'A coding job\'s state: each check with its last submitted result (exit code, passed, the tail of its output), the ids ' +
        `of the checks that remain, done, and next (what to do now). ${LOOP} Free.`,
      inputSchema: { jobId: jobIdInput },
      outputSchema: jobShape,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    async ({ jobId }) => {
      const job = await jobs.get(accountId, jobId);
      if (!job) return jobNotFound(jobId);
      return result(jobOut(job));
    },
  );

  server.registerTool(
    'job_submit_check',
    configOnce(jobs, 'job_submit_check', () => ({
      title: 'Submit a check result',
      description:
        'Records one run of a coding job\'s check, as your runner reported it: the exit code the command returned and the ' +
        `output it printed (up to ${MAX_OUTPUT_CHARS} characters; the last ${MAX_KEPT_OUTPUT_CHARS} are kept). Exit code 0 ` +
        'passes the check; the answer is the job\'s new state, done once every check\'s last result passed. Submit only ' +
        'what the command printed, never a payload written by hand. Free.',
      inputSchema: {
        jobId: jobIdInput,
        checkId: z.string().min(1).max(64).describe('The id of the check you ran'),
        exitCode: z.number().int().min(-2147483648).max(2147483647).describe('The exit code the command returned (0 passes)'),
        output: z
          .string()
          .max(MAX_OUTPUT_CHARS, `output is over ${MAX_OUTPUT_CHARS} characters: submit its last ${MAX_KEPT_OUTPUT_CHARS} characters (only the tail is kept)`)
          .describe('What the command printed (stdout and stderr)'),
      },
      outputSchema: { ...jobShape, checkId: z.string(), passed: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    })),
    async ({ jobId, checkId, exitCode, output }) => {
      const submitted = await jobs.submit(accountId, { jobId, checkId, exitCode, output });
      if (submitted.kind === 'job_not_found') return jobNotFound(jobId);
      if (submitted.kind === 'check_not_found') {
        return errorResult('check_not_found', `Job ${jobId} has no check ${checkId}`, { jobId, checkId, checkIds: submitted.checkIds, detail: `Use one of its checks: ${submitted.checkIds.join(', ')}` });
      }
      if (submitted.kind === 'output_too_large') {
        return errorResult('output_too_large', `output is ${submitted.chars} characters, over ${MAX_OUTPUT_CHARS}`, { detail: `Submit its last ${MAX_KEPT_OUTPUT_CHARS} characters` });
      }
      return result({ ...jobOut(submitted.job), checkId, passed: submitted.check.last?.passed === true });
    },
  );
}
