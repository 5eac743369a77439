import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile, copyFile } from 'node:fs/promises';
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
  /** Releases connections (a remote store's); called once when the services stop. */
  close?(): void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class LocalFileStore implements FileStore {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  #dir(fileId: string): string {
    if (!UUID.test(fileId)) throw new Error('invalid file id');
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
    if (!UUID.test(fileId)) return undefined;
    try {
      const stored = JSON.parse(await readFile(join(this.#dir(fileId), 'meta.json'), 'utf8')) as StoredFile;
      return new Date(stored.deleteAt) > new Date() ? stored : undefined;
    } catch {
      return undefined;
    }
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
      if (!UUID.test(name)) continue;
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
