// What an upload is, from its content alone: magic bytes, the ZIP central directory, the OLE2
// directory. The file name is never consulted (the API takes only a path). Reads the head of the
// file and the structures it needs, never the whole file: uploads can be 100 MB. Each container
// format's detector lives in kinds/ and is listed in kinds/file-kind-registry.ts; this file tries
// them in order.
import { readAt } from './zip-inspect.ts';
import { FILE_CONTAINERS, detectedKind, type FileDetection, type FileKind } from './kinds/file-kind-registry.ts';
import { openForReading } from './file-reader.ts';

export { kindMatches, isAcceptedKind, acceptedKind, acceptedKinds, detectedKind, type AcceptedKind, type FileDetection, type FileKind } from './kinds/file-kind-registry.ts';
export type { OleType } from './kinds/container-definition.ts';
export { pdfIsEncrypted } from './kinds/pdf.ts';
export { inspectOle, inspectOleFile, type OleInspection } from './kinds/ole2.ts';
export { manifestIsEncrypted } from './kinds/zip-based.ts';
export { decodeUtf8Head, htmlShape } from './kinds/text-like.ts';

const HEAD_BYTES = 64 * 1024;

function bare(kind: 'empty' | 'unknown'): FileDetection {
  return { kind, mimeType: detectedKind(kind).mimeType };
}

/** Types the file at `path` by its content. */
export async function detectFileKind(path: string): Promise<FileDetection> {
  const handle = await openForReading(path);
  try {
    const size = (await handle.stat()).size;
    if (size === 0) return bare('empty');
    const head = await readAt(handle, 0, Math.min(size, HEAD_BYTES));
    for (const container of FILE_CONTAINERS) {
      const found: FileDetection | undefined = await container.detect({ path, handle, head, size });
      if (found !== undefined) return found;
    }
    return bare('unknown');
  } finally {
    await handle.close();
  }
}
