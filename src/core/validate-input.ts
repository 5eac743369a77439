import type { z } from 'zod';
import { invalidInput, type FieldIssue } from './errors.ts';

/** Turns zod issues into field issues a caller can act on: the field path and, for enums, the allowed values. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    const prefix = issue.path.map(String).join('.');
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => (prefix ? `${prefix}.${k}` : k)).join(', ') : '';
    const field = unknownKeys || prefix || '(body)';
    const fieldIssue: FieldIssue = { field, message: unknownKeys ? 'not a field of this tool' : issue.message };
    if (issue.code === 'invalid_value' && Array.isArray(issue.values)) {
      fieldIssue.allowed = issue.values.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
      fieldIssue.message = `must be one of: ${fieldIssue.allowed.join(', ')}`;
    }
    return fieldIssue;
  });
}

/** Parses `raw` with `schema` or throws a 400 ServiceError naming every bad field. */
export function validateInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw invalidInput('The request has invalid fields', toFieldIssues(parsed.error));
  }
  return parsed.data;
}
