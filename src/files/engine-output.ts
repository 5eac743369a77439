// Reading back what a sandboxed engine wrote. The engine could not read the host's files, but it
// can leave a symbolic link (or a FIFO) where its output should be, in a folder it could write:
// read with the host's rights, a link would hand a host file to the caller as the engine's output,
// and a FIFO would hold a thread-pool thread until something wrote to it. So an output is opened
// without following a link (O_NOFOLLOW) and without waiting (O_NONBLOCK, which changes nothing
// for a regular file), and read only when it is a regular file.
import { constants } from 'node:fs';
import { copyFile, link, open, writeFile } from 'node:fs/promises';
import { ServiceError } from '../core/errors.ts';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function notAFile(detail: string): ServiceError {
  return new ServiceError(500, 'missing_output', 'The conversion produced no file', { detail });
}

/** The bytes (or, with 'utf8', the text) of an engine's output at `path`; 500 missing_output for anything but a regular file. */
export async function readEngineOutput(path: string): Promise<Buffer>;
export async function readEngineOutput(path: string, encoding: 'utf8'): Promise<string>;
export async function readEngineOutput(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw notAFile('The engine left a link where its output should be');
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw notAFile('The engine left something other than a file where its output should be');
    return encoding === undefined ? await handle.readFile() : await handle.readFile(encoding);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a result into a call's folder, which an engine may have been able to write into before:
 * created new (O_CREAT | O_EXCL), never through a link planted at its name, which would have the
 * host overwrite a file of its own with the engine's bytes. Anything already there fails (EEXIST).
 */
export function writeNewFile(path: string, data: string | Uint8Array): Promise<void> {
  return writeFile(path, data, { flag: 'wx' });
}

/**
 * A file put at `to` as a new name: a hard link when both share a filesystem, else a copy created
 * new (COPYFILE_EXCL), never through a link an engine could have planted at that name.
 */
export async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  }
}
