// The shape of every meta-tool's answer. A success is the structured result (matching the tool's
// outputSchema) and the same as text for clients that read only text. A failure (isError) is the
// JSON text alone: the SDK's client checks any structuredContent against the tool's outputSchema,
// failures included, and an error object is not the success shape, so a client that had listed
// the tools would throw instead of showing the agent why the call failed.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RESULT_SIZE_BOUND, type ResponseMode } from '../runs/response-mode.ts';

/** Each structured result's JSON, as its text block holds it (see responseJson). */
const serialized = new WeakMap<object, string>();

export function result(structured: Record<string, unknown>, isError = false): CallToolResult {
  const text = JSON.stringify(structured);
  if (isError) return { content: [{ type: 'text', text }], isError: true };
  serialized.set(structured, text);
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * The JSON of a JSON-RPC response, as JSON.stringify writes it. A success built by result()
 * carries its result twice, as text and as structured content, and the text already is the
 * structured content's JSON: that is written as it is rather than serialized again (a fifth of
 * invoke_tool's answer, more for the planner's tens of KB). Any other response is stringified.
 */
export function responseJson(response: { jsonrpc: '2.0'; id?: string | number | undefined; result?: unknown }): string {
  const text = textOfBuiltResult(response.result);
  const { id } = response;
  if (text === undefined || (typeof id !== 'string' && typeof id !== 'number') || Object.keys(response).join() !== 'result,jsonrpc,id') return JSON.stringify(response);
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The text of a result exactly as result() builds a success (the same objects, no other keys), or undefined. */
function textOfBuiltResult(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { content, structuredContent } = value as { content?: unknown; structuredContent?: unknown };
  if (typeof structuredContent !== 'object' || structuredContent === null || !Array.isArray(content) || content.length !== 1) return undefined;
  const text = serialized.get(structuredContent);
  const block = content[0] as { type?: unknown; text?: unknown } | undefined;
  if (text === undefined || block?.type !== 'text' || block.text !== text) return undefined;
  if (Object.keys(value).join() !== 'content,structuredContent' || Object.keys(block).join() !== 'type,text') return undefined;
  return text;
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
