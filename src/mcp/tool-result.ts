// The shape of every meta-tool's answer. A success is the structured result (matching the tool's
// outputSchema) and the same as text for clients that read only text. A failure (isError) is the
// JSON text alone: the SDK's client checks any structuredContent against the tool's outputSchema,
// failures included, and an error object is not the success shape, so a client that had listed
// the tools would throw instead of showing the agent why the call failed.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function result(structured: Record<string, unknown>, isError = false): CallToolResult {
  const text = JSON.stringify(structured);
  if (isError) return { content: [{ type: 'text', text }], isError: true };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return result({ status: 'error', error: code, message, ...extra }, true);
}

/** The characters of an answer's text blocks: at least its structured result's JSON, which the text repeats. */
export function textChars(answer: CallToolResult): number {
  let chars = 0;
  for (const block of answer.content) if (block.type === 'text') chars += block.text.length;
  return chars;
}
