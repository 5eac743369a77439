// The bytes of small uploads, held in memory by their path from the moment the REST upload
// reader has written them (rest/upload.ts) until the call ends (FilePipeline.doneWith, in
// core/invoke.ts's finally after the tool's run), so that typing the file, checking it and the
// engine's own zip check (engines/zip-guard.ts) read memory, not the disk. For a 1 KB docx those
// open the same file about ten times, some 60 file operations each a round trip to libuv's
// thread pool, one after another; the bytes are already in hand at receipt.
// Readers never come here directly: file-reader.ts serves what is held and opens the disk
// otherwise, so a file that arrived another way (a stored result, base64, a URL, a run's step)
// simply finds nothing held.
//
// Held bytes must never be read after the file on disk could have changed. Nothing writes the
// upload's path while its call runs: tools write their results under other names in the work
// folder, and the engines only read the upload (they copy or hard-link it into their own folders,
// or open it read-only: LibreOffice). So the engines' own checks, which read through
// file-reader.ts as the upload check does (zip-guard.ts; calibre's, ffmpeg's, the image engine's
// and 7-Zip's header checks), may read the held bytes too. The bytes are forgotten when the call
// ends, on every refusal before its run, when the work folder goes (FilePipeline.removeWorkDir),
// and the oldest go first past a total bound, so a forget that is missed costs memory for a
// while, never correctness or unbounded growth.
import { resolve, sep } from 'node:path';

/**
 * The largest upload held. Up to here the saved round trips (~0.1-0.5 ms each on a small VM)
 * are most of what the checks cost; a larger file's checks are a small share of its conversion,
 * and its bytes would weigh on memory for nothing.
 */
export const HELD_UPLOAD_MAX_BYTES = 1024 * 1024;

/**
 * All held uploads together: the oldest is forgotten past it (its readers then open the disk).
 * 32 concurrent small uploads, far more than the engines' queues let run at once.
 */
export const HELD_UPLOADS_MAX_TOTAL_BYTES = 32 * HELD_UPLOAD_MAX_BYTES;

/** By resolved path; a Map keeps insertion order, so its first key is the oldest. */
const held = new Map<string, Buffer>();
let totalBytes = 0;

/**
 * Holds `bytes`, the whole content just written at `path`. Larger than HELD_UPLOAD_MAX_BYTES:
 * nothing is held (and an earlier hold of the path is dropped). Answers whether it was held.
 */
export function holdUploadBytes(path: string, bytes: Buffer): boolean {
  const key = resolve(path);
  drop(key);
  if (bytes.length > HELD_UPLOAD_MAX_BYTES) return false;
  held.set(key, bytes);
  totalBytes += bytes.length;
  while (totalBytes > HELD_UPLOADS_MAX_TOTAL_BYTES) {
    const oldest = held.keys().next().value;
    if (oldest === undefined) break;
    drop(oldest);
  }
  return true;
}

/** The bytes held for `path`, if any. */
export function heldUploadBytes(path: string): Buffer | undefined {
  return held.size === 0 ? undefined : held.get(resolve(path));
}

/** Forgets the bytes held for `path` (nothing when none are). */
export function forgetUploadBytes(path: string): void {
  if (held.size > 0) drop(resolve(path));
}

/** Forgets every upload held under the folder `dir` (a work folder on its way out). */
export function forgetUploadBytesUnder(dir: string): void {
  if (held.size === 0) return;
  const folder = resolve(dir);
  const prefix = folder.endsWith(sep) ? folder : folder + sep;
  for (const key of [...held.keys()]) if (key.startsWith(prefix)) drop(key);
}

/** How many uploads are held and their bytes: for tests and diagnostics. */
export function heldUploadTotals(): { uploads: number; bytes: number } {
  return { uploads: held.size, bytes: totalBytes };
}

function drop(key: string): void {
  const bytes = held.get(key);
  if (bytes === undefined) return;
  held.delete(key);
  totalBytes -= bytes.length;
}
