// A tool result's answer as an agent reads it: the structured result of a success, or the JSON
// text of a failure (failures carry text only: the SDK client checks any structuredContent against
// the tool's output schema, and an error object is not the success shape; see src/mcp/tool-result.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = Record<string, any>;

export function answerOf(answer: object): Answer {
  const result = answer as { structuredContent?: unknown; content?: unknown };
  if (result.structuredContent !== undefined) return result.structuredContent as Answer;
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text;
  if (text === undefined) throw new Error('the tool result has neither structuredContent nor text');
  return JSON.parse(text) as Answer;
}
