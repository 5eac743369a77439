// client.mcp: the service's MCP server from code. `config()` is the mcpServers entry an agent's
// host reads; every meta-tool is a method by its MCP name (generated from what tools/list
// answers, so it cannot drift); `verifyUntilPass` is the host loop of rule 7. The official MCP
// SDK is loaded with `await import()` on the first call only, so a REST-only user never loads it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorFromBody, isRecord, APIConnectionError, ToolServiceError } from './errors.ts';
import { MCP_TOOL_NAMES, type McpToolInputs, type McpToolName } from './generated/operations.ts';
import { verifyUntilPass, type McpAnswer, type VerifyUntilPassOptions, type VerifyUntilPassResult } from './loop.ts';

export type { CallMcpTool, LoopFix, LoopState, McpAnswer, VerifyRound, VerifyUntilPassOptions, VerifyUntilPassResult } from './loop.ts';

export interface McpContext {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** time without an answer or a progress notification before the call fails (default 60 s; jobs send progress per step) */
  timeoutMs?: number;
}

export interface McpServerConfig {
  mcpServers: Record<string, { url: string; headers: { 'X-Api-Key': string } }>;
}

/** A tool whose every field is optional (recall_context, list_skills...) may be called with no input. */
type McpToolMethods = {
  [K in McpToolName]: {} extends McpToolInputs[K]
    ? (input?: McpToolInputs[K], options?: McpCallOptions) => Promise<McpAnswer>
    : (input: McpToolInputs[K], options?: McpCallOptions) => Promise<McpAnswer>;
};

export type McpHelpers = McpToolMethods & {
  /** The `mcpServers` entry for Cursor, VS Code-style and any client reading a `url` with headers. */
  config(options?: { name?: string }): McpServerConfig;
  /** Any tool by name, for one this SDK version does not know yet. */
  callTool(name: string, args: Record<string, unknown>, options?: McpCallOptions): Promise<McpAnswer>;
  /** Rule 7: apply loop.nextActions[0], verify with {runId}, until the server's gate passes or it stops the loop. */
  verifyUntilPass(options: VerifyUntilPassOptions): Promise<VerifyUntilPassResult>;
  /** Ends the MCP connection, if one was opened; the next call opens another. */
  close(): Promise<void>;
};

const SDK_NAME = '@tool-service/sdk';
/** packages/sdk/package.json's version (test/mcp.test.ts holds them equal): the clientInfo the server logs. */
const SDK_VERSION = '0.1.2';

/** The MCP SDK's HTTP error class, known once the SDK is loaded (it sets no `name` of its own). */
let httpErrorClass: (abstract new (...args: never[]) => Error) | undefined;

export function createMcpHelpers(ctx: McpContext): McpHelpers {
  const baseUrl = ctx.baseUrl.replace(/\/+$/, '');
  let connecting: Promise<Client> | undefined;

  // One Client and transport for every call. The endpoint is stateless, so a failed connect is
  // simply forgotten and the next call connects again.
  const connect = (): Promise<Client> => {
    connecting ??= open().catch((error: unknown) => {
      connecting = undefined;
      throw mapThrown(error);
    });
    return connecting;
  };
  const open = async (): Promise<Client> => {
    const [{ Client }, { StreamableHTTPClientTransport, StreamableHTTPError }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    httpErrorClass = StreamableHTTPError;
    const client = new Client({ name: SDK_NAME, version: SDK_VERSION });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { 'X-Api-Key': ctx.apiKey } },
      fetch: ctx.fetch,
    });
    await client.connect(transport);
    return client;
  };

  const callTool = async (name: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<McpAnswer> => {
    const client = await connect();
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        resetTimeoutOnProgress: true,
        // A job reports progress per step; asking for it keeps a long job within the timeout.
        onprogress: () => {},
      });
    } catch (error) {
      throw mapThrown(error);
    }
    const answer = answerOf(result);
    if (result.isError === true) throw errorFromBody(0, answer);
    return answer;
  };

  const helpers: Record<string, unknown> = {
    config(options: { name?: string } = {}): McpServerConfig {
      return { mcpServers: { [options.name ?? 'tool-service']: { url: `${baseUrl}/mcp`, headers: { 'X-Api-Key': ctx.apiKey } } } };
    },
    callTool,
    verifyUntilPass(options: VerifyUntilPassOptions): Promise<VerifyUntilPassResult> {
      return verifyUntilPass((name, args, signal) => callTool(name, args, signal ? { signal } : {}), options);
    },
    async close(): Promise<void> {
      const pending = connecting;
      connecting = undefined;
      if (pending === undefined) return;
      const client = await pending.catch(() => undefined);
      await client?.close();
    },
  };
  for (const name of MCP_TOOL_NAMES) {
    helpers[name] = (input: Record<string, unknown> = {}, options?: McpCallOptions) => callTool(name, input, options);
  }
  return helpers as McpHelpers;
}

/** A tool result's answer: the structured result of a success, the JSON text of a failure. */
function answerOf(result: Record<string, unknown>): McpAnswer {
  if (isRecord(result['structuredContent'])) return result['structuredContent'] as McpAnswer;
  const content = Array.isArray(result['content']) ? (result['content'] as unknown[]) : [];
  const text = content
    .filter((c): c is { type: 'text'; text: string } => isRecord(c) && c['type'] === 'text' && typeof c['text'] === 'string')
    .map((c) => c.text)
    .join('');
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed as McpAnswer;
  } catch {
    // not JSON: a tool answered prose (an SDK-level error such as an unknown tool)
  }
  return result['isError'] === true ? { status: 'error', error: 'tool_error', message: text } : { text };
}

/**
 * What the MCP client threw, as the SDK's error classes: an HTTP refusal of /mcp (a bad key is a
 * 401 JSON envelope) by its status and body, a network failure as a connection error.
 */
function mapThrown(error: unknown): unknown {
  if (error instanceof ToolServiceError) return error;
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (httpErrorClass !== undefined && error instanceof httpErrorClass && typeof code === 'number' && code >= 400) {
    const text = error.message.replace(/^[^{]*/, '');
    let body: unknown = error.message;
    try {
      body = JSON.parse(text);
    } catch {
      // the body was not JSON; keep the message
    }
    return errorFromBody(code, body);
  }
  if (error.name === 'AbortError' || error.name === 'McpError') return error;
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return new APIConnectionError({ message: `Connection error: ${baseOf(error)}`, cause: error });
  return error;
}

function baseOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}
