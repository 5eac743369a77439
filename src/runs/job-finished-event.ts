// The `mcp.job.finished` webhook's data for a run that ended, wherever it ended: on the node that
// ran it (RunExecutor), or on the node that closed it after its holder died (run-takeover.ts).
import type { JobFinishedData } from './webhook-delivery.ts';
import type { Run } from './run-store.ts';

/** The event's data; the playbook and the routed tool are read from the job's own answer. */
export function jobFinishedData(run: Run & { status: JobFinishedData['status'] }, goal?: string): JobFinishedData {
  const answer = run.outcome?.ok === true && run.outcome.result !== null && typeof run.outcome.result === 'object' ? (run.outcome.result as Record<string, unknown>) : {};
  const job = answer['job'] as { kind?: unknown; id?: unknown } | undefined;
  const skillId = typeof answer['skillId'] === 'string' ? answer['skillId'] : job?.kind === 'playbook' && typeof job.id === 'string' ? job.id : undefined;
  return {
    runId: run.runId,
    kind: run.kind,
    operationId: run.operationId ?? undefined,
    ...(skillId === undefined ? {} : { skillId }),
    ...(job?.kind === 'tool' && typeof job.id === 'string' ? { toolOperationId: job.id } : {}),
    ...(goal === undefined || goal === '' ? {} : { goal: goal.slice(0, 500) }),
    status: run.status,
    resultStatus: run.resultStatus ?? undefined,
    startedAt: run.startedAt ?? run.createdAt,
    finishedAt: run.finishedAt ?? new Date().toISOString(),
    credits: run.credits,
  };
}
