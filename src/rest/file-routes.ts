import type { Readable } from 'node:stream';
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

/**
 * Streams a stored result to the reply. The store is opened before any header is set, so a storage
 * outage answers its 503 as JSON; from a remote store the bytes pass through, never held whole.
 */
export async function sendStoredFile(reply: FastifyReply, store: FileStore, stored: StoredFile, contentType: string): Promise<FastifyReply> {
  const body = await store.open(stored.fileId);
  return sendFileBody(reply, body, stored, contentType);
}

/** A result's bytes as a download: its name for saving, no sniffing, no caching. */
export function sendFileBody(reply: FastifyReply, body: Readable, file: { fileName: string; sizeBytes: number }, contentType: string): FastifyReply {
  reply.header('Content-Type', contentType);
  reply.header('Content-Length', String(file.sizeBytes));
  reply.header('Content-Disposition', contentDisposition(file.fileName));
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'private, no-store');
  return reply.send(body);
}

/** A link's lifetime as a person reads it: "1 hour", "90 minutes", "45 seconds". */
export function describeDuration(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return plural(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return plural(seconds / 60, 'minute');
  return plural(seconds, 'second');
}

/** GET on a presigned link: no key, the signature is the authorization. */
export function registerDownloadRoute(app: FastifyInstance, store: FileStore, signer: LinkSigner, ttlSeconds: number): void {
  const expiredDetail = `Links are valid for ${describeDuration(ttlSeconds)}; run the conversion again for a new one`;
  app.get<{ Params: { fileId: string; fileName: string }; Querystring: { expires?: string; signature?: string } }>('/files/:fileId/:fileName', async (request, reply) => {
    const { fileId, fileName } = request.params;
    const verdict = signer.check(fileId, fileName, request.query.expires, request.query.signature);
    if (verdict === 'invalid') {
      return sendError(reply, new ServiceError(403, 'invalid_signature', 'The download link is not valid', { detail: 'The link was altered or is incomplete; use the downloadUrl exactly as returned' }));
    }
    if (verdict === 'expired') {
      return sendError(reply, new ServiceError(410, 'link_expired', 'The download link has expired', { detail: expiredDetail }));
    }
    const stored = await store.get(fileId);
    if (!stored || stored.fileName !== fileName) {
      return sendError(reply, new ServiceError(410, 'file_gone', 'The file is no longer stored', { detail: 'Results are deleted after the retention period' }));
    }
    return sendStoredFile(reply, store, stored, stored.mimeType);
  });
}
