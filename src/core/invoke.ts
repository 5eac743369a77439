import type { FastifyBaseLogger } from 'fastify';
import type { AccountStore, Caller, Limits } from '../accounts/account-store.ts';
import type { RateDecision, RequestLimiter } from '../accounts/rate-limiter.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import type { UsageRecorder } from '../accounts/usage-recorder.ts';
import { looksLikeApiKey } from '../accounts/secrets.ts';
import type { Catalog } from './catalog.ts';
import type { ComputePool } from './compute-pool.ts';
import type { AnyTool, UploadedFile } from './define-tool.ts';
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
import type { PageMemo } from '../analysis/page-memo.ts';
import { requireFiles, ToolRunner } from './tool-runner.ts';
import { cacheLookup, cacheSettle, claimStaleMs } from './tool-cache.ts';
import { meterNow, quotaExhausted, rateLimited } from './call-refusals.ts';
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
  /**
   * File tools that store a result: a path in `workDir` where the result's bytes are also kept
   * (FilePipeline.store), for a surface that sends them itself once the call answered (REST's
   * delivery=binary) rather than reading back the stored copy, which may fail after the charge.
   */
  keepResultAt?: string | undefined;
  /**
   * A job's pages (analysis/page-memo.ts): the URL tools of its calls fetch a page once for the
   * whole job. Opaque to core, and not part of the call: only a job's own runner passes one.
   */
  pages?: PageMemo | undefined;
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
  /** The run step (context, time budget, compute pool, a file tool's stored result): see tool-runner.ts. */
  readonly #runner: ToolRunner;

  constructor(deps: InvokerDeps) {
    this.#deps = deps;
    this.#runner = new ToolRunner(deps);
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
      throw new ServiceError(403, 'email_not_verified', 'The account e-mail is not verified', { detail: `Open the verification link sent to ${account.email}; a new link: sign in on the dashboard, or open /dashboard/verify/resend` });
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
    if (meter.creditsRemaining < tool.credits) return this.#fail('quota', quotaExhausted(tool, meter.creditsRemaining), req, meter);
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
      return this.#fail('rate', rateLimited(limits, rate), req, await meterNow(this.#deps.ledger, accountId, limits, rate));
    }

    if (tool.kind !== 'file') return this.#idempotent({ tool, caller, limits, rate, req, input: req.input });

    const workDir = req.workDir;
    if (workDir === undefined) throw new Error(`${tool.operationId} is a file tool: its caller gives the call a work folder`);
    let input: unknown;
    let received: ReceivedUpload | undefined;
    try {
      const form = req.file
        ? await receiveFileSource(req.file, { files: this.#files(), fetcher: this.#deps.fetcher, uploadLimitBytes: this.#deps.uploadLimitBytes ?? Number.MAX_SAFE_INTEGER }, { workDir, accountId, signal: req.signal, digest: req.idempotencyKey !== undefined })
        : { fields: {}, upload: undefined };
      input = { ...(req.input as Record<string, unknown>), ...form.fields };
      received = form.upload;
    } catch (err) {
      return this.#fail('input', err, req, await meterNow(this.#deps.ledger, accountId, limits, rate));
    }
    try {
      return await this.#idempotent({ tool, caller, limits, rate, req, input, received, workDir });
    } finally {
      // A small upload's bytes may be held in memory for its checks and its tool's run, whose
      // engine zip-checks them (files/upload-bytes.ts); whichever way the call ended, they are
      // not read again.
      this.#files().doneWith(received);
    }
  }

  #files(): FilePipeline {
    return requireFiles(this.#deps.files);
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
    // The file's digest: hashed on its way in when the surface could (an upload), else read now.
    const fileDigest = received === undefined ? undefined : (received.sha256 ?? (await fileSha256(received.path)));
    const hash = idempotencyRequestHash(tool.operationId, input, fileDigest, req.delivery);
    const holder = this.#deps.ledger.holder;
    // A claim far older than its holder's time limit allows is a holder gone (see claimStaleMs).
    const staleMs = claimStaleMs(tool, this.#deps.toolTimeoutMs);
    const claim = await accounts.claimIdempotencyKey(accountId, idempotencyKey, hash, { holder, ttlMs: this.#deps.idempotencyTtlMs, staleMs });
    if (claim.kind === 'replay') return loadOutcome(claim.body, await meterNow(this.#deps.ledger, accountId, limits, rate));
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
      const refused = this.#fail('input', err, req, await meterNow(this.#deps.ledger, accountId, limits, rate));
      record(0, refused.error.status);
      return refused;
    }

    // A missing engine is the service's gap, not the call's: refused before the charge, so it costs nothing.
    if (tool.engines !== undefined && tool.engines.length > 0 && this.#deps.engines) {
      try {
        await this.#deps.engines.require(tool.engines);
      } catch (err) {
        const refused = this.#fail('run', err, req, await meterNow(this.#deps.ledger, accountId, limits, rate));
        record(0, refused.error.status);
        return refused;
      }
    }

    // A tool that keeps its answers (ToolCache): the same input from this account is answered
    // from the store, uncharged; the first call claims the entry and fills it when it succeeds.
    const cached = tool.cache ? await cacheLookup(this.#deps.accounts, this.#deps.ledger.holder, this.#deps.toolTimeoutMs, tool, accountId, input) : undefined;
    if (cached?.kind === 'hit') {
      record(0, 200);
      return { ok: true, result: cached.result, warnings: [], meter: await meterNow(this.#deps.ledger, accountId, limits, rate), replayed: false };
    }

    // From this process's credit lease without a promise when it covers the cost (nearly always).
    const charge = this.#deps.ledger.chargeFromLease(accountId, tool.credits, limits.monthlyCredits) ?? (await this.#deps.ledger.charge(accountId, tool.credits, limits.monthlyCredits));
    if (!charge.charged) {
      const refused = this.#fail('quota', quotaExhausted(tool, charge.remaining), req, { limits, rate, creditsRemaining: charge.remaining, charged: 0 });
      record(0, refused.error.status);
      return refused;
    }

    let outcome: Outcome;
    try {
      const warnings: string[] = [];
      const pooled = this.#runner.pooled(tool, input);
      const run = () => this.#runner.run(tool, input, req, accountId, warnings, upload, workDir, pooled);
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
    if (cached?.kind === 'claimed') await cacheSettle(this.#deps.accounts, this.#deps.ledger.holder, accountId, cached.key, outcome);
    const charged = outcome.meter?.charged ?? 0;
    if (charged > 0) metrics.chargeCredits(tool.operationId, charged);
    record(charged, outcome.ok ? 200 : outcome.error.status);
    return outcome;
  }

  #fail(stage: FailureStage, err: unknown, req: InvokeRequest, meter?: Meter): InvokeFailure {
    return failure(stage, toServiceError(err, req.log), meter);
  }
}
