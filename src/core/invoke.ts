import type { FastifyBaseLogger } from 'fastify';
import type { AccountStore, Caller, Limits } from '../accounts/account-store.ts';
import { periodResetAt } from '../accounts/periods.ts';
import type { RateDecision, RequestLimiter } from '../accounts/rate-limiter.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import type { UsageRecorder } from '../accounts/usage-recorder.ts';
import { looksLikeApiKey } from '../accounts/secrets.ts';
import { toolModule, type Catalog } from './catalog.ts';
import type { ComputePool } from './compute-pool.ts';
import { placementOf, type AiToolContext, type AnyTool, type FileArtifact, type FileToolContext, type ToolContext, type UploadedFile } from './define-tool.ts';
import type { FilePipeline, ReceivedUpload } from '../files/file-pipeline.ts';
import { ServiceError } from './errors.ts';
import type { Metrics } from './metrics.ts';
import { runAsJobOwner } from '../engines/job-owner.ts';
import { validateInput } from './validate-input.ts';
import { isRefunded, toServiceError } from './call-failures.ts';
import { fileSha256, idempotencyRequestHash } from './idempotency-hash.ts';
import { receiveFileSource, type FileSource } from './file-sources.ts';
import { failure, loadOutcome, storeOutcome, type FailureStage, type InvokeFailure, type Meter, type Outcome } from './outcome.ts';
import type { EgressFetcher } from '../analysis/fetch-supervisor.ts';
import type { UrlToolContext } from './define-url-tool.ts';
import type { Engines } from '../engines/index.ts';
import type { AiProvider } from '../ai/providers.ts';

/** One call: an authenticated caller (surfaces authenticate; see Invoker.authenticate), a tool, its input. */
export interface InvokeRequest {
  caller: Caller;
  operationId: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  requestId: string;
  log: FastifyBaseLogger;
  /** Aborted when the caller goes away. */
  signal?: AbortSignal | undefined;
  /** File tools: where the file comes from (read only once the call is admitted; see file-sources.ts). */
  file?: FileSource | undefined;
  /**
   * File tools: the caller's work folder (FilePipeline.createWorkDir). The caller owns it and
   * removes it when it is done with the call (a request when it answered, a run when it ended),
   * so a run's file outlives the request that submitted it.
   */
  workDir?: string | undefined;
  /** Opaque to core: how the surface will deliver the result, bound into the Idempotency-Key's request hash. */
  delivery?: string | undefined;
}

export interface InvokerDeps {
  catalog: Catalog;
  accounts: AccountStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  rateLimiter: RequestLimiter;
  metrics: Metrics;
  toolTimeoutMs: number;
  idempotencyTtlMs: number;
  files?: FilePipeline;
  /** Handed to file tools as ctx.engines; a file tool's declared engines are checked before its charge. */
  engines?: Engines;
  /** Handed to URL tools as ctx.fetchPage, bound to the calling account and the call's signal; fetches URL file sources. */
  fetcher?: EgressFetcher;
  /** The largest file a base64 or URL file source may bring (the REST upload limit). */
  uploadLimitBytes?: number;
  /**
   * Runs the tools declared `compute: 'pool'` (see define-tool.ts ComputePlacement) on worker
   * threads with a time and memory limit and a fair share per account. Without it (a bare
   * invoker in a test) they run inline.
   */
  compute?: ComputePool;
  /** Handed to tools that use 'ai' (ai-models); undefined when AI_PROVIDER is unset. */
  ai?: AiProvider | undefined;
}

/** One call on its way through the invoke path, once the caller is known and within its rate limit. */
interface Call {
  tool: AnyTool;
  caller: Caller;
  limits: Limits;
  rate: RateDecision;
  req: InvokeRequest;
  /** The tool's fields before validation (for a file tool, with its form fields). */
  input: unknown;
  received?: ReceivedUpload | undefined;
  workDir?: string | undefined;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;


/**
 * The one path every call takes, from any surface: authenticate → authorize (account, plan,
 * key scopes) → rate limit → idempotency → validate → charge atomically → run → refund when
 * the service failed → record usage. Surfaces never charge or validate on their own.
 *
 * Authentication comes before validation so that a caller without a valid key learns nothing
 * about the tool beyond "401", and every route answers the shared security suite the same way.
 */
export class Invoker {
  readonly #deps: InvokerDeps;

  constructor(deps: InvokerDeps) {
    this.#deps = deps;
  }

  /** Resolves the X-Api-Key secret to a caller, or throws the 401 that says what is wrong. */
  async authenticate(apiKey: string | undefined): Promise<Caller> {
    const cached = this.cachedCaller(apiKey);
    if (cached) return cached;
    if (!apiKey) {
      throw new ServiceError(401, 'missing_api_key', 'An API key is required', { detail: 'Send your API key in the X-Api-Key header' });
    }
    const caller = looksLikeApiKey(apiKey) ? await this.#deps.accounts.findCaller(apiKey) : undefined;
    if (!caller) throw new ServiceError(401, 'invalid_api_key', 'The API key is not valid', { detail: 'Check the X-Api-Key header; keys start with uts_live_' });
    if (caller.key.revokedAt !== null) throw new ServiceError(401, 'api_key_revoked', 'The API key has been revoked', { detail: `Key ${caller.key.id} was revoked at ${caller.key.revokedAt}` });
    return caller;
  }

  /** A cached caller with a live key, found without a promise (the hot path); anything else goes through authenticate(). */
  cachedCaller(apiKey: string | undefined): Caller | undefined {
    if (!apiKey || !looksLikeApiKey(apiKey)) return undefined;
    const caller = this.#deps.accounts.cachedCaller(apiKey);
    return caller && caller.key.revokedAt === null ? caller : undefined;
  }

  /** The account-level checks every metered call needs: verified e-mail and an active account on a known plan. */
  authorizeAccount(caller: Caller): Limits {
    const { account } = caller;
    if (!account.emailVerified) {
      throw new ServiceError(403, 'email_not_verified', 'The account e-mail is not verified', { detail: `Open the verification link sent to ${account.email}` });
    }
    if (account.status !== 'active') {
      throw new ServiceError(403, 'account_inactive', 'The account has no active plan', { detail: `Account status is ${account.status}` });
    }
    return this.#deps.accounts.limitsOf(account);
  }

  authorizeTool(caller: Caller, limits: Limits, tool: AnyTool): void {
    if (limits.plan.excludedFamilies.includes(tool.family)) {
      throw new ServiceError(403, 'plan_forbidden', `The ${tool.family} family is not included in the ${limits.plan.title} plan`, {
        detail: `Upgrade the plan to call ${tool.operationId}`,
      });
    }
    if (caller.key.tools !== null && !caller.key.tools.includes(tool.operationId)) {
      throw new ServiceError(403, 'tool_not_allowed', `This API key may not call ${tool.operationId}`, {
        detail: `The key is limited to: ${caller.key.tools.join(', ') || '(no tools)'}`,
      });
    }
  }

  /** The account's standing right now, for an answer that charged nothing. */
  async #meterNow(accountId: string, limits: Limits, rate: RateDecision): Promise<Meter> {
    const used = await this.#deps.ledger.used(accountId);
    return { limits, rate, creditsRemaining: Math.max(0, limits.monthlyCredits - used), charged: 0 };
  }

  /** Resolves the tool and checks the caller may call it: the stages before any limit is touched. */
  #admit(req: InvokeRequest): { tool: AnyTool; limits: Limits } | InvokeFailure {
    const tool = this.#deps.catalog.get(req.operationId);
    if (!tool) return this.#fail('resolve', new ServiceError(404, 'unknown_tool', `No tool with operationId ${req.operationId}`), req);
    try {
      const limits = this.authorizeAccount(req.caller);
      this.authorizeTool(req.caller, limits, tool);
      return { tool, limits };
    } catch (err) {
      return this.#fail('authorize', err, req);
    }
  }

  /**
   * Every check a call would meet before its charge, without taking a rate-limit token or a
   * credit: for a surface that accepts a job now and runs it later (async runs). A file tool's
   * upload is checked when it runs. Undefined when the call would be admitted.
   */
  async preflight(req: InvokeRequest): Promise<InvokeFailure | undefined> {
    const admitted = this.#admit(req);
    if ('ok' in admitted) return admitted;
    const { tool, limits } = admitted;
    const accountId = req.caller.account.id;
    const used = await this.#deps.ledger.used(accountId);
    const meter: Meter = { limits, rate: undefined, creditsRemaining: Math.max(0, limits.monthlyCredits - used), charged: 0 };
    if (tool.kind !== 'file') {
      try {
        validateInput(tool.input, req.input);
      } catch (err) {
        return this.#fail('input', err, req, meter);
      }
    }
    if (meter.creditsRemaining < tool.credits) return this.#fail('quota', this.#quotaExhausted(tool, meter.creditsRemaining), req, meter);
    return undefined;
  }

  async invoke(req: InvokeRequest): Promise<Outcome> {
    const admitted = this.#admit(req);
    if ('ok' in admitted) return admitted;
    // A caller gone before the call began (a cancelled job between its steps) gets nothing run and
    // nothing charged: the abort listener below only hears an abort that happens during the call.
    if (req.signal?.aborted) return this.#fail('run', new ServiceError(499, 'client_closed', 'The caller closed the request before the call started'), req);
    const { tool, limits } = admitted;
    const caller = req.caller;
    const accountId = caller.account.id;

    const rate = await this.#deps.rateLimiter.take(accountId, limits.requestsPerMinute);
    if (!rate.allowed) {
      return this.#fail(
        'rate',
        new ServiceError(429, 'rate_limited', `Rate limit of ${limits.requestsPerMinute} requests per minute exceeded`, {
          detail: `Retry after ${rate.resetSeconds} seconds`,
          headers: { 'Retry-After': String(rate.resetSeconds) },
          extra: { retryAfterSeconds: rate.resetSeconds },
        }),
        req,
        await this.#meterNow(accountId, limits, rate),
      );
    }

    if (tool.kind !== 'file') return this.#idempotent({ tool, caller, limits, rate, req, input: req.input });

    const workDir = req.workDir;
    if (workDir === undefined) throw new Error(`${tool.operationId} is a file tool: its caller gives the call a work folder`);
    let input: unknown;
    let received: ReceivedUpload | undefined;
    try {
      const form = req.file
        ? await receiveFileSource(req.file, { files: this.#files(), fetcher: this.#deps.fetcher, uploadLimitBytes: this.#deps.uploadLimitBytes ?? Number.MAX_SAFE_INTEGER }, { workDir, accountId, signal: req.signal })
        : { fields: {}, upload: undefined };
      input = { ...(req.input as Record<string, unknown>), ...form.fields };
      received = form.upload;
    } catch (err) {
      return this.#fail('input', err, req, await this.#meterNow(accountId, limits, rate));
    }
    return this.#idempotent({ tool, caller, limits, rate, req, input, received, workDir });
  }

  #files(): FilePipeline {
    if (!this.#deps.files) throw new Error('file tools need the file pipeline');
    return this.#deps.files;
  }

  #idempotent(call: Call): Promise<Outcome> {
    const key = call.req.idempotencyKey;
    return key === undefined ? this.#chargeAndRun(call) : this.#withIdempotencyKey(key, call);
  }

  async #withIdempotencyKey(idempotencyKey: string, call: Call): Promise<Outcome> {
    const { tool, caller, limits, rate, req, input, received } = call;
    const { accounts } = this.#deps;
    const accountId = caller.account.id;
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      return this.#fail('input', new ServiceError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 printable ASCII characters'), req);
    }
    // The file's digest is read here, only for a call an Idempotency-Key binds (no upload is hashed otherwise).
    const hash = idempotencyRequestHash(tool.operationId, input, received === undefined ? undefined : await fileSha256(received.path), req.delivery);
    const holder = this.#deps.ledger.holder;
    // A live holder keeps a claim while the call is charged, run (within its time limit) and
    // stored; a claim far older than that, whose holder's pid cannot tell, is a holder gone.
    const staleMs = 2 * (tool.limits?.timeoutMs ?? this.#deps.toolTimeoutMs) + 60_000;
    const claim = await accounts.claimIdempotencyKey(accountId, idempotencyKey, hash, { holder, ttlMs: this.#deps.idempotencyTtlMs, staleMs });
    if (claim.kind === 'replay') return loadOutcome(claim.body, await this.#meterNow(accountId, limits, rate));
    if (claim.kind === 'mismatch') {
      return this.#fail('input', new ServiceError(409, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request', { detail: 'Use a new key for a new request' }), req);
    }
    if (claim.kind === 'in_progress') {
      return this.#fail('input', new ServiceError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still running', { headers: { 'Retry-After': '1' } }), req);
    }

    if (claim.recovered) req.log.warn({ idempotencyKey, deadHolderPid: claim.recovered.pid }, 'took over the Idempotency-Key claim of a stopped process; running the request');

    const outcome = await this.#chargeAndRun(call);
    // Nothing was done for a 5xx or a 429 (quota, engine queue full): its retry must run, not replay the refusal.
    const status = outcome.ok ? 200 : outcome.error.status;
    if (status >= 500 || status === 429) await accounts.releaseIdempotencyKey(accountId, idempotencyKey, holder);
    else await accounts.completeIdempotencyKey(accountId, idempotencyKey, holder, status, JSON.stringify(storeOutcome(outcome)));
    return outcome;
  }

  async #chargeAndRun(call: Call): Promise<Outcome> {
    const { tool, caller, limits, rate, req, input: rawInput, received, workDir } = call;
    const { metrics } = this.#deps;
    const accountId = caller.account.id;
    const record = (credits: number, statusCode: number) =>
      this.#deps.usage.record({ accountId, keyId: caller.key.id, operationId: tool.operationId, credits, statusCode });

    let input: unknown;
    let upload: UploadedFile | undefined;
    try {
      // For a file tool the file itself is the first thing a caller needs to hear about.
      if (tool.kind === 'file') upload = await this.#files().inspect(tool, received);
      input = validateInput(tool.input, rawInput);
    } catch (err) {
      const refused = this.#fail('input', err, req, await this.#meterNow(accountId, limits, rate));
      record(0, refused.error.status);
      return refused;
    }

    // A missing engine is the service's gap, not the call's: refused before the charge, so it costs nothing.
    if (tool.engines !== undefined && tool.engines.length > 0 && this.#deps.engines) {
      try {
        await this.#deps.engines.require(tool.engines);
      } catch (err) {
        const refused = this.#fail('run', err, req, await this.#meterNow(accountId, limits, rate));
        record(0, refused.error.status);
        return refused;
      }
    }

    // A tool that keeps its answers (ToolCache): the same input from this account is answered
    // from the store, uncharged; the first call claims the entry and fills it when it succeeds.
    const cached = tool.cache ? await this.#cacheLookup(tool, accountId, input) : undefined;
    if (cached?.kind === 'hit') {
      record(0, 200);
      return { ok: true, result: cached.result, warnings: [], meter: await this.#meterNow(accountId, limits, rate), replayed: false };
    }

    // From this process's credit lease without a promise when it covers the cost (nearly always).
    const charge = this.#deps.ledger.chargeFromLease(accountId, tool.credits, limits.monthlyCredits) ?? (await this.#deps.ledger.charge(accountId, tool.credits, limits.monthlyCredits));
    if (!charge.charged) {
      const refused = this.#fail('quota', this.#quotaExhausted(tool, charge.remaining), req, { limits, rate, creditsRemaining: charge.remaining, charged: 0 });
      record(0, refused.error.status);
      return refused;
    }

    let outcome: Outcome;
    try {
      const warnings: string[] = [];
      const pooled = this.#pooled(tool, input);
      const run = () => this.#run(tool, input, req, accountId, warnings, upload, workDir, pooled);
      // A file (or URL) tool's engine jobs, and a pooled tool's compute job, run as the account's, so
      // the queues share slots fairly between accounts and hold each to its share (see
      // engines/job-owner.ts); tools never see it.
      let result = tool.kind === 'file' || tool.kind === 'url' || tool.uses === 'ai' || pooled ? runAsJobOwner({ id: accountId, maxJobs: limits.plan.engineJobs }, run) : run();
      if (result instanceof Promise) result = await result;
      // Credits by the work done (ToolSpec.creditsFor): the difference to the up-front charge comes back.
      const cost = tool.creditsFor ? Math.min(tool.credits, Math.max(1, Math.ceil(tool.creditsFor(result)))) : tool.credits;
      if (cost < tool.credits) await this.#deps.ledger.refund(accountId, tool.credits - cost);
      outcome = { ok: true, result, warnings, meter: { limits, rate, creditsRemaining: charge.remaining + (tool.credits - cost), charged: cost }, replayed: false };
    } catch (err) {
      const error = toServiceError(err, req.log);
      const refunded = isRefunded(error.status, error.error);
      if (refunded) await this.#deps.ledger.refund(accountId, tool.credits);
      const meter: Meter = { limits, rate, creditsRemaining: charge.remaining + (refunded ? tool.credits : 0), charged: refunded ? 0 : tool.credits };
      outcome = failure('run', error, meter);
    }
    if (cached?.kind === 'claimed') await this.#cacheSettle(tool, accountId, cached.key, outcome);
    const charged = outcome.meter?.charged ?? 0;
    if (charged > 0) metrics.chargeCredits(tool.operationId, charged);
    record(charged, outcome.ok ? 200 : outcome.error.status);
    return outcome;
  }

  /**
   * A ToolCache entry lives in the idempotency store under a key no caller can send (it holds a
   * space, which an Idempotency-Key may not), per account, for the tool's ttl (the store's sweep,
   * IDEMPOTENCY_TTL_HOURS, may end it sooner).
   */
  async #cacheLookup(tool: AnyTool, accountId: string, input: unknown): Promise<{ kind: 'hit'; result: unknown } | { kind: 'claimed'; key: string } | undefined> {
    const cache = tool.cache!;
    const hash = idempotencyRequestHash(tool.operationId, input, undefined, undefined);
    const key = `cache ${hash}`;
    const staleMs = 2 * (tool.limits?.timeoutMs ?? this.#deps.toolTimeoutMs) + 60_000;
    const claim = await this.#deps.accounts.claimIdempotencyKey(accountId, key, hash, { holder: this.#deps.ledger.holder, ttlMs: cache.ttlMs, staleMs });
    if (claim.kind === 'replay') {
      const stored = JSON.parse(claim.body) as { result: unknown; storedAt: string };
      return { kind: 'hit', result: cache.served(stored.result, stored.storedAt) };
    }
    // Another call with the same input is running: this one runs too, and leaves the entry to it.
    return claim.kind === 'claimed' ? { kind: 'claimed', key } : undefined;
  }

  async #cacheSettle(tool: AnyTool, accountId: string, key: string, outcome: Outcome): Promise<void> {
    const holder = this.#deps.ledger.holder;
    if (outcome.ok) await this.#deps.accounts.completeIdempotencyKey(accountId, key, holder, 200, JSON.stringify({ result: outcome.result, storedAt: new Date().toISOString() }));
    else await this.#deps.accounts.releaseIdempotencyKey(accountId, key, holder);
  }

  #quotaExhausted(tool: AnyTool, remaining: number): ServiceError {
    const resetAt = periodResetAt(new Date()).toISOString();
    return new ServiceError(429, 'quota_exhausted', 'The monthly credit quota is used up', {
      detail: `${tool.operationId} costs ${tool.credits} credits and ${remaining} remain this period; the quota resets at ${resetAt}`,
      headers: { 'x-should-retry': 'false' },
      extra: { resetAt, creditsRequired: tool.credits, creditsRemaining: remaining },
    });
  }

  /**
   * Runs the tool. A synchronous tool's result comes back as it is, without a promise: it has
   * finished already, and no timer could have interrupted it (its input bounds are what keep it
   * short). Only work that awaits gets a time budget.
   */
  #run(tool: AnyTool, input: unknown, req: InvokeRequest, accountId: string, warnings: string[], upload?: UploadedFile, workDir?: string, pooled = false): unknown {
    const controller = new AbortController();
    const ctx: ToolContext = { requestId: req.requestId, log: req.log, signal: controller.signal, warn: (m) => warnings.push(m) };
    let pending: Promise<unknown>;
    if (tool.kind === 'url') {
      pending = Promise.resolve(tool.run(input, this.#urlContext(ctx, accountId)));
    } else if (tool.uses === 'ai') {
      const aiContext: AiToolContext = { ...this.#urlContext(ctx, accountId), ai: this.#deps.ai };
      pending = Promise.resolve(tool.run(input, aiContext));
    } else if (tool.kind === 'file') {
      if (!upload || workDir === undefined) throw new Error('file tool without an upload');
      pending = this.#runFileTool(tool, input, { ...ctx, upload, workDir, engines: this.#deps.engines }, accountId, pooled ? warnings : undefined);
    } else if (pooled) {
      pending = this.#onPool(tool, input, ctx, warnings);
    } else {
      const result: unknown = tool.run(input, ctx);
      if (!(result instanceof Promise)) return result;
      pending = result;
    }
    return this.#withTimeout(tool, pending, controller, req);
  }

  async #withTimeout(tool: AnyTool, pending: Promise<unknown>, controller: AbortController, req: InvokeRequest): Promise<unknown> {
    const timeoutMs = tool.limits?.timeoutMs ?? this.#deps.toolTimeoutMs;
    const onCallerGone = () => controller.abort(new ServiceError(499, 'client_closed', 'The caller closed the request'));
    req.signal?.addEventListener('abort', onCallerGone, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ServiceError(504, 'tool_timeout', `${tool.operationId} did not finish within ${timeoutMs} ms`);
        controller.abort(err);
        reject(err);
      }, timeoutMs);
    });
    try {
      return await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerGone);
    }
  }

  /** A URL tool's fetches run in its account's fetcher slots and end with the call. */
  #urlContext(ctx: ToolContext, accountId: string): UrlToolContext {
    const fetcher = this.#deps.fetcher;
    if (!fetcher) throw new Error('URL tools need the egress-safe fetcher');
    return {
      ...ctx,
      fetchPage: (url, options = {}) => fetcher.fetch(url, { ...options, account: accountId, signal: ctx.signal }),
      withPage: (url, use, options = {}) => fetcher.fetchAndUse(url, use, { ...options, account: accountId, signal: ctx.signal }),
      ...(this.#deps.engines ? { engines: this.#deps.engines } : {}),
    };
  }

  /** Whether this call computes on the pool: the tool asks for it (for this input) and there is a pool. */
  #pooled(tool: AnyTool, input: unknown): boolean {
    // A tool without `compute` (a calculator) is decided on its first test: the hot path pays nothing.
    return tool.compute !== undefined && this.#deps.compute !== undefined && placementOf(tool, input) === 'pool' && toolModule(tool) !== undefined;
  }

  /**
   * Runs the tool's own run on a compute worker; its warnings join the call's, and its log lines
   * (bare messages) go to the request's log. The call's signal (caller gone, time budget over)
   * ends the job. A file tool's upload and work folder cross as paths.
   */
  async #onPool(tool: AnyTool, input: unknown, ctx: ToolContext, warnings: string[], file?: { upload: UploadedFile; workDir: string }): Promise<unknown> {
    const compute = this.#deps.compute!;
    const job = { operationId: tool.operationId, module: toolModule(tool)!, input, requestId: ctx.requestId, ...(file ? { file } : {}) };
    const done = await compute.run(job, ctx.signal);
    warnings.push(...done.warnings);
    for (const [level, message] of done.logs) ctx.log[level]({ operationId: tool.operationId }, message);
    return done.result;
  }

  async #runFileTool(tool: AnyTool, input: unknown, ctx: FileToolContext, accountId: string, poolWarnings?: string[]): Promise<unknown> {
    const files = this.#files();
    await files.assertSafe(ctx.upload);
    const produced = poolWarnings ? await this.#onPool(tool, input, ctx, poolWarnings, { upload: ctx.upload, workDir: ctx.workDir }) : await tool.run(input, ctx);
    // A tool that answers in the body (FileAnswer 'json' or 'text') stores nothing.
    if (tool.answer === 'json' || tool.answer === 'text') return produced;
    return files.store(produced as FileArtifact, accountId);
  }

  #fail(stage: FailureStage, err: unknown, req: InvokeRequest, meter?: Meter): InvokeFailure {
    return failure(stage, toServiceError(err, req.log), meter);
  }
}
