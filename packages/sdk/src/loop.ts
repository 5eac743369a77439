// The host loop of the spec's rule 7, as a function: apply only the rank-1 fix of
// loop.nextActions, verify, and repeat until the server's gate passes, the server says the loop
// may not go on (initiate false) or it stops it (max_rounds, same_findings). The status returned
// is always the server's own: nothing here decides that a page passed.

/** A fix item of `loop.nextActions` / `loop.remainingFixes`, as the server sends it. */
export interface LoopFix {
  findingId: string;
  rule?: string;
  patchType?: string;
  acceptance?: unknown;
  roleHint?: string;
  change?: string;
  [field: string]: unknown;
}

/** The `loop` of a solve_task, run_playbook or verify_task answer. */
export interface LoopState {
  gate: 'pass' | 'fail' | 'unknown';
  initiate: boolean;
  stop?: 'max_rounds' | 'same_findings' | null;
  round: number;
  maxRounds?: number;
  nextActions: LoopFix[];
  remainingFixes?: unknown[];
  next?: string;
  [field: string]: unknown;
}

/** A meta-tool's parsed answer. Jobs carry `execution.runId` and `loop`; see docs/mcp.md. */
export interface McpAnswer {
  status?: string;
  error?: string;
  message?: string;
  execution?: { runId?: string; [field: string]: unknown };
  loop?: LoopState;
  [field: string]: unknown;
}

/** What verifyUntilPass needs of the MCP helpers: one tool call. */
export type CallMcpTool = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<McpAnswer>;

export interface VerifyRound {
  /** the server's loop.round after this verify */
  round: number;
  /** the loop.nextActions[0] applied before this verify (none when the server named no fix) */
  fix: LoopFix | undefined;
  /** the verify answer's status: continue, fail, stopped, verified, partial, error... */
  status: string | undefined;
  runId: string | undefined;
}

export interface VerifyUntilPassOptions {
  goal: string;
  /** the answer of solve_task / run_playbook / an earlier verify_task, or its runId (then it is read with get_run) */
  baseline: McpAnswer | { runId: string } | string;
  /** makes the change one fix asks for, in the host's own workspace; called with loop.nextActions[0] only */
  applyFix: (fix: LoopFix, context: { answer: McpAnswer; round: number }) => unknown;
  /** verify rounds this call runs at most (default 20, the server's own ceiling; the chain's loop.maxRounds stops it first) */
  maxRounds?: number;
  /** told after every verify */
  onRound?: (round: VerifyRound, answer: McpAnswer) => unknown;
  /** verify_task's input: fixed, or computed after each fix (local HTML changes with every fix) */
  input?: Record<string, unknown> | ((context: { fix: LoopFix | undefined; round: number }) => Record<string, unknown> | Promise<Record<string, unknown>>);
  signal?: AbortSignal;
}

export interface VerifyUntilPassResult {
  /** the last answer's status, as the server gave it: 'verified' only when the server said so */
  status: string | undefined;
  /** one entry per verify_task call this loop made */
  rounds: VerifyRound[];
  /** the last answer read (the baseline's own when no verify ran) */
  last: McpAnswer;
}

const DEFAULT_MAX_ROUNDS = 20;

/** True while rule 7 allows another round: the gate has not passed, the server lets it go on and has not stopped it. */
export function loopContinues(loop: LoopState | undefined): loop is LoopState {
  return loop !== undefined && loop.gate !== 'pass' && loop.initiate !== false && (loop.stop === undefined || loop.stop === null);
}

export async function verifyUntilPass(call: CallMcpTool, options: VerifyUntilPassOptions): Promise<VerifyUntilPassResult> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  let answer = await resolveBaseline(call, options.baseline, options.signal);
  const rounds: VerifyRound[] = [];
  while (loopContinues(answer.loop) && rounds.length < maxRounds) {
    options.signal?.throwIfAborted();
    const runId = answer.execution?.runId;
    const fix = answer.loop.nextActions[0];
    if (fix !== undefined) await options.applyFix(fix, { answer, round: answer.loop.round });
    const input = typeof options.input === 'function' ? await options.input({ fix, round: answer.loop.round }) : options.input;
    // {runId} is the cheapest baseline the server accepts (a few bytes; the chain's round, streak
    // and stop live on the server). An answer without one (it should not happen for a job) goes whole.
    const baseline = runId === undefined ? answer : { runId };
    answer = await call('verify_task', { goal: options.goal, baseline, ...(input === undefined ? {} : { input }) }, options.signal);
    const round: VerifyRound = { round: answer.loop?.round ?? rounds.length + 1, fix, status: answer.status, runId: answer.execution?.runId };
    rounds.push(round);
    await options.onRound?.(round, answer);
  }
  return { status: answer.status, rounds, last: answer };
}

/** The baseline as a job answer with its loop: a runId alone is read back with get_run. */
async function resolveBaseline(call: CallMcpTool, baseline: VerifyUntilPassOptions['baseline'], signal: AbortSignal | undefined): Promise<McpAnswer> {
  if (typeof baseline === 'string') return answerOfRun(call, baseline, signal);
  if ('loop' in baseline && baseline.loop !== undefined) return baseline;
  const runId = typeof baseline['runId'] === 'string' ? baseline['runId'] : (baseline as McpAnswer).execution?.runId;
  if (typeof runId === 'string') return answerOfRun(call, runId, signal);
  throw new TypeError('verifyUntilPass: the baseline is neither a job answer with a loop nor a runId');
}

async function answerOfRun(call: CallMcpTool, runId: string, signal: AbortSignal | undefined): Promise<McpAnswer> {
  const run = await call('get_run', { runId }, signal);
  const result = run['result'];
  if ((run.status !== 'completed' && run.status !== 'partial') || typeof result !== 'object' || result === null) {
    throw new TypeError(`verifyUntilPass: run ${runId} is ${run.status ?? 'unknown'}, not a finished job to verify against`);
  }
  return result as McpAnswer;
}
