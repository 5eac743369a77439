// One error type for everything a caller can be told. `error` is the machine-readable code
// (the spec's envelope keeps `code` for the HTTP status), `message` is for humans, `detail`
// names the problem precisely, and `extra` carries structured fields such as the bad fields.
export interface FieldIssue {
  field: string;
  message: string;
  allowed?: readonly (string | number)[];
}

export interface ServiceErrorOptions {
  detail?: string;
  headers?: Record<string, string>;
  extra?: Record<string, unknown>;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly error: string;
  readonly detail: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(status: number, error: string, message: string, options: ServiceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ServiceError';
    this.status = status;
    this.error = error;
    this.detail = options.detail ?? message;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

/** 400 for input the tool cannot work with, naming the fields at fault. */
export function invalidInput(message: string, issues: FieldIssue[] = [], detail?: string): ServiceError {
  const described = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  return new ServiceError(400, 'validation_error', message, {
    detail: detail ?? (described || message),
    extra: issues.length > 0 ? { issues } : {},
  });
}

/** 422 for input that is well-formed but cannot be processed (a file the engine cannot read). */
export function unprocessable(message: string, detail?: string): ServiceError {
  return new ServiceError(422, 'unprocessable_input', message, detail === undefined ? {} : { detail });
}

/**
 * 422 for a document whose processing outgrew what one job may use (time, memory, nesting, size).
 * The input is at fault, not the service, so it is charged: holding an engine is never free.
 */
export function tooComplex(message: string, detail: string, options: Omit<ServiceErrorOptions, 'detail'> = {}): ServiceError {
  return new ServiceError(422, 'document_too_complex', message, { ...options, detail });
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}
