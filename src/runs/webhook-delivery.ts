// Delivers webhook events: a signed JSON POST to each of the account's webhooks subscribed to the
// event's type, through the egress-safe fetcher (which checks the address again at every attempt:
// DNS may have moved since registration), in the account's fetch slots. emit() answers at once
// and never throws, so a failing, slow or refused webhook can neither delay nor fail the job that
// finished. Failed attempts are retried with exponential backoff a bounded number of times; at
// most `maxInFlight` deliveries run at once and at most `maxQueued` wait (the oldest waiting one
// is dropped, with a log line, when more arrive). Shutdown abandons what is queued or in flight:
// webhooks are best effort, as the spec says.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { EgressFetcher } from '../analysis/fetch-supervisor.ts';
import { isServiceError } from '../core/errors.ts';
import { webhookHeaders } from './webhook-signature.ts';
import { webhookNotFound, type DeliveryOutcome, type WebhookEventType, type WebhookStore, type WebhookTarget } from './webhook-store.ts';

/** What a finished job reports (`mcp.job.finished`). Only the account's own run: no account or key ids. */
export interface JobFinishedData {
  runId: string;
  /** what ran: invoke_tool, or a job: solve_task, run_playbook, run_workflow, verify_task */
  kind: string;
  /** the operation a tool run invoked */
  operationId?: string | undefined;
  /** a job's playbook (run_playbook, run_workflow, or the playbook solve_task / verify_task routed to) */
  skillId?: string | undefined;
  /** the one catalog operation a solve_task / verify_task goal was routed to */
  toolOperationId?: string | undefined;
  /** the goal in the caller's words (solve_task, verify_task), at most 500 characters */
  goal?: string | undefined;
  /** how the job ended (the run's status; never 'accepted') */
  status: 'completed' | 'partial' | 'error';
  /** the routing outcome of the result, where the job has one */
  resultStatus?: string | undefined;
  startedAt: string;
  finishedAt: string;
  /** credits the job charged */
  credits: number;
}

export interface WebhookEvent<T = unknown> {
  /** the event id: the `webhook-id` header too, the same on every retry (receivers de-duplicate on it) */
  id: string;
  type: string;
  createdAt: string;
  data: T;
}

/** One attempt's outcome, as emitted on the 'delivery' event and answered by sendTest(). */
export interface DeliveryReport {
  webhookId: string;
  eventId: string;
  type: string;
  attempt: number;
  /** delivered: a 2xx; retrying: another attempt is scheduled; failed: no attempt left (or shut down) */
  outcome: DeliveryOutcome;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookLog {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  fetcher: EgressFetcher;
  log: WebhookLog;
  /** attempts per event and webhook (default 5) */
  maxAttempts?: number;
  /** the wait before the second attempt; each later wait is 4 times the one before (default 1 s: 1, 4, 16, 64 s) */
  baseDelayMs?: number;
  /** one attempt's whole time (default 10 s) */
  timeoutMs?: number;
  /** the receiver's answer body is read up to this; a longer one fails the attempt (default 64 KB) */
  maxResponseBytes?: number;
  /** deliveries running at once (default 4) */
  maxInFlight?: number;
  /** deliveries waiting, scheduled retries included (default 1000) */
  maxQueued?: number;
}

interface Job {
  target: WebhookTarget;
  eventId: string;
  type: string;
  body: string;
  attempt: number;
}

const USER_AGENT = 'tool-service-webhooks/1.0';

/** Reads only the fields of the payload, so whatever else a run object carries never leaves. */
function jobFinishedPayload(data: JobFinishedData): JobFinishedData {
  return {
    runId: data.runId,
    kind: data.kind,
    ...(data.operationId === undefined ? {} : { operationId: data.operationId }),
    ...(data.skillId === undefined ? {} : { skillId: data.skillId }),
    ...(data.toolOperationId === undefined ? {} : { toolOperationId: data.toolOperationId }),
    ...(data.goal === undefined ? {} : { goal: data.goal }),
    status: data.status,
    ...(data.resultStatus === undefined ? {} : { resultStatus: data.resultStatus }),
    startedAt: data.startedAt,
    finishedAt: data.finishedAt,
    credits: data.credits,
  };
}

export class WebhookDispatcher {
  readonly store: WebhookStore;
  /** 'delivery' after every attempt of a queued delivery, once its outcome is recorded (tests wait on it) */
  readonly events = new EventEmitter<{ delivery: [DeliveryReport] }>();
  readonly #fetcher: EgressFetcher;
  readonly #log: WebhookLog;
  readonly #options: Required<Omit<WebhookDispatcherOptions, 'store' | 'fetcher' | 'log'>>;
  readonly #queue: Job[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #abort = new AbortController();
  #inFlight = 0;
  #closed = false;

  constructor(options: WebhookDispatcherOptions) {
    this.store = options.store;
    this.#fetcher = options.fetcher;
    this.#log = options.log;
    this.#options = {
      maxAttempts: options.maxAttempts ?? 5,
      baseDelayMs: options.baseDelayMs ?? 1000,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024,
      maxInFlight: options.maxInFlight ?? 4,
      maxQueued: options.maxQueued ?? 1000,
    };
  }

  /**
   * Announces that a job finished: queues one delivery per webhook of the account subscribed to
   * the type, and answers the event id at once. Never throws and never waits for a receiver.
   */
  emit(accountId: string, input: { type: WebhookEventType; data: JobFinishedData }): string {
    const event: WebhookEvent<JobFinishedData> = { id: randomUUID(), type: input.type, createdAt: new Date().toISOString(), data: jobFinishedPayload(input.data) };
    if (this.#closed) return event.id;
    let body: string;
    try {
      body = JSON.stringify(event);
    } catch (err) {
      this.#log.warn({ err, eventId: event.id }, 'webhook event could not be serialised; not delivered');
      return event.id;
    }
    this.store.targets(accountId, input.type).then(
      (targets) => {
        for (const target of targets) this.#enqueue({ target, eventId: event.id, type: event.type, body, attempt: 1 });
      },
      (err: unknown) => this.#log.warn({ err, eventId: event.id }, 'webhook targets could not be read; event not delivered'),
    );
    return event.id;
  }

  /** Sends a signed `webhook.test` event to one webhook of the account now, once, and answers how it went. */
  async sendTest(accountId: string, webhookId: string): Promise<DeliveryReport> {
    const target = await this.store.target(accountId, webhookId);
    if (target === null) throw webhookNotFound(webhookId);
    const event: WebhookEvent = {
      id: randomUUID(),
      type: 'webhook.test',
      createdAt: new Date().toISOString(),
      data: { webhookId, message: 'A test event sent on request; it is signed like every delivery' },
    };
    const report = await this.#attempt({ target, eventId: event.id, type: event.type, body: JSON.stringify(event), attempt: 1 }, 1);
    await this.#record(target.id, report);
    return report;
  }

  /** Deliveries queued, scheduled for a retry and running (for status pages and tests). */
  pending(): { queued: number; scheduled: number; inFlight: number } {
    return { queued: this.#queue.length, scheduled: this.#timers.size, inFlight: this.#inFlight };
  }

  /** Abandons every queued, scheduled and running delivery (shutdown). */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.length = 0;
    this.#abort.abort(new Error('the service is shutting down'));
  }

  #enqueue(job: Job): void {
    if (this.#closed) return;
    if (this.#queue.length + this.#timers.size >= this.#options.maxQueued) {
      // The newest events matter most to a receiver that is catching up: the oldest waiting goes.
      const dropped = this.#queue.shift() ?? job;
      this.#log.warn({ webhookId: dropped.target.id, eventId: dropped.eventId, attempt: dropped.attempt, limit: this.#options.maxQueued }, 'webhook queue full: dropped the oldest waiting delivery');
      if (dropped === job) return;
    }
    this.#queue.push(job);
    this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight < this.#options.maxInFlight) {
      const job = this.#queue.shift();
      if (job === undefined) return;
      this.#inFlight++;
      this.#deliver(job)
        .catch((err: unknown) => this.#log.warn({ err, webhookId: job.target.id, eventId: job.eventId }, 'webhook delivery failed unexpectedly'))
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  async #deliver(job: Job): Promise<void> {
    // A retry re-reads the webhook: it may have been deleted since the last attempt.
    const target = job.attempt === 1 ? job.target : await this.store.target(job.target.accountId, job.target.id);
    if (target === null || this.#closed) return;
    const report = await this.#attempt({ ...job, target }, this.#options.maxAttempts);
    if (this.#closed) return;
    await this.#record(target.id, report);
    if (report.outcome === 'retrying') {
      const delay = this.#options.baseDelayMs * 4 ** (job.attempt - 1);
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#enqueue({ ...job, target, attempt: job.attempt + 1 });
      }, delay);
      // A pending retry does not keep the process alive.
      timer.unref();
      this.#timers.add(timer);
    }
    this.events.emit('delivery', report);
  }

  /** One signed POST; a 2xx is delivered, anything else (status, refusal, timeout) a failed attempt. */
  async #attempt(job: Job, maxAttempts: number): Promise<DeliveryReport> {
    const { target } = job;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const facts = await this.#fetcher.fetch(target.url, {
        account: target.accountId,
        method: 'POST',
        body: { data: job.body, contentType: 'application/json' },
        // Signed per attempt: the timestamp is the attempt's, so a receiver's freshness check holds on retries.
        headers: { ...webhookHeaders(target.secret, job.eventId, Math.floor(Date.now() / 1000), job.body), 'user-agent': USER_AGENT, accept: '*/*' },
        limits: { totalTimeoutMs: this.#options.timeoutMs, maxBytes: this.#options.maxResponseBytes, maxRedirects: 0 },
        signal: this.#abort.signal,
      });
      statusCode = facts.status;
      if (statusCode < 200 || statusCode > 299) error = `the receiver answered HTTP ${statusCode}`;
    } catch (err) {
      error = isServiceError(err) ? `${err.error}: ${err.message}` : err instanceof Error ? err.message : String(err);
    }
    const retry = error !== null && job.attempt < maxAttempts && !this.#closed;
    return {
      webhookId: target.id,
      eventId: job.eventId,
      type: job.type,
      attempt: job.attempt,
      outcome: error === null ? 'delivered' : retry ? 'retrying' : 'failed',
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error: error === null ? null : error.slice(0, 500),
    };
  }

  async #record(webhookId: string, report: DeliveryReport): Promise<void> {
    try {
      await this.store.recordAttempt(webhookId, {
        eventId: report.eventId,
        type: report.type,
        attempt: report.attempt,
        outcome: report.outcome,
        statusCode: report.statusCode,
        error: report.error,
        durationMs: report.durationMs,
        at: new Date().toISOString(),
      });
    } catch (err) {
      this.#log.warn({ err, webhookId }, 'webhook delivery outcome could not be recorded');
    }
  }
}
