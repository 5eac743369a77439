// Archives built by code for the archive tests: a ustar writer and a zip writer that can lie
// (declared sizes, shared data, encryption flags), so every hostile shape is made on the spot
// rather than kept as a binary. Real 7z files come from the real 7zz program.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, lstat, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

const run = promisify(execFile);

export interface TarEntry {
  name: string;
  /** '0' file, '1' hard link, '2' symlink, '3' char device, '5' directory, '6' FIFO */
  type?: '0' | '1' | '2' | '3' | '4' | '5' | '6';
  content?: Buffer | string;
  linkName?: string;
  mode?: number;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** A POSIX ustar archive of `entries`, ending with the two zero blocks. */
export function buildTar(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? '0';
    const data = type === '0' ? Buffer.from(entry.content ?? '') : Buffer.alloc(0);
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, 'utf8');
    header.write(octal(entry.mode ?? (type === '5' ? 0o755 : 0o644), 8), 100, 'ascii');
    header.write(octal(0, 8), 108, 'ascii');
    header.write(octal(0, 8), 116, 'ascii');
    header.write(octal(data.length, 12), 124, 'ascii');
    header.write(octal(1_700_000_000, 12), 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write(type, 156, 'ascii');
    if (entry.linkName) header.write(entry.linkName, 157, 100, 'utf8');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    if (type === '3' || type === '4') {
      header.write(octal(1, 8), 329, 'ascii');
      header.write(octal(3, 8), 337, 'ascii');
    }
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(octal(sum, 7) + ' ', 148, 'ascii');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function buildTarGz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(buildTar(entries));
}

export interface ZipEntry {
  name: string;
  content?: Buffer | string;
  /** 0 stored, 8 deflated (default) */
  method?: 0 | 8;
  /** the size the headers declare, when it should not be the truth */
  declaredSize?: number;
  /** sets the traditional-encryption flag (the data is not really encrypted) */
  encryptedFlag?: boolean;
  /** Unix mode in the external attributes (e.g. 0o120777 for a symlink whose content is its target) */
  unixMode?: number;
}

/**
 * A zip of `entries`. With `overlap`, every central directory record points at the first local
 * header, so one compressed stream is counted once per entry (David Fifield's overlapping bomb).
 */
export function buildZip(entries: readonly ZipEntry[], options: { overlap?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const offsets: number[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.content ?? '');
    const method = entry.method ?? 8;
    // Overlapping entries all point at the first stream: compress that one only.
    const shared = options.overlap === true && locals.length > 0;
    const packed = shared ? (locals[2] as Buffer) : method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name, 'utf8');
    const size = entry.declaredSize ?? data.length;
    const flags = 0x0800 | (entry.encryptedFlag ? 1 : 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    offsets.push(offset);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.unixMode === undefined ? 20 : 0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(entry.unixMode === undefined ? 0 : (entry.unixMode << 16) >>> 0, 38);
    central.writeUInt32LE(options.overlap ? 0 : offset, 42);
    if (!options.overlap || locals.length === 0) {
      locals.push(local, name, packed);
      offset += local.length + name.length + packed.length;
    }
    centrals.push(central, name);
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Runs the real 7zz in `cwd`. */
export async function sevenZip(args: readonly string[], cwd: string): Promise<void> {
  await run('7zz', [...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
}

/** A 7z archive of `files` (name to content), made by the real 7zz; `password` encrypts data (and headers with `encryptHeaders`). */
export async function build7z(files: Record<string, string | Buffer>, options: { password?: string; encryptHeaders?: boolean } = {}): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'fixture-7z-'));
  try {
    const src = join(dir, 'src');
    for (const [name, content] of Object.entries(files)) {
      await mkdir(join(src, name, '..'), { recursive: true });
      await writeFile(join(src, name), content);
    }
    const args = ['a', '-t7z', '-bd', join(dir, 'out.7z'), '.'];
    if (options.password) args.push(`-p${options.password}`);
    if (options.encryptHeaders) args.push('-mhe=on');
    await sevenZip(args, src);
    return await readFile(join(dir, 'out.7z'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ExtractedEntry {
  type: 'file' | 'directory' | 'symlink';
  content?: string;
  target?: string;
}

/** Every entry of `archive` (any format 7zz reads) as extracted by the real 7zz: path to type and content. */
export async function readArchive(archive: Buffer, type?: string): Promise<Record<string, ExtractedEntry>> {
  const dir = await mkdtemp(join(tmpdir(), 'fixture-read-'));
  try {
    await writeFile(join(dir, 'archive'), archive);
    await mkdir(join(dir, 'out'));
    await sevenZip(['x', ...(type ? [`-t${type}`] : []), '-y', '-bd', '-oout', 'archive'], dir);
    const out: Record<string, ExtractedEntry> = {};
    const walk = async (folder: string): Promise<void> => {
      for (const name of (await readdir(folder)).sort()) {
        const full = join(folder, name);
        const rel = relative(join(dir, 'out'), full);
        const info = await lstat(full);
        if (info.isSymbolicLink()) out[rel] = { type: 'symlink', target: await readlink(full) };
        else if (info.isDirectory()) {
          out[rel] = { type: 'directory' };
          await walk(full);
        } else out[rel] = { type: 'file', content: await readFile(full, 'utf8') };
      }
    };
    await walk(join(dir, 'out'));
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A tree as the archive examples write it: path to content; "dir/" a folder, "-> target" a symlink. */
export type Tree = Readonly<Record<string, string>>;

/** The archive of `format` holding `tree` (tar and tar.gz written here, zip and 7z by the real 7zz from the same files). */
export async function buildArchive(format: string, tree: Tree): Promise<Buffer> {
  const tarEntries: TarEntry[] = Object.entries(tree).map(([path, content]) =>
    path.endsWith('/') ? { name: path, type: '5' } : content.startsWith('-> ') ? { name: path, type: '2', linkName: content.slice(3) } : { name: path, content },
  );
  if (format === 'tar') return buildTar(tarEntries);
  if (format === 'tar.gz') return buildTarGz(tarEntries);
  const dir = await mkdtemp(join(tmpdir(), 'fixture-tree-'));
  try {
    await writeFile(join(dir, 'in.tar'), buildTar(tarEntries));
    await sevenZip(['x', '-y', '-bd', '-osrc', 'in.tar'], dir);
    await sevenZip(['a', `-t${format}`, '-snl', '-bd', join(dir, `out.${format}`), '.'], join(dir, 'src'));
    return await readFile(join(dir, `out.${format}`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What readArchive answers for a tree: folders (also implied ones), files with content, symlinks with target. */
export function expectedEntries(tree: Tree): Record<string, ExtractedEntry> {
  const out: Record<string, ExtractedEntry> = {};
  for (const [path, content] of Object.entries(tree)) {
    const parts = path.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i += 1) out[parts.slice(0, i).join('/')] = { type: 'directory' };
    const name = parts.join('/');
    out[name] = path.endsWith('/') ? { type: 'directory' } : content.startsWith('-> ') ? { type: 'symlink', target: content.slice(3) } : { type: 'file', content };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
