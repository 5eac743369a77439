import { pino } from 'pino';
import type { AnyTool, ToolContext } from '../../src/core/define-tool.ts';
import { validateInput } from '../../src/core/validate-input.ts';

/** Runs a tool exactly as the invoke path does after authorization: validate the raw input, then run. */
export async function runTool(tool: AnyTool, raw: unknown): Promise<{ result: unknown; warnings: string[] }> {
  const input = validateInput(tool.input, raw);
  const warnings: string[] = [];
  const ctx: ToolContext = {
    requestId: 'test',
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    warn: (m) => warnings.push(m),
  };
  const result = await tool.run(input, ctx);
  return { result: tool.output.parse(result), warnings };
}
