// What content a caller's input carries and which field of a tool takes it: input.text goes to a
// tool's `text` field, input.code to a code field or else a plain `text` field (a text tool counts,
// searches or encodes any text, code included), and a page sent as input.code is read as HTML.
// Pure, and the tool's JSON Schema is worked out once per tool.
import { z } from 'zod';
import type { AnyTool } from '../../core/define-tool.ts';

export interface ToolFields {
  fields: ReadonlySet<string>;
  required: string[];
}

// The JSON Schema of a tool's input is worked out once per tool (the catalog is read-only).
const toolFieldCache = new WeakMap<AnyTool, ToolFields>();

export function toolFields(tool: AnyTool): ToolFields {
  let facts = toolFieldCache.get(tool);
  if (facts === undefined) {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
    facts = { fields: new Set(Object.keys(schema.properties ?? {})), required: schema.required ?? [] };
    toolFieldCache.set(tool, facts);
  }
  return facts;
}

/** Fields that hold source code, in the order a tool's field is picked for input.code. */
const CODE_FIELDS = ['code', 'source', 'css', 'js', 'javascript', 'json', 'html'] as const;

/**
 * The field of a tool that takes the caller's input.text or input.code: a field of that name; for
 * code, a code field or else a plain `text` field (a text tool counts, searches or encodes any
 * text, code included). Undefined when the tool takes no such content.
 */
export function contentFieldOf(tool: AnyTool, key: 'text' | 'code'): string | undefined {
  const { fields } = toolFields(tool);
  if (fields.has(key)) return key;
  if (key === 'code') return CODE_FIELDS.find((f) => fields.has(f)) ?? (fields.has('text') ? 'text' : undefined);
  return undefined;
}

/** Whether a code snippet is an HTML page (it opens with a doctype, html, head or body tag), which the HTML analyzers can read. */
export function isHtmlMarkup(code: string): boolean {
  // Document-level tags only: JSX or a template with a <div> is code, not a page to audit.
  return /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(code);
}

/** The content keys (text, code) the caller sent, non-empty. */
export function sentContent(given: Record<string, unknown>): ('text' | 'code')[] {
  return (['text', 'code'] as const).filter((k) => typeof given[k] === 'string' && (given[k] as string).trim() !== '');
}
