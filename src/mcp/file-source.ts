// A file for a file tool, as an MCP client can give one: its bytes as base64 in the message, an
// http(s) URL the service fetches through the egress-safe fetcher (so a private or metadata
// address is refused as everywhere else), or the fileId of a result an earlier call of the same
// account stored (a converted file converted again, without a round trip through the client).
// Each becomes core's FileSource; the invoke path reads it into the call's work folder once the
// call is admitted, and the file pipeline types and checks it like any upload.
import { z } from 'zod';
import { invalidInput } from '../core/errors.ts';
import type { FileSource } from '../core/file-sources.ts';

export const fileSourceSchema = z
  .object({
    base64: z.string().min(1).optional().describe('The file itself, base64-encoded (standard or URL-safe alphabet)'),
    url: z.string().min(1).max(2048).optional().describe('An http(s) URL of the file, fetched by the service (public addresses only)'),
    fileId: z.string().min(1).max(100).optional().describe("The fileId of an earlier result of this account's (until it expires)"),
    fileName: z.string().min(1).max(200).optional().describe('The file name, used only to name the result'),
    // The field's first name; still read, so a client written against it keeps working.
    name: z.string().min(1).max(200).optional().describe('Older spelling of fileName'),
  })
  .describe('The file for a file tool: exactly one of base64, url or fileId');
export type McpFileSource = z.infer<typeof fileSourceSchema>;

/** The client's file as core's FileSource, or the validation error that says what to send. */
export function toFileSource(source: McpFileSource): FileSource {
  const given = [source.base64, source.url, source.fileId].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw invalidInput('Give the file as exactly one of base64, url or fileId', [{ field: 'file', message: 'exactly one of base64, url or fileId is required' }]);
  }
  const name = source.fileName ?? source.name;
  if (source.base64 !== undefined) return { kind: 'base64', data: source.base64, name };
  if (source.url !== undefined) return { kind: 'url', url: source.url, name };
  return { kind: 'stored', fileId: source.fileId ?? '' };
}
