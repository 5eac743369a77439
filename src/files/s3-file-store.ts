// Results in an S3-compatible bucket (FILE_STORE=s3://<bucket>[/<prefix>]), so every node serves
// every node's files. One object per result, `<prefix>/<fileId>`, with what the download and the
// owner check need kept as the object's own metadata (name, owner, created, deleteAt; type and size
// are its Content-Type and length): no second object to keep in step, and a HEAD answers get().
// Bytes never sit in memory whole: the upload streams ranges of the work file (s3-upload.ts), and
// the download is the GetObject body piped to the reply.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type HeadObjectCommandOutput,
} from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ServiceError } from '../core/errors.ts';
import { FILE_ID, LocalFileStore, readLiveStoredFile, type FileStore, type StoredFile } from './file-store.ts';
import type { S3StoreSettings } from './s3-settings.ts';
import { uploadFile } from './s3-upload.ts';

/** FILE_RETENTION_HOURS is at most 24: nothing of ours is kept past this, whatever its metadata says. */
const MAX_RETENTION_MS = 24 * 3600_000;
/** Clock difference between this node and the storage tolerated when picking objects to look at. */
const CLOCK_SLACK_MS = 5 * 60_000;

export interface S3FileStoreOptions {
  /** FILE_RETENTION_HOURS: the sweep only looks at objects at least this old (all of ours are created with it). */
  retentionMs: number;
  /** time to open a connection to the storage; then 503 */
  connectTimeoutMs?: number;
  /** time a connection to the storage may stay silent (not the whole transfer: a large file may take longer); then 503 */
  idleTimeoutMs?: number;
  /** how long a download's client may stop reading (the storage's socket then idles too) before it is cut; 5 min by default */
  streamIdleMs?: number;
  /** attempts per request (the SDK retries network errors and 5xx); with the timeouts, bounds how long a dead storage holds a call */
  maxAttempts?: number;
}

/** The storage did not answer or refused us: the call fails uncharged (5xx) and may be retried. */
export function storageUnavailable(cause: unknown): ServiceError {
  return new ServiceError(503, 'storage_unavailable', 'The file storage is not answering; try again shortly', {
    detail: 'Results are kept in S3-compatible storage, which did not answer; a call that failed on it is not charged',
    headers: { 'Retry-After': '5' },
    cause,
  });
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.$metadata?.httpStatusCode === 404 || e?.name === 'NotFound' || e?.name === 'NoSuchKey';
}

/** Object metadata travels as HTTP headers, so the (UTF-8) name is percent-encoded there. */
function metadataOf(stored: StoredFile): Record<string, string> {
  return {
    'file-name': encodeURIComponent(stored.fileName),
    'created-at': stored.createdAt,
    'delete-at': stored.deleteAt,
    ...(stored.ownerId === undefined ? {} : { 'owner-id': stored.ownerId }),
  };
}

/** The StoredFile an object's HEAD describes, or undefined for an object that is not one of ours. */
function storedFromHead(fileId: string, head: HeadObjectCommandOutput): StoredFile | undefined {
  const m = head.Metadata ?? {};
  const name = m['file-name'];
  const createdAt = m['created-at'];
  const deleteAt = m['delete-at'];
  if (name === undefined || createdAt === undefined || deleteAt === undefined || head.ContentLength === undefined) return undefined;
  let fileName: string;
  try {
    fileName = decodeURIComponent(name);
  } catch {
    return undefined;
  }
  const owner = m['owner-id'];
  return {
    fileId,
    fileName,
    mimeType: head.ContentType ?? 'application/octet-stream',
    sizeBytes: head.ContentLength,
    createdAt,
    deleteAt,
    ...(owner === undefined ? {} : { ownerId: owner }),
  };
}

export function s3Client(settings: S3StoreSettings, options: Pick<S3FileStoreOptions, 'connectTimeoutMs' | 'idleTimeoutMs' | 'maxAttempts'> = {}): S3Client {
  return new S3Client({
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    ...(settings.region === undefined ? {} : { region: settings.region }),
    ...(settings.credentials === undefined ? {} : { credentials: settings.credentials }),
    forcePathStyle: settings.forcePathStyle,
    maxAttempts: options.maxAttempts ?? 2,
    // A storage that accepts the connection and then says nothing must end in a 503, not a hang.
    // socketTimeout is the idle one (the SDK's requestTimeout is a whole-request timer that only
    // warns by default, and a whole-request limit would cut a large file on a slow link).
    requestHandler: { connectionTimeout: options.connectTimeoutMs ?? 5000, socketTimeout: options.idleTimeoutMs ?? 15_000 },
    // Checksums only where S3 requires them: the SDK's default (a CRC trailer on every upload, in
    // aws-chunked encoding) is refused by many S3-compatible servers (older MinIO and Ceph, s3rver).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class S3FileStore implements FileStore {
  readonly #client: S3Client;
  /** for uploads: it does not retry by itself, s3-upload.ts retries each part with a fresh stream */
  readonly #uploader: S3Client;
  readonly #attempts: number;
  readonly #streamIdleMs: number;
  readonly #bucket: string;
  /** '' or '<prefix>/': what every key of ours starts with */
  readonly #keyPrefix: string;
  readonly #retentionMs: number;
  /** the configured credentials' values, never to be repeated in a check's message */
  readonly #secrets: string[];

  constructor(settings: S3StoreSettings, options: S3FileStoreOptions, client: S3Client = s3Client(settings, options)) {
    this.#client = client;
    this.#attempts = options.maxAttempts ?? 2;
    this.#streamIdleMs = options.streamIdleMs ?? 5 * 60_000;
    this.#uploader = s3Client(settings, { ...options, maxAttempts: 1 });
    this.#bucket = settings.bucket;
    this.#keyPrefix = settings.prefix === '' ? '' : `${settings.prefix}/`;
    this.#retentionMs = options.retentionMs;
    const c = settings.credentials;
    this.#secrets = c === undefined ? [] : [c.accessKeyId, c.secretAccessKey, c.sessionToken ?? ''].filter((v) => v !== '');
  }

  /** The object key of a result; `fileId` is checked to be a UUID first, so it never walks elsewhere. */
  key(fileId: string): string {
    if (!FILE_ID.test(fileId)) throw new Error('invalid file id');
    return `${this.#keyPrefix}${fileId}`;
  }

  /**
   * Whether the bucket answers (at start: a missing bucket or refused credentials are named in the
   * log; in /readyz, with `signal` bounding the wait). The message goes to /readyz's answer, so it
   * names variables, never their values: the SDK's own text is scrubbed of the configured keys and
   * of any user:password in a URL.
   */
  async check(signal?: AbortSignal): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }), signal === undefined ? {} : { abortSignal: signal });
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const why = status === 404 ? 'the bucket does not exist' : status === 403 ? 'access denied (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)' : this.#scrub((err as Error).message);
      throw new Error(`FILE_STORE bucket ${this.#bucket}: ${why}`, { cause: err });
    }
  }

  #scrub(text: string): string {
    let out = text.replace(/\/\/[^/\s@]*@/g, '//');
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    return out;
  }

  async put(sourcePath: string, meta: { fileName: string; mimeType: string; retentionMs: number; ownerId?: string }): Promise<StoredFile> {
    const fileId = randomUUID();
    try {
      const { size } = await stat(sourcePath);
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
      try {
        await uploadFile({ client: this.#uploader, bucket: this.#bucket, key: this.key(fileId), contentType: meta.mimeType, metadata: metadataOf(stored), attempts: this.#attempts }, sourcePath, size);
      } catch (err) {
        throw storageUnavailable(err);
      }
      return stored;
    } finally {
      // The store owns the source: in the bucket now (or failed), the work file is not needed.
      await rm(sourcePath, { force: true });
    }
  }

  async get(fileId: string): Promise<StoredFile | undefined> {
    return readLiveStoredFile(fileId, async (id) => {
      let head: HeadObjectCommandOutput;
      try {
        head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.key(id) }));
      } catch (err) {
        // Only a clear 404 is "no such file": an outage must not be answered as a deleted result.
        if (isNotFound(err)) return undefined;
        throw storageUnavailable(err);
      }
      return storedFromHead(id, head);
    });
  }

  /**
   * The object's body for a download. The client's idle limit (15 s) guarded the wait for the
   * answer; once the body flows to a person's download, a pause is most often their own reading
   * pace (the reply's backpressure stops us reading the storage), so the limit becomes
   * streamIdleMs: a client may pause that long, and a storage gone silent mid-body is still cut.
   */
  async open(fileId: string): Promise<Readable> {
    return this.#body(fileId, this.#streamIdleMs);
  }

  async #body(fileId: string, idleMs: number | undefined): Promise<Readable> {
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.key(fileId) }));
      // In Node the SDK's body is the response stream itself (an IncomingMessage); the SDK's
      // timeout listener stays on its socket, so setTimeout only changes how long it waits.
      const body = answer.Body as Readable & { socket?: Socket | null };
      if (idleMs !== undefined) body.socket?.setTimeout(idleMs);
      return body;
    } catch (err) {
      if (isNotFound(err)) throw new ServiceError(410, 'file_gone', 'The file is no longer stored', { detail: 'Results are deleted after the retention period' });
      throw storageUnavailable(err);
    }
  }

  async copyTo(fileId: string, destPath: string): Promise<void> {
    // Written to disk as fast as it comes: the short idle limit stays, a silent storage is a 503.
    const body = await this.#body(fileId, undefined);
    try {
      await pipeline(body, createWriteStream(destPath, { mode: 0o600 }));
    } catch (err) {
      throw storageUnavailable(err);
    }
  }

  async delete(fileId: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.key(fileId) }));
    } catch (err) {
      if (!isNotFound(err)) throw storageUnavailable(err);
    }
  }

  /**
   * Deletes every result past its deleteAt. The listing gives each object's age for free; only
   * objects old enough to be due are HEADed for their own deleteAt, and one older than the 24 h
   * ceiling goes without asking. Keys that are not `<prefix>/<uuid>` are never touched, so the
   * bucket may hold other things. A lifecycle rule alone would not do: S3 runs those about once a
   * day, and the promise is deletion within the retention period.
   */
  async sweep(now = new Date()): Promise<number> {
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: this.#keyPrefix, ...(token === undefined ? {} : { ContinuationToken: token }) }));
      for (const object of page.Contents ?? []) {
        const fileId = object.Key?.slice(this.#keyPrefix.length) ?? '';
        if (!FILE_ID.test(fileId)) continue;
        const age = now.getTime() - (object.LastModified?.getTime() ?? 0);
        if (age + CLOCK_SLACK_MS < this.#retentionMs) continue;
        let due = age >= MAX_RETENTION_MS + CLOCK_SLACK_MS;
        if (!due) {
          const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.key(fileId) })).catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          });
          if (!head) continue;
          const stored = storedFromHead(fileId, head);
          // Without our metadata under our key pattern: half-written by something else; old enough to drop.
          due = stored ? new Date(stored.deleteAt) <= now : age >= 3600_000;
        }
        if (due) {
          await this.delete(fileId);
          removed += 1;
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return removed;
  }

  close(): void {
    this.#client.destroy();
    this.#uploader.destroy();
  }
}

/**
 * The store FILE_STORE names. For S3 the bucket is asked once at start: a missing bucket or refused
 * credentials stop the start (they do not heal by waiting); a storage that does not answer only
 * logs, since it may come back, and until then calls that need it answer 503.
 */
export async function openFileStore(config: Pick<Config, 'fileStore' | 'dataDir' | 'fileRetentionMs' | 'fileSigningSecret'>, log: Logger): Promise<FileStore> {
  const settings = config.fileStore;
  if (settings.kind === 'local') return new LocalFileStore(join(config.dataDir, 'files'));
  const store = new S3FileStore(settings, { retentionMs: config.fileRetentionMs });
  try {
    await store.check();
  } catch (err) {
    const status = ((err as Error).cause as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
    if (status === 403 || status === 404) throw err;
    log.warn({ err }, 'the file storage (FILE_STORE) does not answer; file results answer 503 until it does');
  }
  // A link signed here must verify on every node: with DATA_DIR per node, only a shared FILE_SIGNING_SECRET does that.
  if (config.fileSigningSecret === undefined) log.warn('FILE_STORE is S3 but FILE_SIGNING_SECRET is unset: download links verify only on nodes sharing this DATA_DIR');
  return store;
}
