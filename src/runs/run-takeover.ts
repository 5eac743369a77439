// Durable runs across nodes (issue 21 item 3): every node heartbeats the runs it holds, and
// sweeps for runs whose holder died (its heartbeat stale, or its pid gone on this host). A run it
// takes that had not started and can run again (an invoke_tool run without a file) runs here, as
// its submitting key of this moment; any other (it had started, or it is a file run or a job whose
// request died with its node) is closed `error` and announced. Nothing is charged twice: a run that
// started is never run again, and the credits of a call its dead node had not settled go back with
// that node's credit lease (see CreditLedger.reclaimDead).
import type { FastifyBaseLogger } from 'fastify';
import type { AccountStore, Caller } from '../accounts/account-store.ts';
import type { LeaseHolder } from '../accounts/lease-holder.ts';
import type { RunExecutor } from './run-executor.ts';
import type { RunStore } from './run-store.ts';

export interface RunTakeoverOptions {
  runs: RunStore;
  executor: RunExecutor;
  accounts: Pick<AccountStore, 'getKey' | 'getAccount'>;
  holder: LeaseHolder;
  /** a holder whose heartbeat is older than this is dead (the credit leases' own limit) */
  staleMs: number;
  log: FastifyBaseLogger;
}

/** The submitting key and its account as they are now; undefined when either is gone. */
async function callerOf(accounts: RunTakeoverOptions['accounts'], keyId: string): Promise<Caller | undefined> {
  const key = await accounts.getKey(keyId);
  const account = key && (await accounts.getAccount(key.accountId));
  return key && account ? { key, account } : undefined;
}

/** Takes over the runs of dead holders once; answers how many it took. */
export async function takeOverRuns(o: RunTakeoverOptions, now: Date = new Date()): Promise<number> {
  const taken = await o.runs.takeOrphans(o.holder, o.staleMs, now);
  for (const { run, request, deadHolder } of taken) {
    const caller = request === null ? undefined : await callerOf(o.accounts, request.keyId);
    if (request !== null && caller !== undefined && caller.account.id === run.accountId) {
      o.log.warn({ runId: run.runId, deadHolder }, 'took over a run a stopped node had not started: running it here');
      o.executor.resume(run, request, caller, o.log);
      continue;
    }
    const reason = `The process running this run (pid ${deadHolder.pid} on ${deadHolder.host}) stopped before it finished; submit it again`;
    const closed = await o.runs.finish(run.runId, o.holder, { status: 'error', resultStatus: null, outcome: null, errorReason: reason, credits: 0, at: now });
    if (!closed) continue;
    o.log.warn({ runId: run.runId, deadHolder }, 'closed a run left in flight by a stopped process');
    o.executor.announce(run.accountId, { ...run, status: 'error', errorReason: reason, finishedAt: now.toISOString() });
  }
  return taken.length;
}

/**
 * The two beats: the heartbeat of this holder's open runs every `heartbeatMs`, and a takeover
 * sweep every `sweepMs`. A beat never overlaps itself (a slow database skips a beat, not piles
 * them up). Answers a stop function.
 */
export function startRunBeats(o: RunTakeoverOptions & { heartbeatMs: number; sweepMs: number }): () => void {
  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating || !o.executor.holdsRuns) return;
    beating = true;
    o.runs
      .heartbeat(o.holder)
      .catch((err: unknown) => o.log.error({ err }, 'run heartbeat failed'))
      .finally(() => (beating = false));
  }, o.heartbeatMs);
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    takeOverRuns(o)
      .catch((err: unknown) => o.log.error({ err }, 'run takeover sweep failed'))
      .finally(() => (sweeping = false));
  }, o.sweepMs);
  heartbeat.unref();
  sweep.unref();
  return () => {
    clearInterval(heartbeat);
    clearInterval(sweep);
  };
}
