import { z } from 'zod';
import { invalidInput, type FieldIssue } from './errors.ts';

/**
 * The one place where schema issues become messages a caller can act on: the field path and
 * what to change, in words ("is required", "must be a whole number", "must be at most 600
 * (months)"), never zod's internal vocabulary ("expected int, received number").
 *
 * A field declares its unit with zod metadata, `.meta({ unit: 'months' })`; range messages name it.
 */
export function toFieldIssues(error: z.ZodError, schema?: z.ZodType, raw?: unknown): FieldIssue[] {
  return error.issues.map((issue) => {
    const prefix = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const field = issue.keys.map((k) => (prefix ? `${prefix}.${k}` : k)).join(', ');
      return { field, message: 'not a field of this tool' };
    }
    const field = prefix || '(body)';
    if (issue.code === 'invalid_value' && Array.isArray(issue.values)) {
      const allowed = issue.values.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
      return { field, message: `must be one of: ${allowed.join(', ')}`, allowed };
    }
    return { field, message: describeIssue(issue, schema ? unitAt(schema, issue.path) : undefined, raw) };
  });
}

/** Parses `raw` with `schema` or throws a 400 ServiceError naming every bad field. */
export function validateInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  let parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // "UPPER" for the enum value "upper": taken when exactly one value matches whatever its case.
    const fixed = withEnumCaseMatched(raw, parsed.error);
    if (fixed !== undefined) parsed = schema.safeParse(fixed);
  }
  if (!parsed.success) {
    throw invalidInput('The request has invalid fields', toFieldIssues(parsed.error, schema, raw));
  }
  return parsed.data;
}

const TYPE_NAMES: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a JSON array',
  date: 'a date',
  bigint: 'a whole number',
};

function describeIssue(issue: z.core.$ZodIssue, unit: string | undefined, raw: unknown): string {
  const suffix = unit ? ` (${unit})` : '';
  switch (issue.code) {
    case 'invalid_type': {
      const received = valueAt(raw, issue.path);
      if (received === undefined && issue.path.length > 0) return 'is required';
      if (issue.expected === 'int') return `must be a whole number${suffix}`;
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `must be ${expected}, not ${describeValue(received)}`;
    }
    case 'too_big':
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${bound(issue.maximum, issue.origin, unit)}`;
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return 'must not be empty';
      if (issue.origin === 'array' && issue.minimum === 1) return 'must hold at least one item';
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${bound(issue.minimum, issue.origin, unit)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}${suffix}`;
    default:
      return issue.message;
  }
}

/** The limit with what it counts: characters for strings, items for arrays, the unit for numbers. */
function bound(limit: number | bigint, origin: string, unit: string | undefined): string {
  if (origin === 'string') return `${limit} characters`;
  if (origin === 'array' || origin === 'set') return `${limit} items`;
  if (origin === 'file') return `${limit} bytes`;
  return unit ? `${limit} (${unit})` : String(limit);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The `unit` declared on the schema node at `path`, looking through optional, default and the like. */
function unitAt(schema: z.ZodType, path: readonly PropertyKey[]): string | undefined {
  let node: z.ZodType | undefined = schema;
  let unit = metaUnit(node);
  for (const key of path) {
    node = child(unwrap(node), key);
    if (!node) return undefined;
    unit = metaUnit(node);
  }
  // The unit may sit on any wrapper layer of the leaf: `.meta({ unit }).optional()` or the other way round.
  let inner: z.ZodType = node;
  while (!unit) {
    const next = unwrapOnce(inner);
    if (!next) break;
    inner = next;
    unit = metaUnit(inner);
  }
  return unit;
}

function metaUnit(node: z.ZodType): string | undefined {
  const unit = z.globalRegistry.get(node)?.['unit'];
  return typeof unit === 'string' ? unit : undefined;
}

function unwrapOnce(node: z.ZodType): z.ZodType | undefined {
  if (node instanceof z.ZodOptional || node instanceof z.ZodNullable || node instanceof z.ZodDefault || node instanceof z.ZodPrefault || node instanceof z.ZodReadonly || node instanceof z.ZodCatch) {
    return node.unwrap() as z.ZodType;
  }
  if (node instanceof z.ZodPipe) return node.in as z.ZodType;
  return undefined;
}

function unwrap(node: z.ZodType): z.ZodType {
  let current = node;
  for (let next = unwrapOnce(current); next; next = unwrapOnce(current)) current = next;
  return current;
}

function child(node: z.ZodType, key: PropertyKey): z.ZodType | undefined {
  if (node instanceof z.ZodObject) return (node.shape as Record<PropertyKey, z.ZodType>)[key];
  if (node instanceof z.ZodArray && typeof key === 'number') return node.element as z.ZodType;
  return undefined;
}

/**
 * A copy of `raw` in which every string an enum refused is replaced by the one allowed value it
 * equals ignoring case and surrounding spaces; undefined when there is none (or two match: "A" and
 * "a" both allowed is ambiguous, and stays an error). Only the failure path pays for it.
 */
function withEnumCaseMatched(raw: unknown, error: z.ZodError): unknown {
  let copy: unknown;
  for (const issue of error.issues) {
    if (issue.code !== 'invalid_value' || !Array.isArray(issue.values) || issue.path.length === 0) continue;
    const given = valueAt(raw, issue.path);
    if (typeof given !== 'string') continue;
    const wanted = given.trim().toLowerCase();
    const matches = issue.values.filter((v): v is string => typeof v === 'string' && v.toLowerCase() === wanted);
    const [only] = matches;
    if (matches.length !== 1 || only === undefined) continue;
    copy ??= structuredClone(raw);
    setAt(copy, issue.path, only);
  }
  return copy;
}

function setAt(value: unknown, path: readonly PropertyKey[], replacement: string): void {
  let at = value as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<PropertyKey, unknown>;
  const last = path[path.length - 1];
  if (last !== undefined) at[last] = replacement;
}
