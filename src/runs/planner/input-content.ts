// What content a caller's input carries and which field of a tool takes it: input.text goes to a
// tool's `text` field, input.code to a code field or else a plain `text` field (a text tool counts,
// searches or encodes any text, code included), and a page sent as input.code is read as HTML.
// What the goal itself gives a tool: its URLs go to the tool's URL fields (`url`, or a
// `somethingUrl` string such as video-insight's `videoUrl`), and its words, less those URLs, to a
// field that takes a request in words (`prompt`): "summarise this video https://…" is both.
// Pure, and the tool's JSON Schema is worked out once per tool.
import { z } from 'zod';
import type { AnyTool } from '../../core/define-tool.ts';

export interface ToolFields {
  fields: ReadonlySet<string>;
  required: string[];
  /** string fields named `url` or `…Url`, in schema order: filled from the goal's URLs, in order */
  urlFields: string[];
  /** a string field that takes the caller's request in words (GOAL_TEXT_FIELDS), if any */
  goalTextField: string | undefined;
}

/** Fields whose value is what the caller asks, in words: the goal (less its URLs) fills them. */
const GOAL_TEXT_FIELDS = ['prompt'] as const;

// The JSON Schema of a tool's input is worked out once per tool (the catalog is read-only).
const toolFieldCache = new WeakMap<AnyTool, ToolFields>();

export function toolFields(tool: AnyTool): ToolFields {
  let facts = toolFieldCache.get(tool);
  if (facts === undefined) {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown }>; required?: string[] };
    const properties = Object.entries(schema.properties ?? {});
    const strings = properties.filter(([, p]) => p.type === 'string').map(([name]) => name);
    facts = {
      fields: new Set(properties.map(([name]) => name)),
      required: schema.required ?? [],
      urlFields: strings.filter((name) => name === 'url' || /^[a-z][A-Za-z0-9]*Url$/.test(name)),
      goalTextField: GOAL_TEXT_FIELDS.find((name) => strings.includes(name)),
    };
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

/**
 * The goal's words as a request for a tool's GOAL_TEXT_FIELDS field: the goal with the URLs taken
 * out (they fill the URL fields), spaces collapsed, a dangling ':' or dash dropped. Undefined when
 * nothing but URLs was written.
 */
export function goalRequest(rest: string): string | undefined {
  const words = rest.replace(/\s+/g, ' ').trim().replace(/\s*[:\-–—]+$/, '').trim();
  return /[\p{L}\p{N}]/u.test(words) ? words : undefined;
}

/** The content keys (text, code) the caller sent, non-empty. */
export function sentContent(given: Record<string, unknown>): ('text' | 'code')[] {
  return (['text', 'code'] as const).filter((k) => typeof given[k] === 'string' && (given[k] as string).trim() !== '');
}
