// The same call as the Playground just made, as a `curl` command and as SDK code
// (packages/sdk: one method per operationId, files as { file, fileName }). The key is always the
// shell's $UTS_API_KEY / process.env.UTS_API_KEY: the server never knows a key's secret (only its
// hash), so no snippet could hold it, and none pretends to.
import type { AnyTool } from '../core/define-tool.ts';

/** One word for the shell, single-quoted: nothing inside is expanded. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A GET tool's fields as REST reads them from the query string: text, as curl sends them. */
export function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface SnippetCall {
  tool: AnyTool;
  /** the tool's fields as the call used them (for a file tool: its options) */
  input: Record<string, unknown>;
  publicBaseUrl: string;
  /** a file tool's upload name */
  fileName?: string | undefined;
}

export function curlSnippet(call: SnippetCall): string {
  const { tool, input } = call;
  const url = `${call.publicBaseUrl}${tool.path}`;
  const key = `-H "X-Api-Key: $UTS_API_KEY"`;
  if (tool.upload) {
    // --form-string: an option's value is sent as text even if it starts with @ or <.
    const options = Object.entries(input).map(([name, value]) => ` \\\n  --form-string ${shellQuote(`${name}=${queryText(value)}`)}`);
    return `curl -sS -X POST ${shellQuote(url)} \\\n  ${key} \\\n  -F ${shellQuote(`${tool.upload.field}=@${call.fileName ?? 'input-file'}`)}${options.join('')}`;
  }
  if (tool.method === 'GET') {
    const fields = Object.entries(input).map(([name, value]) => ` \\\n  --data-urlencode ${shellQuote(`${name}=${queryText(value)}`)}`);
    return `curl -sS -G ${shellQuote(url)} \\\n  ${key}${fields.join('')}`;
  }
  return `curl -sS -X POST ${shellQuote(url)} \\\n  ${key} \\\n  -H 'Content-Type: application/json' \\\n  -d ${shellQuote(JSON.stringify(input))}`;
}

export function sdkSnippet(call: SnippetCall): string {
  const { tool, input } = call;
  const client = `import { ToolServiceClient } from '@tool-service/sdk';\n`;
  const setup = `const client = new ToolServiceClient({ apiKey: process.env.UTS_API_KEY, baseUrl: ${JSON.stringify(call.publicBaseUrl)} });\n`;
  let args: string;
  let imports = client;
  if (tool.upload) {
    const name = JSON.stringify(call.fileName ?? 'input-file');
    imports = `import { readFile } from 'node:fs/promises';\n${client}`;
    const options = Object.entries(input).map(([field, value]) => `, ${JSON.stringify(field)}: ${JSON.stringify(value)}`);
    args = `{ file: await readFile(${name}), fileName: ${name}${options.join('')} }`;
  } else {
    args = JSON.stringify(input, null, 2);
  }
  return `${imports}\n${setup}const answer = await client.${tool.operationId}(${args});\nconsole.log(answer);`;
}
