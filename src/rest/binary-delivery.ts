// REST's deprecated direct download of a file result (`delivery=binary`): the check of the option,
// and where the bytes come from. A call that ran sends the bytes its conversion kept in the
// request's work folder (InvokeRequest.keepResultAt, FilePipeline.store), never the copy it just
// put in the store: with results in S3 that read could fail after the call was charged, and the
// caller would have paid for a conversion it was not given. Only an Idempotency-Key replay, which
// charges nothing, reads the stored result, and says so when the storage does not answer.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ServiceError, invalidInput } from '../core/errors.ts';
import type { FileStore } from '../files/file-store.ts';

/**
 * `delivery=binary` is checked once the call is admitted and before the upload is read: after
 * its sunset it is a 410, and nothing is charged.
 */
export function checkDelivery(delivery: string | undefined, sunsetAt: Date, now = new Date()): void {
  if (delivery === undefined || delivery === 'json') return;
  if (delivery !== 'binary') {
    throw invalidInput('Unknown delivery', [{ field: 'delivery', message: 'must be one of: json, binary', allowed: ['json', 'binary'] }]);
  }
  if (now >= sunsetAt) {
    throw new ServiceError(410, 'delivery_binary_gone', 'delivery=binary is no longer supported', {
      detail: `It was sunset on ${sunsetAt.toISOString().slice(0, 10)}; use the default JSON answer and GET its downloadUrl`,
    });
  }
}

/** The file in a request's work folder that keeps its result's bytes (a name no tool writes: tools name outputs after the upload). */
export function keptResultPath(workDir: string): string {
  return join(workDir, '.binary-delivery');
}

export interface ResultBytes {
  body: Readable;
  sizeBytes: number;
}

/**
 * The kept result, opened before the work folder is removed: an open file outlives the removal
 * of its name, so the folder goes as soon as the call has answered while the bytes still stream.
 * Undefined when the call kept nothing (it did not run: a replay).
 */
export async function openKeptResult(path: string): Promise<ResultBytes | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    return { body: handle.createReadStream(), sizeBytes: size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * A replayed call's result, read from the store: undefined when it is no longer stored. The
 * store's outage (503 storage_unavailable, with its Retry-After) is answered as what it is for
 * this caller: the conversion was paid once, by the first call with the key, and this replay
 * charged nothing, so sending it again later gets the bytes.
 */
export async function openStoredResult(store: FileStore, fileId: string): Promise<ResultBytes | undefined> {
  try {
    const stored = await store.get(fileId);
    if (!stored) return undefined;
    return { body: await store.open(fileId), sizeBytes: stored.sizeBytes };
  } catch (err) {
    if (!(err instanceof ServiceError) || err.status < 500) throw err;
    throw new ServiceError(err.status, err.error, err.message, {
      detail:
        'The result of this Idempotency-Key\'s call is kept in S3-compatible storage, which did not answer, so its bytes cannot be sent now. ' +
        'The conversion was charged once, by the first call with this key; this replay charged nothing. Send the same request with the same Idempotency-Key again after Retry-After to get them.',
      headers: err.headers,
      extra: err.extra,
      cause: err,
    });
  }
}
