// Helpers for the engine tests: read PDFs with poppler, list processes, build fixtures.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';

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

/** One entry of a zip (stored or deflated), found through the central directory. */
export function readZipEntry(zipData: Buffer, name: string): Buffer | null {
  const end = zipData.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) return null;
  const count = zipData.readUInt16LE(end + 10);
  let at = zipData.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    const method = zipData.readUInt16LE(at + 10);
    const compressed = zipData.readUInt32LE(at + 20);
    const nameLength = zipData.readUInt16LE(at + 28);
    const extra = zipData.readUInt16LE(at + 30);
    const comment = zipData.readUInt16LE(at + 32);
    const local = zipData.readUInt32LE(at + 42);
    const entryName = zipData.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (entryName === name) {
      const start = local + 30 + zipData.readUInt16LE(local + 26) + zipData.readUInt16LE(local + 28);
      const body = zipData.subarray(start, start + compressed);
      return method === 0 ? Buffer.from(body) : inflateRawSync(body);
    }
    at += 46 + nameLength + extra + comment;
  }
  return null;
}

/** A minimal PNG (solid red), for linked-image tests. */
export { pngBytes } from './png.ts';
