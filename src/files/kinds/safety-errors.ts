// The 422 answers of the safety checks, shared by every container's check: each refusal has its
// own code and a detail naming the part at fault.
import { ServiceError } from '../../core/errors.ts';

export type SafetyErrorCode = 'document_bomb' | 'unsafe_document' | 'encrypted_document' | 'corrupt_document';

function fail(code: SafetyErrorCode, message: string, detail: string): ServiceError {
  return new ServiceError(422, code, message, { detail });
}

export function encrypted(detail: string): ServiceError {
  return fail('encrypted_document', 'The document is password-protected: remove the password and upload it again', detail);
}

export function bomb(detail: string): ServiceError {
  return fail('document_bomb', 'The document expands to far more data than a real document holds', detail);
}

/** `noun` names the file: "Word document", "PDF" (the detected kind's noun). */
export function corrupt(noun: string, detail: string): ServiceError {
  return fail('corrupt_document', `The ${noun} is damaged or incomplete (was the upload cut short?)`, detail);
}

export function unsafe(detail: string): ServiceError {
  return fail('unsafe_document', 'The document contains constructs that are not allowed', detail);
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} bytes`;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
