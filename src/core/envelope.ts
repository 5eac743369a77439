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
