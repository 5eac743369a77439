// The shape of every meta-tool's answer: the structured result, and the same as text for clients
// that read only text. A failure is the same shape with isError and the error code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function result(structured: Record<string, unknown>, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return result({ status: 'error', error: code, message, ...extra }, true);
}
