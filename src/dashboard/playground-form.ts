// The Playground's form, derived from a tool's input schema: the same zod schema the invoke path
// validates with, as JSON Schema (z.toJSONSchema with io 'input', as MCP's describe_tool shows it).
// A field per property, labelled, with its description as hint text; posted values are mapped back
// onto the tool's input and nothing else: the invoke path alone validates (a wrong value comes back
// as the API's own 400 naming the field).
import { z } from 'zod';
import type { AnyTool } from '../core/define-tool.ts';
import { html, type Html } from './html.ts';

type JsonSchema = Record<string, unknown>;

export type FieldKind = 'text' | 'select' | 'number' | 'checkbox' | 'boolean-select' | 'json';

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string | undefined;
  /** the schema's default, as it is prefilled */
  defaultValue: unknown;
  options: readonly string[];
  min: number | undefined;
  max: number | undefined;
  /** 'any' for a number, '1' for an integer */
  step: string;
  maxLength: number | undefined;
  unit: string | undefined;
}

/** What was posted per field, as the form shows it again: the text of each control. */
export type FormValues = Record<string, string>;

/** The field names in the form: prefixed, so a tool's property can never collide with _csrf, keyId, mode or raw. */
export const fieldName = (property: string): string => `in.${property}`;

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * The branch of an `anyOf` a person fills: file tools accept `true`/`"true"` (form fields are
 * text), numbers as numbers or text; the typed branch is the one to render.
 */
function preferred(schema: JsonSchema): JsonSchema {
  const branches = Array.isArray(schema['anyOf']) ? (schema['anyOf'] as JsonSchema[]) : undefined;
  if (!branches) return schema;
  const typed = branches.find((b) => b['type'] === 'boolean') ?? branches.find((b) => b['type'] === 'integer' || b['type'] === 'number') ?? branches.find((b) => b['type'] !== 'null');
  return typed ? { ...typed, description: schema['description'] ?? typed['description'], default: schema['default'] ?? typed['default'] } : schema;
}

function fieldOf(name: string, raw: JsonSchema, required: boolean): FormField {
  const schema = preferred(raw);
  const type = schema['type'];
  const defaultValue = schema['default'] ?? raw['default'];
  let kind: FieldKind = 'json';
  if (type === 'string') kind = Array.isArray(schema['enum']) ? 'select' : 'text';
  else if (type === 'number' || type === 'integer') kind = 'number';
  // A checkbox cannot say "leave it to the tool": an optional flag with no declared default is a
  // choice of three (not set, true, false), so that an unticked box never overrides a default
  // the tool only states in words (web/json-to-csv's header is true unless sent false).
  else if (type === 'boolean') kind = required || typeof defaultValue === 'boolean' ? 'checkbox' : 'boolean-select';
  const exclusiveMin = numberOf(schema['exclusiveMinimum']);
  return {
    name,
    kind,
    required,
    description: typeof schema['description'] === 'string' ? schema['description'] : undefined,
    defaultValue,
    options: kind === 'select' ? (schema['enum'] as unknown[]).map(String) : [],
    min: numberOf(schema['minimum']) ?? (type === 'integer' && exclusiveMin !== undefined ? exclusiveMin + 1 : undefined),
    max: numberOf(schema['maximum']),
    step: type === 'integer' ? '1' : 'any',
    maxLength: numberOf(schema['maxLength']),
    unit: typeof schema['unit'] === 'string' ? schema['unit'] : undefined,
  };
}

/** The tool's input as JSON Schema, as MCP's describe_tool gives it. */
export function inputSchemaOf(tool: AnyTool): JsonSchema {
  return z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** A field per property of the tool's input, in the schema's order. */
export function formFieldsOf(tool: AnyTool): FormField[] {
  const schema = inputSchemaOf(tool);
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  return Object.entries(properties).map(([name, property]) => fieldOf(name, property, required.has(name)));
}

/** The text a control starts with: what was posted, else the schema's default. */
function initial(field: FormField, values: FormValues | undefined): string {
  const posted = values?.[field.name];
  if (posted !== undefined) return posted;
  if (field.defaultValue === undefined) return '';
  if (field.kind === 'json') return JSON.stringify(field.defaultValue, null, 2);
  return String(field.defaultValue);
}

function hint(field: FormField, id: string): Html {
  const description = field.description === undefined || /[.!?]$/.test(field.description) ? field.description : `${field.description}.`;
  const parts = [description, field.unit ? `Unit: ${field.unit}.` : undefined, field.defaultValue !== undefined ? `Default: ${JSON.stringify(field.defaultValue)}.` : undefined];
  const text = parts.filter((p): p is string => p !== undefined && p !== '').join(' ');
  const extra = field.kind === 'json' ? ' JSON.' : '';
  return text === '' && extra === '' ? html`` : html`<p id="${id}" class="muted hint">${text}${extra}</p>`;
}

/** One labelled control; `invalid` marks the field the API's error names. */
export function renderField(field: FormField, values: FormValues | undefined, invalid: boolean): Html {
  const id = `field-${field.name}`;
  const hintId = `${id}-hint`;
  const hasHint = field.description !== undefined || field.unit !== undefined || field.defaultValue !== undefined || field.kind === 'json';
  const describedBy = hasHint ? html` aria-describedby="${hintId}"` : html``;
  const common = html`id="${id}" name="${fieldName(field.name)}"${field.required && field.kind !== 'checkbox' ? html` required` : ''}${describedBy}${invalid ? html` aria-invalid="true" aria-errormessage="run-error"` : ''}`;
  const label = html`<label for="${id}"${field.kind === 'checkbox' ? html` class="check"` : ''}>${field.kind === 'checkbox' ? '' : html`<code>${field.name}</code>`}${field.required ? html` <span class="required">(required)</span>` : ''}</label>`;
  const value = initial(field, values);
  switch (field.kind) {
    case 'checkbox':
      // The box sits inside its label, with the name beside it.
      return html`<label for="${id}" class="check"><input type="checkbox" ${common} value="true"${value === 'true' ? html` checked` : ''}> <code>${field.name}</code></label>
${hint(field, hintId)}`;
    case 'boolean-select':
    case 'select': {
      const choices = field.kind === 'select' ? field.options : ['true', 'false'];
      return html`${label}
<select ${common}>
${field.required ? '' : html`<option value=""${value === '' ? html` selected` : ''}>(not set: the tool's default)</option>`}
${choices.map((c) => html`<option value="${c}"${value === c ? html` selected` : ''}>${c}</option>`)}
</select>
${hint(field, hintId)}`;
    }
    case 'number':
      return html`${label}
<input type="number" ${common} step="${field.step}"${field.min !== undefined ? html` min="${field.min}"` : ''}${field.max !== undefined ? html` max="${field.max}"` : ''} value="${value}">
${hint(field, hintId)}`;
    case 'text':
      return html`${label}
<input type="text" ${common}${field.maxLength !== undefined ? html` maxlength="${field.maxLength}"` : ''} value="${value}">
${hint(field, hintId)}`;
    case 'json':
      return html`${label}
<textarea class="field" ${common} rows="4" spellcheck="false">${value}</textarea>
${hint(field, hintId)}`;
  }
}

/** What the form posted for each field, as text (a checkbox left unticked is ''). */
export function postedValues(fields: readonly FormField[], read: (name: string) => string | undefined): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const posted = read(fieldName(field.name));
    values[field.name] = field.kind === 'checkbox' ? (posted === 'true' ? 'true' : 'false') : (posted ?? '');
  }
  return values;
}

/** A form value the person wrote that is not JSON where JSON was asked for: the form's own 400, before any call. */
export class FormJsonError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/**
 * The tool's input from the form's text: an empty control is left out (the tool's default or the
 * API's "required" applies), a number is a number when it reads as one (else the text goes on,
 * for the API to refuse by name), a checkbox is true or false, a JSON control is parsed.
 */
export function inputFromValues(fields: readonly FormField[], values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const text = values[field.name] ?? '';
    if (field.kind === 'checkbox') {
      input[field.name] = text === 'true';
      continue;
    }
    if (text === '') continue;
    if (field.kind === 'number') {
      const n = Number(text);
      input[field.name] = text.trim() !== '' && Number.isFinite(n) ? n : text;
    } else if (field.kind === 'boolean-select') input[field.name] = text === 'true';
    else if (field.kind === 'json') {
      try {
        input[field.name] = JSON.parse(text) as unknown;
      } catch (error) {
        throw new FormJsonError(field.name, `${field.name} is not valid JSON: ${(error as Error).message}`);
      }
    } else input[field.name] = text;
  }
  return input;
}

/** The raw JSON alternative: the tool's fields as one JSON object, as a REST body carries them. */
export function inputFromRaw(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.trim() === '' ? '{}' : raw);
  } catch (error) {
    throw new FormJsonError('raw', `The raw JSON is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FormJsonError('raw', 'The raw JSON must be an object of the tool’s fields');
  return parsed as Record<string, unknown>;
}
