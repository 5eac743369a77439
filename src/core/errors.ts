// One error type for everything a caller can be told. `error` is the machine-readable code
// (the spec's envelope keeps `code` for the HTTP status), `message` is for humans, `detail`
// names the problem precisely, and `extra` carries structured fields such as the bad fields.
import { tmpdir } from 'node:os';
import { basename } from 'node:path';

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
    // What a caller reads never says where on disk: an engine's stderr or a file system error
    // quoting a work folder is cut to the file's own name (the log keeps the cause whole).
    this.message = withoutMachinePaths(message);
    this.detail = withoutMachinePaths(options.detail ?? message);
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

/**
 * Where the machine keeps private and per-job things: the temp folders, /proc and /sys, the
 * runtime and home folders, the OS temp folder and the install folder, plus the data folders the
 * service registers (DATA_DIR) at start. Paths elsewhere (/etc/passwd as an archive entry's name)
 * are what a caller's own input said, and are named as such.
 */
const MACHINE_ROOTS = new Set(['/tmp', '/var/tmp', '/dev/shm', '/proc', '/sys', '/run', '/home', '/root']);
let rootPattern: RegExp | null = null;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Registers a folder the service keeps private files in (DATA_DIR): paths under it never reach a caller. */
export function registerPrivateRoot(path: string): void {
  const trimmed = path.replace(/\/+$/, '');
  if (!trimmed.startsWith('/') || MACHINE_ROOTS.has(trimmed)) return;
  MACHINE_ROOTS.add(trimmed);
  rootPattern = null;
}

function machinePathPattern(): RegExp {
  if (rootPattern === null) {
    const roots = new Set([...MACHINE_ROOTS, tmpdir().replace(/\/+$/, ''), process.cwd().replace(/\/+$/, '')].filter((r) => r.length > 1));
    // Longest first, so DATA_DIR wins over its own parent. Not inside a URL (file:///etc, http://h/tmp).
    const alternatives = [...roots].sort((a, b) => b.length - a.length).map(escape).join('|');
    rootPattern = new RegExp(`(?<![\\w:/.~-])(?:${alternatives})(?=/|$|[^\\w.-])(?:/[\\w.@%+=~-]*)*`, 'g');
  }
  return rootPattern;
}

/** Text with every absolute path of the machine replaced by its last name ("input.pdf"), or "a private folder". */
export function withoutMachinePaths(text: string): string {
  if (!text.includes('/')) return text;
  return text.replace(machinePathPattern(), (path) => {
    const name = basename(path.replace(/\/+$/, ''));
    return path.split('/').filter(Boolean).length >= 2 && name !== '' ? name : 'a private folder';
  });
}
