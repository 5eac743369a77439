// What extraction actually wrote, checked on disk. The listing (archive-entry-policy.ts) is what
// the archive declares; this is what landed: every entry must be a directory, a regular file or a
// symlink that resolves inside the folder, and the counts and bytes must stay within the limits,
// hard links counted once per name (a thousand names for one 60 MB file repack as 60 GB). The
// watcher runs the same count while 7-Zip is still writing, so a lying archive is stopped during
// extraction, not after.
import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { archiveError, type ArchiveLimits } from './archive-entry-policy.ts';

export interface WalkResult {
  files: number;
  directories: number;
  symlinks: number;
  totalBytes: number;
  /** regular files, relative to the root */
  filePaths: string[];
}

/** Counts what is under `root` without following links; throws 422 past the limits. */
async function tally(root: string, limits: ArchiveLimits, onSymlink?: (path: string) => Promise<void>): Promise<WalkResult> {
  const result: WalkResult = { files: 0, directories: 0, symlinks: 0, totalBytes: 0, filePaths: [] };
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info) continue; // removed while we looked (7-Zip renames temporaries)
      const entries = result.files + result.directories + result.symlinks + 1;
      if (entries > limits.maxEntries) throw archiveError('document_bomb', `extraction wrote more than ${limits.maxEntries} entries`);
      if (info.isDirectory()) {
        result.directories += 1;
        pending.push(path);
      } else if (info.isSymbolicLink()) {
        result.symlinks += 1;
        if (onSymlink) await onSymlink(path);
      } else if (info.isFile()) {
        result.files += 1;
        result.filePaths.push(relative(root, path));
        if (info.size > limits.maxPartBytes) {
          throw archiveError('document_bomb', `${JSON.stringify(relative(root, path))} expanded past ${limits.maxPartBytes} bytes`);
        }
        result.totalBytes += info.size;
        if (result.totalBytes > limits.maxUncompressedBytes) {
          throw archiveError('document_bomb', `extraction wrote more than ${limits.maxUncompressedBytes} bytes`);
        }
      } else {
        throw archiveError('unsafe_document', `${JSON.stringify(relative(root, path))} was extracted as a device, FIFO or socket`);
      }
    }
  }
  return result;
}

/**
 * The full check after extraction: the tally, and every symlink resolved through whatever other
 * links it passes (a chain like `a -> .` and `b -> a/..` is fine lexically, not physically).
 */
export async function checkExtracted(root: string, limits: ArchiveLimits): Promise<WalkResult> {
  const realRoot = await realpath(root);
  return tally(root, limits, async (path) => {
    const target = await readlink(path);
    const resolved = await realpath(path).catch(() => null);
    // A dangling link points nowhere yet; it must still not name a place outside when written.
    const inside = resolved === null ? !target.startsWith('/') : resolved === realRoot || resolved.startsWith(realRoot + sep);
    if (!inside) {
      throw archiveError('unsafe_document', `symbolic link ${JSON.stringify(relative(root, path))} resolves outside the archive (${JSON.stringify(target)})`);
    }
  });
}

export interface ExtractionWatch {
  /** stops watching; resolves when the last pass has ended */
  stop(): Promise<void>;
}

/**
 * Re-counts `root` while extraction runs and calls `onExceeded` with the 422 once it holds more
 * than the limits allow. Each pass waits at least twice as long as the last one took, so
 * watching a folder of ten thousand files costs a small share of one core.
 */
export function watchExtraction(root: string, limits: ArchiveLimits, onExceeded: (error: Error) => void, minIntervalMs = 100): ExtractionWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = (): void => {
    const started = performance.now();
    running = tally(root, limits).then(
      () => {
        if (!stopped) timer = setTimeout(pass, Math.max(minIntervalMs, 2 * (performance.now() - started)));
      },
      (error: unknown) => {
        if (!stopped) onExceeded(error as Error);
      },
    );
  };
  timer = setTimeout(pass, minIntervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
