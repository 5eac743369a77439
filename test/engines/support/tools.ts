// Helpers for the engine tests: read PDFs with poppler, list processes, read zip entries. The
// fixtures themselves come from test/support/fixtures.ts.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { listZipEntries, readEntry } from '../../../src/files/zip-inspect.ts';

const run = promisify(execFile);

export async function pdfText(file: string): Promise<string> {
  return (await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).stdout;
}

export async function pdfInfo(file: string): Promise<Record<string, string>> {
  const { stdout } = await run('pdfinfo', [file]);
  const info: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0) info[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return info;
}

/** Page size in points from pdfinfo, e.g. [595.28, 841.89]. */
export async function pdfPageSize(file: string): Promise<[number, number]> {
  const size = (await pdfInfo(file))['Page size'] ?? '';
  const match = /([\d.]+) x ([\d.]+) pts/.exec(size);
  if (!match) throw new Error(`no page size in ${size}`);
  return [Number(match[1]), Number(match[2])];
}

export async function pdfImageCount(file: string): Promise<number> {
  const { stdout } = await run('pdfimages', ['-list', file]);
  return stdout.split('\n').slice(2).filter((l) => l.trim() !== '').length;
}

/** Every process whose command line contains `needle`. */
export function processesMatching(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(needle) && Number(entry) !== process.pid) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Children of `pid` (direct). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

export function descendantsOf(pid: number): number[] {
  const all: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childrenOf(queue.shift()!)) {
      all.push(child);
      queue.push(child);
    }
  }
  return all;
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export interface RecordingServer {
  /** http://127.0.0.1:PORT */
  base: string;
  /** the path of every request received, in order */
  hits: string[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that records every request and answers it with `body` (and `contentType`,
 * when given): the engine tests reference it from documents to prove that nothing is fetched.
 */
export async function recordingServer(body: string | Buffer, contentType?: string): Promise<RecordingServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (contentType !== undefined) res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every entry name of the zip at `file`, from its central directory. */
export async function zipEntryNames(file: string): Promise<string[]> {
  return (await listZipEntries(file)).entries.map((entry) => entry.name);
}

/** The content of the entry `name` of the zip at `file` as text, or '' when there is no such entry. */
export async function zipEntryText(file: string, name: string, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const entry = (await listZipEntries(file)).entries.find((e) => e.name === name);
  return entry === undefined ? '' : (await readEntry(file, entry, 256 * 1024 * 1024)).toString(encoding);
}

/**
 * Waits until `condition` holds, checking every 20 ms, and fails naming `what` after `timeoutMs`.
 * For states only visible from outside (a process reaped, a process list emptied): the test waits
 * for the state itself, however long the machine takes, instead of guessing with a fixed sleep.
 */
/**
 * A job limit for engines in tests whose jobs are not about their limit: a hang guard that holds on
 * a loaded machine (a shared CI box at load 15-20 made ordinary jobs hit the 30-60 s production
 * defaults). Tests of the limit itself pass a short `timeoutMs` per job and check the 422.
 */
export const ENGINE_JOB_LIMIT_MS = 300_000;

// The deadline only turns a hang into a message naming what was awaited; the condition is the event.
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether no process has the pid any more (exited and reaped by its parent). */
export function reaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
