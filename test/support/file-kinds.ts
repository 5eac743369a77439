// Detecting a file with one container's detector, as the upload pipeline does (src/files/file-kind.ts
// shows every detector the first 64 KB of the file), and the matcher for a 422 a safety check throws.
import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { ServiceError } from '../../src/core/errors.ts';
import type { HeadProbe } from '../../src/files/kinds/container-definition.ts';

const HEAD_BYTES = 64 * 1024;

interface Detector {
  detect(probe: HeadProbe): Promise<{ kind: string } | undefined> | { kind: string } | undefined;
}

/** The kind `container` detects in the file at `file`, or undefined when it is none of its kinds. */
export async function detectWith(container: Detector, file: string): Promise<string | undefined> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(head, 0, head.length, 0);
    return (await container.detect({ path: file, handle, head, size }))?.kind;
  } finally {
    await handle.close();
  }
}

/** For assert.rejects: the error is a 422 ServiceError with the error code `code`. */
export function refusedWith(code: string): (error: unknown) => boolean {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.status, 422);
    assert.equal(error.error, code, error.message);
    return true;
  };
}
