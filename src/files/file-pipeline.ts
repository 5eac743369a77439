import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { linkOrCopy } from './engine-output.ts';
import type { FileArtifact, FileResult, UploadedFile } from './file-types.ts';
import { ServiceError, invalidInput, registerPrivateRoot } from '../core/errors.ts';
import { assertSafeDocument } from './document-safety.ts';
import { detectFileKind, detectedKind, isAcceptedKind, kindMatches } from './file-kind.ts';
import type { FileStore } from './file-store.ts';
import { ownerIsDead, sweepDeadEngineTempDirs, sweepDeadProcessFolders, taggedName } from './process-folders.ts';
import type { LinkSigner } from './signed-links.ts';
import type { ZipSafetyLimits } from './zip-limits.ts';
import type { ImageHeaderLimits } from './kinds/image-header.ts';
import { forgetUploadBytes, forgetUploadBytesUnder } from './upload-bytes.ts';

/** The file tool an upload is for, as far as the pipeline needs to know it. */
export interface UploadTarget {
  operationId: string;
  upload?: { field: string; accept: readonly string[] } | undefined;
}

/** An upload as the surface wrote it, before the pipeline has looked at its content. */
export interface ReceivedUpload {
  path: string;
  sizeBytes: number;
  originalName: string;
  /** the SHA-256, when the surface hashed the file on its way in (for an Idempotency-Key) */
  sha256?: string;
}

export interface FilePipelineOptions {
  workRoot: string;
  store: FileStore;
  signer: LinkSigner;
  publicBaseUrl: string;
  urlTtlSeconds: number;
  retentionMs: number;
  outputLimitBytes: number;
  /** zip-bomb limits for uploads (config's ZIP_*; the defaults when not given) */
  zipLimits?: ZipSafetyLimits;
  /** pixel and frame limits for uploaded images (the image engine's IMAGE_MAX_*; the defaults when not given) */
  imageLimits?: ImageHeaderLimits;
}

/**
 * What every file endpoint shares, between the surface that streams the upload to disk and the
 * tool that converts it: private work folders, typing the upload by content, the up-front
 * safety checks, and storing the result behind a signed link.
 */
export class FilePipeline {
  readonly #o: FilePipelineOptions;

  constructor(options: FilePipelineOptions) {
    this.#o = options;
    // DATA_DIR: no error a caller reads may name a path under it (core/errors.ts).
    registerPrivateRoot(dirname(options.workRoot));
  }

  async createWorkDir(): Promise<string> {
    // Tagged with this process, so the next start can tell a dead process's folders from a live one's.
    const dir = join(this.#o.workRoot, taggedName(randomUUID()));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  async removeWorkDir(dir: string): Promise<void> {
    // An upload's held bytes go with its folder, whatever path the call took out.
    forgetUploadBytesUnder(dir);
    await rm(dir, { recursive: true, force: true });
  }

  /**
   * Folders left by a crash: every work folder and engine temp folder of a process that is gone
   * (process-folders.ts), at once; and any other work folder once it is old (one of a process
   * that may be alive on another host, or from before folders were tagged). Other processes may
   * share DATA_DIR, so a live process's folder is never taken.
   */
  async sweepWorkDirs(maxAgeMs = 2 * 3600_000, now = Date.now()): Promise<number> {
    let removed = (await sweepDeadProcessFolders(this.#o.workRoot)) + (await sweepDeadEngineTempDirs());
    for (const name of await readdir(this.#o.workRoot).catch(() => [] as string[])) {
      const path = join(this.#o.workRoot, name);
      const info = await stat(path).catch(() => undefined);
      if (info && ownerIsDead(name) !== false && now - info.mtimeMs > maxAgeMs) {
        await rm(path, { recursive: true, force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /**
   * Types the upload by its content and checks it is what the tool takes. These checks run
   * before any charge: a missing, empty or mistyped file costs nothing. A refused upload's held
   * bytes (upload-bytes.ts) are forgotten: its call ends here.
   */
  async inspect(tool: UploadTarget, received: ReceivedUpload | undefined): Promise<UploadedFile> {
    try {
      return await this.#inspect(tool, received);
    } catch (err) {
      if (received) forgetUploadBytes(received.path);
      throw err;
    }
  }

  async #inspect(tool: UploadTarget, received: ReceivedUpload | undefined): Promise<UploadedFile> {
    const upload = tool.upload;
    if (!upload) throw new Error(`${tool.operationId} is not a file tool`);
    if (!received) {
      throw invalidInput(`Upload the source file in the multipart field "${upload.field}"`, [{ field: upload.field, message: 'required' }]);
    }
    if (received.sizeBytes === 0) {
      throw new ServiceError(400, 'empty_file', 'The uploaded file is empty', { detail: `The "${upload.field}" field holds 0 bytes` });
    }
    const detected = await detectFileKind(received.path);
    if (!upload.accept.some((accepted) => isAcceptedKind(accepted) && kindMatches(accepted, detected))) {
      throw new ServiceError(415, 'unsupported_file_type', `The uploaded file is not ${upload.accept.join(' or ')}`, {
        detail: `Its content looks like ${detectedKind(detected.kind).describedAs}; ${tool.operationId} takes ${upload.accept.join(', ')}. The type is read from the content, not the file name.`,
        extra: { detectedType: detected.kind, accepted: upload.accept },
      });
    }
    return { ...received, kind: detected.kind, mimeType: detected.mimeType };
  }

  /**
   * Bombs, external entities, encryption and truncation: the user's file is at fault, so this runs
   * after the charge. A refused upload's held bytes (upload-bytes.ts) are forgotten: its call ends
   * here. A safe one's stay held while its tool runs, so that the engine's own zip check
   * (engines/zip-guard.ts) reads them too; the call forgets them when it ends (doneWith).
   */
  async assertSafe(upload: UploadedFile): Promise<void> {
    try {
      await assertSafeDocument(upload.path, upload.kind, { ...this.#o.zipLimits, ...(this.#o.imageLimits === undefined ? {} : { image: this.#o.imageLimits }) });
    } catch (err) {
      forgetUploadBytes(upload.path);
      throw err;
    }
  }

  /**
   * The call is over for its upload, checked or not, run or not: forgets its held bytes. Every
   * call that received an upload ends here (core/invoke.ts, in a finally after the tool's run), so
   * bytes held through the run are released as soon as the answer is decided.
   */
  doneWith(received: ReceivedUpload | undefined): void {
    if (received) forgetUploadBytes(received.path);
  }

  /**
   * Copies a stored result of `ownerId`'s into a work folder, as the upload of a new call (a
   * converted file converted again). Another account's file, an expired one and an unknown id are
   * all the same 404, so a fileId says nothing about files that are not the caller's.
   */
  async receiveStored(fileId: string, ownerId: string, workDir: string): Promise<ReceivedUpload> {
    const stored = await this.#o.store.get(fileId);
    if (!stored || stored.ownerId !== ownerId) {
      throw new ServiceError(404, 'file_not_found', `No stored file ${fileId} for this account`, {
        detail: 'A fileId names a result of one of your own calls, until it expires; upload the file instead',
      });
    }
    const path = join(workDir, 'upload');
    await this.#o.store.copyTo(fileId, path);
    return { path, sizeBytes: stored.sizeBytes, originalName: stored.fileName };
  }

  /**
   * Stores the tool's output for the account whose call made it, and answers with a signed link to
   * it. `keepAt` (a path in the caller's work folder) also keeps the output's bytes there, for a
   * surface that sends them itself (REST's delivery=binary): that delivery then never reads the
   * result back from the store, so a store that fails after taking it (S3 gone between the put and
   * the read) cannot leave a charged call undelivered. A hard link (the work root and the engines'
   * temp folders may be on other file systems: then a copy); the caller removes it with its folder.
   */
  async store(artifact: FileArtifact, ownerId?: string, keepAt?: string): Promise<FileResult> {
    // lstat: a result is a regular file of its own. A link is never followed into the store: an
    // engine runs sandboxed, but a link it leaves names a path the host would read for it.
    const info = await lstat(artifact.path).catch(() => undefined);
    if (!info?.isFile()) {
      throw new ServiceError(500, 'missing_output', 'The conversion produced no file', info?.isSymbolicLink() ? { detail: 'The engine left a link where its result should be' } : {});
    }
    if (info.size > this.#o.outputLimitBytes) {
      throw new ServiceError(422, 'output_too_large', 'The result is larger than the output limit', {
        detail: `The result has ${info.size} bytes; the limit is ${this.#o.outputLimitBytes}`,
      });
    }
    // Created new, never through a link an engine could have planted at that name.
    if (keepAt !== undefined) await linkOrCopy(artifact.path, keepAt);
    const stored = await this.#o.store.put(artifact.path, { fileName: artifact.fileName, mimeType: artifact.mimeType, retentionMs: this.#o.retentionMs, ...(ownerId === undefined ? {} : { ownerId }) });
    const expires = Math.floor(Date.now() / 1000) + this.#o.urlTtlSeconds;
    return {
      fileId: stored.fileId,
      downloadUrl: this.#o.signer.url(this.#o.publicBaseUrl, stored.fileId, stored.fileName, expires),
      expiresAt: new Date(expires * 1000).toISOString(),
      fileName: stored.fileName,
      mimeType: stored.mimeType,
      sizeBytes: stored.sizeBytes,
    };
  }
}

/** Result names keep at most this many characters of the upload's stem: enough to recognise it. */
export const MAX_OUTPUT_STEM_CHARS = 80;
/**
 * The name is a path segment of the download link, percent-encoded there; the router refuses
 * segments over MAX_PATH_SEGMENT_CHARS (1024, rest/http-errors.ts). 80 letters outside the BMP
 * encode to 960 characters, so the encoded length is bounded too, well below the router's limit.
 */
export const MAX_OUTPUT_NAME_ENCODED_CHARS = 400;

/**
 * A result file name from the upload's name: its stem (at most 80 characters, safe ones only)
 * with the new extension. A name that long can always be downloaded through its signed link.
 */
export function outputName(originalName: string, extension: string): string {
  const base = originalName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  const safe = base.normalize('NFKC').replace(/[^\p{L}\p{N}._ -]+/gu, '_').replace(/^[.\s]+/, '');
  // By code points, so a letter outside the BMP is never cut in half.
  const chars = [...safe].slice(0, MAX_OUTPUT_STEM_CHARS);
  const suffix = `.${extension}`;
  while (chars.length > 0 && encodeURIComponent(chars.join('') + suffix).length > MAX_OUTPUT_NAME_ENCODED_CHARS) chars.pop();
  const stem = chars.join('').trim();
  return `${stem || 'document'}${suffix}`;
}
