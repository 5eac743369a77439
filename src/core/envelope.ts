import type { ServiceError } from './errors.ts';

export interface SuccessEnvelope<T = unknown> {
  status: true;
  code: number;
  message: string;
  result: T;
  warnings: string[];
  error: string;
}

export interface ErrorEnvelope {
  status: false;
  code: number;
  message: string;
  detail: string;
  error: string;
  [extra: string]: unknown;
}

export function successEnvelope<T>(result: T, options: { code?: number; message?: string; warnings?: string[] } = {}): SuccessEnvelope<T> {
  return { status: true, code: options.code ?? 200, message: options.message ?? 'OK', result, warnings: options.warnings ?? [], error: '' };
}

export function errorEnvelope(err: ServiceError, requestId?: string): ErrorEnvelope {
  return {
    status: false,
    code: err.status,
    message: err.message,
    detail: err.detail,
    error: err.error,
    ...err.extra,
    ...(requestId ? { requestId } : {}),
  };
}

/** The spec's shorter error body of convertors/to-jpg (a tool's errorBody 'status-message'): the HTTP status as an integer and the message. */
export interface StatusMessageBody {
  status: number;
  message: string;
}

export function statusMessageBody(err: ServiceError): StatusMessageBody {
  return { status: err.status, message: err.detail && err.detail !== err.message ? `${err.message}: ${err.detail}` : err.message };
}

/**
 * The spec's video-insight envelope (a tool's errorBody 'insight'): `result` the model's text,
 * `meta` what produced it, and `retryAfterSeconds` on every answer, 0 when there is nothing to
 * wait for. A failure keeps the error envelope's fields (detail, requestId and its extras) with
 * `result` empty.
 */
export interface InsightEnvelope {
  status: boolean;
  code: number;
  message: string;
  result: string;
  meta: Record<string, unknown>;
  error: string;
  retryAfterSeconds: number;
  [extra: string]: unknown;
}

export function insightSuccess(answer: unknown): InsightEnvelope {
  const { text, meta } = (answer ?? {}) as { text?: unknown; meta?: unknown };
  return { status: true, code: 200, message: 'OK', result: typeof text === 'string' ? text : '', meta: (meta ?? {}) as Record<string, unknown>, error: '', retryAfterSeconds: 0 };
}

export function insightFailure(err: ServiceError, requestId?: string): InsightEnvelope {
  const retry = err.extra['retryAfterSeconds'];
  return { ...errorEnvelope(err, requestId), result: '', meta: {}, retryAfterSeconds: typeof retry === 'number' ? retry : 0 };
}
