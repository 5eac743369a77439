import { randomUUID } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export interface StoredFile {
  fileId: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  createdAt: string;
  /** When the store deletes the file (retention), not when its link expires. */
  deleteAt: string;
  /** The account whose call made it: only that account may use it again as a stored file source by fileId. */
  ownerId?: string;
}

/**
 * Where results live until they are downloaded or expire: the local disk (LocalFileStore) or an
 * S3-compatible bucket (s3-file-store.ts), chosen by FILE_STORE. Every method of a remote store may
 * throw a 503 `storage_unavailable` ServiceError; get() answers undefined only for a file that is
 * not there (or is past its deleteAt), never for an outage.
 */
export interface FileStore {
  /** Takes ownership of the file at `sourcePath` (moved, not copied, when possible). */
  put(sourcePath: string, meta: { fileName: string; mimeType: string; retentionMs: number; ownerId?: string }): Promise<StoredFile>;
  get(fileId: string): Promise<StoredFile | undefined>;
  /** The stored bytes as a stream (a remote store's body is streamed through, never held whole). */
  open(fileId: string): Promise<Readable>;
  /** Copies the stored bytes to a local path (a work folder), for a call that takes the file as its input. */
  copyTo(fileId: string, destPath: string): Promise<void>;
  delete(fileId: string): Promise<void>;
  /** Deletes every file past its retention, including files left from before a restart. */
  sweep(now?: Date): Promise<number>;
  /**
   * Throws when the store could not take a result now (a bucket that does not answer, a folder
   * that is not writable), for /readyz. `signal` aborts a remote request still waiting.
   */
  check(signal?: AbortSignal): Promise<void>;
  /** Releases connections (a remote store's); called once when the services stop. */
  close?(): void;
}

/** A result's id. Checked before it names a folder or an object key, so it never walks elsewhere. */
export const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * get() for every store: the id checked, the result's metadata read by the store (`readMeta`
 * answers undefined when the result is not there, and throws for an outage, which must not read
 * as a deleted result), and the result kept only while the clock is before its deleteAt, so one
 * the sweep has not reached yet is already gone to its owner and to every download. The owner
 * check is the caller's (FilePipeline.receiveStored): downloads go by signed link, not by owner.
 */
export async function readLiveStoredFile(fileId: string, readMeta: (fileId: string) => Promise<StoredFile | undefined>, now?: Date): Promise<StoredFile | undefined> {
  if (!FILE_ID.test(fileId)) return undefined;
  const stored = await readMeta(fileId);
  // `!stored`, not `=== undefined`: parsed metadata may be any JSON, `null` included.
  if (!stored) return undefined;
  // The clock is read after the metadata: a slow read must not serve a result that expired meanwhile.
  return new Date(stored.deleteAt) > (now ?? new Date()) ? stored : undefined;
}

export interface StorageStatus {
  state: 'ready' | 'failed';
  detail?: string;
}

/**
 * The store's check() for /readyz, answered within `timeoutMs` whatever the storage does: a
 * storage that accepts the connection and says nothing is a failed check, not a hung probe (the
 * request is aborted, so probes do not pile up on it). The detail is the check's own message,
 * which names what failed without credentials.
 */
export async function storageStatus(store: FileStore, timeoutMs: number): Promise<StorageStatus> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('timed out'));
    }, timeoutMs);
  });
  try {
    // Raced as well as aborted: a local folder on a hung mount cannot be aborted.
    await Promise.race([store.check(controller.signal), timedOut]);
    return { state: 'ready' };
  } catch (err) {
    if (controller.signal.aborted) return { state: 'failed', detail: `the file storage did not answer within ${timeoutMs} ms` };
    return { state: 'failed', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

export class LocalFileStore implements FileStore {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  #dir(fileId: string): string {
    if (!FILE_ID.test(fileId)) throw new Error('invalid file id');
    return join(this.#root, fileId);
  }

  async put(sourcePath: string, meta: { fileName: string; mimeType: string; retentionMs: number; ownerId?: string }): Promise<StoredFile> {
    const fileId = randomUUID();
    const dir = this.#dir(fileId);
    await mkdir(dir, { recursive: true });
    const blob = join(dir, 'blob');
    try {
      await rename(sourcePath, blob);
    } catch {
      await copyFile(sourcePath, blob);
    }
    const { size } = await stat(blob);
    const now = new Date();
    const stored: StoredFile = {
      fileId,
      fileName: meta.fileName,
      mimeType: meta.mimeType,
      sizeBytes: size,
      createdAt: now.toISOString(),
      deleteAt: new Date(now.getTime() + meta.retentionMs).toISOString(),
      ...(meta.ownerId === undefined ? {} : { ownerId: meta.ownerId }),
    };
    await writeFile(join(dir, 'meta.json'), JSON.stringify(stored));
    return stored;
  }

  async get(fileId: string): Promise<StoredFile | undefined> {
    return readLiveStoredFile(fileId, async (id) => {
      try {
        return JSON.parse(await readFile(join(this.#dir(id), 'meta.json'), 'utf8')) as StoredFile;
      } catch {
        // Missing or half-written metadata: there is no result to give (the sweep removes it).
        return undefined;
      }
    });
  }

  /** The results folder exists (made if not, as put() would) and may be written: a read-only mount or lost permission fails. */
  async check(): Promise<void> {
    await mkdir(this.#root, { recursive: true });
    await access(this.#root, constants.W_OK);
  }

  async open(fileId: string): Promise<Readable> {
    return createReadStream(join(this.#dir(fileId), 'blob'));
  }

  async copyTo(fileId: string, destPath: string): Promise<void> {
    await copyFile(join(this.#dir(fileId), 'blob'), destPath);
  }

  async delete(fileId: string): Promise<void> {
    await rm(this.#dir(fileId), { recursive: true, force: true });
  }

  async sweep(now = new Date()): Promise<number> {
    let removed = 0;
    let entries: string[];
    try {
      entries = await readdir(this.#root);
    } catch {
      return 0;
    }
    for (const name of entries) {
      if (!FILE_ID.test(name)) continue;
      let expired = true;
      try {
        const stored = JSON.parse(await readFile(join(this.#root, name, 'meta.json'), 'utf8')) as StoredFile;
        expired = new Date(stored.deleteAt) <= now;
      } catch {
        // No readable metadata: a half-written result from a crash. Remove it once it is old enough not to be in progress.
        const info = await stat(join(this.#root, name)).catch(() => undefined);
        expired = !info || now.getTime() - info.mtimeMs > 3600_000;
      }
      if (expired) {
        await rm(join(this.#root, name), { recursive: true, force: true });
        removed += 1;
      }
    }
    return removed;
  }
}
