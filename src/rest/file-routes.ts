import type { FastifyInstance, FastifyReply } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import type { FileStore, StoredFile } from '../files/file-store.ts';
import type { LinkSigner } from '../files/signed-links.ts';
import { sendError } from './http-errors.ts';

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact UTF-8 name. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function sendStoredFile(reply: FastifyReply, store: FileStore, stored: StoredFile, contentType: string): FastifyReply {
  reply.header('Content-Type', contentType);
  reply.header('Content-Length', String(stored.sizeBytes));
  reply.header('Content-Disposition', contentDisposition(stored.fileName));
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'private, no-store');
  return reply.send(store.open(stored.fileId));
}

/** GET on a presigned link: no key, the signature is the authorization. */
export function registerDownloadRoute(app: FastifyInstance, store: FileStore, signer: LinkSigner): void {
  app.get<{ Params: { fileId: string; fileName: string }; Querystring: { expires?: string; signature?: string } }>('/files/:fileId/:fileName', async (request, reply) => {
    const { fileId, fileName } = request.params;
    const verdict = signer.check(fileId, fileName, request.query.expires, request.query.signature);
    if (verdict === 'invalid') {
      return sendError(reply, new ServiceError(403, 'invalid_signature', 'The download link is not valid', { detail: 'The link was altered or is incomplete; use the downloadUrl exactly as returned' }));
    }
    if (verdict === 'expired') {
      return sendError(reply, new ServiceError(410, 'link_expired', 'The download link has expired', { detail: 'Links are valid for 1 hour; run the conversion again for a new one' }));
    }
    const stored = await store.get(fileId);
    if (!stored || stored.fileName !== fileName) {
      return sendError(reply, new ServiceError(410, 'file_gone', 'The file is no longer stored', { detail: 'Results are deleted after the retention period' }));
    }
    return sendStoredFile(reply, store, stored, stored.mimeType);
  });
}
