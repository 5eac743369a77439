// The shape of every meta-tool's answer. A success is the structured result (matching the tool's
// outputSchema) and the same as text for clients that read only text. A failure (isError) is the
// JSON text alone: the SDK's client checks any structuredContent against the tool's outputSchema,
// failures included, and an error object is not the success shape, so a client that had listed
// the tools would throw instead of showing the agent why the call failed.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RESULT_SIZE_BOUND, type ResponseMode } from '../runs/response-mode.ts';

export function result(structured: Record<string, unknown>, isError = false): CallToolResult {
  const text = JSON.stringify(structured);
  if (isError) return { content: [{ type: 'text', text }], isError: true };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return result({ status: 'error', error: code, message, ...extra }, true);
}

/**
 * Whether an answer built with its result whole goes out as it is: not for dataRef, nor when its
 * text is over RESULT_SIZE_BOUND. The text repeats the result's JSON and more, so a text within
 * the bound means a result within it, and the result is not serialized a second time to measure
 * it (shapeResult, which the other answers go through, would send such a one as it is).
 */
export function sentWhole(answer: CallToolResult, mode: ResponseMode): boolean {
  if (mode === 'dataRef') return false;
  let chars = 0;
  for (const block of answer.content) if (block.type === 'text') chars += block.text.length;
  return chars <= RESULT_SIZE_BOUND;
}
