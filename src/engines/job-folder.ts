// Where a sandboxed engine program may write: a folder of the job's own. The sandbox gives a
// program its working folder (and any folders named) to write, and nothing else of the host; a
// program run in the call's folder could leave links there at the names the host reads and writes
// next. So a job runs in a fresh folder beside its input, holding the input under its own name,
// and its result is taken out of it as a regular file only.
import { copyFile, lstat, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { linkOrCopy } from '../files/engine-output.ts';

/**
 * Runs `work` in a fresh folder beside `inputPath` that holds the input under its own name (a
 * hard link, or a copy across filesystems); the folder is removed afterwards, whatever happened.
 */
export async function inJobFolder<T>(inputPath: string, prefix: string, work: (dir: string, input: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(path.dirname(inputPath), prefix));
  try {
    const input = path.join(dir, path.basename(inputPath));
    await linkOrCopy(inputPath, input);
    return await work(dir, input);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Moves a result out of an engine's folder to `to`: a rename, or (the folders on two
 * filesystems) a copy of a regular file only, so that a link the engine left there is never
 * followed on the host. Anything but a regular file is not taken, and the caller finds no output
 * (a renamed link stays a link, which FilePipeline.store refuses).
 */
export async function takeResult(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const found = await lstat(from);
    if (found.isFile()) await copyFile(from, to);
    await rm(from, { force: true });
  }
}
