// A Playground file run's multipart body, read in two steps on one stream:
//
// 1. Here, before any call: the text fields the form sends ahead of the file (`_csrf`, `keyId`, the
//    options), up to the file part, which is held unread. The CSRF token is checked from them: a
//    browser form cannot put it in a header, and the scope's preHandler cannot see into a body
//    that is streamed rather than parsed.
// 2. Once the invoke path admits the call: the held file and anything after it, by REST's own
//    reader (src/rest/upload.ts receiveMultipart: streamed to the work folder, hashed, REST's size
//    limit and errors), handed a view of the request whose parts() resumes where step 1 stopped.
import type { MultipartFile, Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { AnyTool } from '../core/define-tool.ts';
import { ServiceError } from '../core/errors.ts';
import { abandonedUpload, receiveMultipart } from '../rest/upload.ts';
import { checkTokenValue, type CsrfRefusal } from './csrf.ts';

export const UPLOAD_ROUTE = '/dashboard/playground/:operationId/upload';

/** REST's 30 option fields, plus the form's own: _csrf, keyId, mode and raw. */
const MAX_FIELDS = 34;
/** The raw JSON textarea may hold as much as the dashboard's whole form body. */
const MAX_FIELD_BYTES = 64 * 1024;

export interface LeadingFields {
  fields: Record<string, string>;
  /** the file part, unread; undefined when the body ended without one */
  file: MultipartFile | undefined;
  rest: AsyncIterator<Multipart>;
}

/** The fields before the file, and the token checked from them; a refusal when it is missing or wrong. */
export async function readLeadingFields(request: FastifyRequest, uploadLimitBytes: number, sessionToken: string): Promise<LeadingFields | { refusal: CsrfRefusal }> {
  if (!request.isMultipart()) {
    throw new ServiceError(415, 'multipart_required', 'Send the form as multipart/form-data', { detail: 'The Playground sends a file tool’s form with its file as multipart/form-data' });
  }
  // A person gone before the body is read (while the session was looked up) or while its fields
  // came: the 4xx REST's reader gives, not the parser's 'aborted' as a 500 and an error line (the
  // request's line is the request observer's), nor a parser left waiting for an end already missed.
  const gone = abandonedUpload(request);
  if (gone) throw gone;
  const rest = request.parts({ limits: { fileSize: uploadLimitBytes, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 } })[Symbol.asyncIterator]();
  const fields: Record<string, string> = {};
  let file: MultipartFile | undefined;
  try {
    for (;;) {
      const next = await rest.next();
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') {
        file = part;
        break;
      }
      if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (err) {
    throw abandonedUpload(request) ?? err;
  }
  // The token must come before the file: a body that sends the file first is refused unread.
  const header = request.headers['x-csrf-token'];
  const refusal = checkTokenValue(fields['_csrf'] ?? (Array.isArray(header) ? header[0] : header), sessionToken);
  if (refusal) {
    file?.file.resume();
    return { refusal };
  }
  delete fields['_csrf'];
  return { fields, file, rest };
}

/** REST's reader over the rest of the body: the held file first, then the parts after it. */
export function receiveRest(request: FastifyRequest, leading: LeadingFields, upload: NonNullable<AnyTool['upload']>, dir: string, limit: number) {
  async function* resumed(): AsyncGenerator<Multipart> {
    if (leading.file) yield leading.file;
    for (;;) {
      const next = await leading.rest.next();
      if (next.done) return;
      yield next.value;
    }
  }
  // REST's reader takes a destroyed request stream for a client gone before the body was read. Here
  // part of the body was read already, and a small body ends (and Node destroys the stream) before
  // the call is admitted: only a stream destroyed before its end is a client gone.
  const raw = request.raw;
  const rawView = Object.create(raw, { destroyed: { get: () => raw.destroyed && !raw.readableEnded } }) as typeof raw;
  // The same request (its log, route) whose parts() continues this body; the limits REST's reader
  // asks for were set when the body was first read (above), REST's own plus the form's fields.
  const view = Object.create(request, { parts: { value: () => resumed() }, raw: { value: rawView } }) as FastifyRequest;
  return receiveMultipart(view, upload.field, dir, limit, upload.alsoAccepts);
}
