// What a file tool takes and gives, as the file pipeline handles it: the tool definitions in
// core/ use these types, so the pipeline (a lower layer) never reads a tool definition.
import { z } from 'zod';
import type { FileKind } from './kinds/file-kind-registry.ts';

/** An upload, streamed to disk by the surface and typed by its content, never by its name. */
export interface UploadedFile {
  path: string;
  sizeBytes: number;
  /** The name the client gave; only used to name the result. */
  originalName: string;
  /** What the content is, from its magic bytes (see files/kinds/). */
  kind: FileKind;
  mimeType: string;
}

/** What a file tool returns: a file it wrote inside its work folder. The platform stores and signs it. */
export interface FileArtifact {
  path: string;
  fileName: string;
  mimeType: string;
}

/** The result of a file tool as the envelope's `result`: a presigned link, not the bytes. */
export const fileResultSchema = z.object({
  fileId: z.uuid().describe('Id of the stored result'),
  downloadUrl: z.url().describe('Presigned GET link, no key needed, valid 1 hour'),
  expiresAt: z.iso.datetime().describe('When the link stops working'),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int().min(0),
});

export type FileResult = z.infer<typeof fileResultSchema>;

