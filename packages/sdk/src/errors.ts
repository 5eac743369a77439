// The SDK's errors: one class per kind of failure, read from the service's error envelope
// (`{ status: false, code, message, detail, error, requestId, ... }`), from convertors/to-jpg's
// shorter body (`{ status: <HTTP status>, message }`) or from an MCP tool's isError answer
// (`{ status: 'error', error, message, ... }`), so a caller catches the same class whichever
// surface failed.

export interface ToolServiceErrorInit {
  status?: number | undefined;
  code: string;
  message: string;
  detail?: string | undefined;
  requestId?: string | undefined;
  retryAfterSeconds?: number | undefined;
  body?: unknown;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * Every failure the SDK throws. `status` is the HTTP status (undefined when no response came),
 * `code` the envelope's machine code (`error`), `body` the whole error body as answered.
 */
export class ToolServiceError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly detail: string;
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly body: unknown;
  readonly headers: Headers | undefined;

  constructor(init: ToolServiceErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail ?? '';
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.body = init.body;
    this.headers = init.headers;
  }
}

/** 401: no key, an unknown key or a revoked one. */
export class AuthenticationError extends ToolServiceError {}
/** 403: the account, plan or key may not call this (tool_not_allowed, plan_forbidden, ...). */
export class PermissionDeniedError extends ToolServiceError {}
/** 404: no such route, file, run or feature. */
export class NotFoundError extends ToolServiceError {}
/** 409: an Idempotency-Key reused with another body (idempotency_in_progress is retried first). */
export class ConflictError extends ToolServiceError {}
/** 410: a download link past its expiry, a file past retention, a sunset feature. */
export class GoneError extends ToolServiceError {}
/** 400 or 422: input the tool refuses; `issues` lists the bad fields when the service named them. */
export class ValidationError extends ToolServiceError {
  get issues(): unknown[] {
    const issues = isRecord(this.body) ? this.body['issues'] : undefined;
    return Array.isArray(issues) ? issues : [];
  }
}
/** 429 rate_limited (and a busy engine queue): wait `retryAfterSeconds`. Retried by the client first. */
export class RateLimitError extends ToolServiceError {}
/** 429 quota_exhausted: the monthly credits are used up until `resetAt` (ISO time). Never retried. */
export class QuotaExceededError extends ToolServiceError {
  readonly resetAt: string | undefined;
  constructor(init: ToolServiceErrorInit & { resetAt?: string | undefined }) {
    super(init);
    this.resetAt = init.resetAt;
  }
}
/** 5xx: the service failed (refunded). Retried by the client first. */
export class InternalServerError extends ToolServiceError {}
/** No response: the connection was refused, reset or dropped. */
export class APIConnectionError extends ToolServiceError {
  constructor(init: Partial<ToolServiceErrorInit> = {}) {
    super({ code: 'connection_error', message: 'Connection error', ...init });
  }
}
/** No response within `timeoutMs` (each attempt has its own). */
export class APITimeoutError extends APIConnectionError {
  constructor(init: Partial<ToolServiceErrorInit> = {}) {
    super({ code: 'timeout', message: 'Request timed out', ...init });
  }
}
/** The caller's AbortSignal fired; `cause` is the signal's reason. */
export class APIUserAbortError extends ToolServiceError {
  constructor(init: Partial<ToolServiceErrorInit> = {}) {
    super({ code: 'aborted', message: 'Request was aborted', ...init });
  }
}

/**
 * The HTTP status a machine code stands for, for bodies that name a code but no status (an MCP
 * tool's isError answer). Codes not listed are taken as a failure of the service (500).
 */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  missing_api_key: 401,
  unauthorized: 401,
  invalid_api_key: 401,
  api_key_revoked: 401,
  tool_not_allowed: 403,
  plan_forbidden: 403,
  key_scope_exceeded: 403,
  email_not_verified: 403,
  account_inactive: 403,
  invalid_signature: 403,
  not_found: 404,
  unknown_tool: 404,
  job_not_found: 404,
  run_not_found: 404,
  check_not_found: 404,
  feature_not_found: 404,
  pattern_not_found: 404,
  file_not_found: 404,
  link_expired: 410,
  file_gone: 410,
  validation_error: 400,
  invalid_json: 400,
  invalid_body: 400,
  bad_baseline: 400,
  file_required: 400,
  duplicate_check_id: 400,
  idempotency_key_reused: 409,
  idempotency_in_progress: 409,
  rate_limited: 429,
  quota_exhausted: 429,
  too_many_jobs: 429,
};

/**
 * The error a failed response stands for. `status` is the HTTP status; pass 0 when there is none
 * (an MCP isError result): the body's own numeric `status` (to-jpg's short body) or `code` (the
 * envelope) is taken then, else the code's status from STATUS_BY_CODE, else 500.
 */
export function errorFromBody(status: number, body: unknown, headers: Headers = new Headers()): ToolServiceError {
  const fields = isRecord(body) ? body : {};
  const httpStatus = validStatus(status) ?? validStatus(fields['status']) ?? validStatus(fields['code']) ?? statusOfCode(fields['error']);
  const code = stringField(fields, 'error') ?? defaultCode(httpStatus);
  const message = stringField(fields, 'message') ?? (typeof body === 'string' && body.length > 0 ? body.slice(0, 500) : `The service answered ${httpStatus}`);
  const init: ToolServiceErrorInit = {
    status: httpStatus,
    code,
    message,
    detail: stringField(fields, 'detail'),
    requestId: stringField(fields, 'requestId') ?? headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: numberField(fields, 'retryAfterSeconds') ?? retryAfterSeconds(headers),
    body,
    headers,
  };
  switch (httpStatus) {
    case 400:
    case 422:
      return new ValidationError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 410:
      return new GoneError(init);
    case 429:
      return code === 'quota_exhausted' ? new QuotaExceededError({ ...init, resetAt: stringField(fields, 'resetAt') }) : new RateLimitError(init);
  }
  return httpStatus >= 500 ? new InternalServerError(init) : new ToolServiceError(init);
}

/** Retry-After as seconds from now: a number of seconds or an HTTP date (RFC 9110). */
export function retryAfterSeconds(headers: Headers, nowMs = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

function statusOfCode(code: unknown): number {
  return typeof code === 'string' ? (STATUS_BY_CODE[code] ?? 500) : 500;
}

/** A code for a body that names none (to-jpg's short body): the service's usual code for that status. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'validation_error',
  401: 'invalid_api_key',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_input',
  429: 'rate_limited',
};

function defaultCode(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : `http_${status}`);
}

function validStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599 ? value : undefined;
}

function stringField(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function numberField(fields: Record<string, unknown>, name: string): number | undefined {
  const value = fields[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
