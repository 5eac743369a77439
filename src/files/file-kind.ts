// What an upload is, from its content alone: magic bytes, the ZIP central directory, the OLE2
// directory. The file name is never consulted (the API takes only a path). Reads the head of the
// file and the structures it needs, never the whole file: uploads can be 100 MB.
import { open, type FileHandle } from 'node:fs/promises';
import { listZipEntries, readAt, readEntry, scanLocalHeaders, type ZipEntryInfo } from './zip-inspect.ts';

export type FileKind =
  | 'pdf'
  | 'docx'
  | 'xlsx'
  | 'pptx'
  | 'odt'
  | 'ods'
  | 'odp'
  | 'epub'
  | 'zip'
  | 'ole2'
  | 'rtf'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'text'
  | 'empty'
  | 'unknown';

/** What an OLE2 compound file holds, from its directory. */
export type OleType = 'doc' | 'xls' | 'ppt' | 'encrypted-ooxml' | 'other';

export interface FileDetection {
  kind: FileKind;
  mimeType: string;
  /** Password-protected: an encrypted PDF, an OLE2 EncryptedPackage (a protected docx/xlsx/pptx), a legacy doc/xls/ppt with encryption, encrypted ZIP entries or an encrypted ODF package. */
  encrypted?: boolean;
  /** For `text`: it looks like HTML, a whole document (then `mimeType` is text/html) or a fragment. */
  isHtml?: boolean;
  /** For `ole2`: which application's file it is, when the directory says. */
  oleType?: OleType;
  /** For ZIP kinds: the central directory is unreadable, the kind was guessed from the local headers. */
  corrupt?: boolean;
  /** For OOXML kinds: the package holds a VBA project (docm/xlsm/pptm). */
  macros?: boolean;
}

export type AcceptedKind = 'docx' | 'doc' | 'xlsx' | 'xls' | 'pptx' | 'ppt' | 'odt' | 'ods' | 'odp' | 'rtf' | 'pdf' | 'txt' | 'md' | 'html' | 'csv' | 'epub';

const MIME: Record<FileKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  zip: 'application/zip',
  ole2: 'application/x-ole-storage',
  rtf: 'application/rtf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  text: 'text/plain',
  empty: 'application/x-empty',
  unknown: 'application/octet-stream',
};

const OLE_MIME: Record<OleType, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  'encrypted-ooxml': 'application/x-ole-storage',
  other: 'application/x-ole-storage',
};

const HEAD_BYTES = 64 * 1024;
const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);


function startsWith(buffer: Buffer, bytes: readonly number[] | string | Buffer, at = 0): boolean {
  const sig = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return buffer.length >= at + sig.length && buffer.subarray(at, at + sig.length).equals(sig);
}

function result(kind: FileKind, extra: Omit<FileDetection, 'kind' | 'mimeType'> = {}): FileDetection {
  return { kind, mimeType: MIME[kind], ...extra };
}

/** Types the file at `path` by its content. */
export async function detectFileKind(path: string): Promise<FileDetection> {
  const handle = await open(path, 'r');
  let head: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    if (size === 0) return result('empty');
    head = await readAt(handle, 0, Math.min(size, HEAD_BYTES));
    if (startsWith(head, '%PDF-')) {
      return result('pdf', (await pdfIsEncrypted(handle, head, size)) ? { encrypted: true } : {});
    }
    if (startsWith(head, OLE_SIGNATURE)) {
      const ole = await inspectOle(handle, size);
      return {
        kind: 'ole2',
        mimeType: OLE_MIME[ole.type],
        oleType: ole.type,
        ...(ole.encrypted ? { encrypted: true } : {}),
        ...(ole.corrupt ? { corrupt: true } : {}),
      };
    }
  } finally {
    await handle.close();
  }
  if (startsWith(head, 'PK\x03\x04') || startsWith(head, 'PK\x05\x06')) return detectZip(path);
  if (startsWith(head, '{\\rtf')) return result('rtf');
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return result('png');
  if (startsWith(head, [0xff, 0xd8, 0xff])) return result('jpeg');
  if (startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')) return result('gif');
  if (startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8)) return result('webp');
  const text = decodeUtf8Head(head, size > head.length);
  if (text === undefined) return result('unknown');
  const html = htmlShape(text);
  if (html === 'document') return { kind: 'text', mimeType: 'text/html', isHtml: true };
  return result('text', html === 'fragment' ? { isHtml: true } : {});
}

/**
 * Whether `accepted` (a format a tool takes) is satisfied by what was detected. Encrypted
 * OOXML (an OLE2 EncryptedPackage) matches docx/xlsx/pptx so that the safety check can ask for
 * the password to be removed; legacy doc/xls/ppt take OLE2 files of their application.
 */
export function kindMatches(accepted: AcceptedKind, detected: FileDetection | FileKind): boolean {
  const d: FileDetection = typeof detected === 'string' ? { kind: detected, mimeType: MIME[detected] } : detected;
  // An OLE2 file whose application is unknown (a damaged directory) gets the benefit of the doubt.
  const legacy = (type: OleType): boolean =>
    d.kind === 'ole2' && (d.oleType === undefined || d.oleType === 'other' || d.oleType === type);
  switch (accepted) {
    case 'docx':
    case 'xlsx':
    case 'pptx':
      return d.kind === accepted || (d.kind === 'ole2' && d.oleType === 'encrypted-ooxml');
    case 'doc':
      return legacy('doc');
    case 'xls':
      return legacy('xls');
    case 'ppt':
      return legacy('ppt');
    case 'txt':
    case 'md':
    case 'csv':
    case 'html':
      return d.kind === 'text';
    default:
      return d.kind === accepted;
  }
}

// ---------------------------------------------------------------- PDF

/** An `/Encrypt` entry (a reference or an inline dictionary) in the trailer or xref-stream dictionary. */
const PDF_ENCRYPT = /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/;

export async function pdfIsEncrypted(handle: FileHandle, head: Buffer, size: number): Promise<boolean> {
  if (PDF_ENCRYPT.test(head.toString('latin1'))) return true;
  if (size <= head.length) return false;
  const tailStart = Math.max(head.length, size - HEAD_BYTES);
  const tail = await readAt(handle, tailStart, size - tailStart);
  return PDF_ENCRYPT.test(tail.toString('latin1'));
}

// ---------------------------------------------------------------- ZIP family

const ODF_TYPES: Record<string, FileKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/epub+zip': 'epub',
};

function kindFromNames(names: ReadonlySet<string>): FileKind | undefined {
  if (!names.has('[Content_Types].xml')) return undefined;
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  return undefined;
}

function kindFromContentTypes(xml: string): FileKind | undefined {
  if (/wordprocessingml\.document\.main\+xml|ms-word\.(?:document|template)\.macroEnabled\.main\+xml/.test(xml)) return 'docx';
  if (/spreadsheetml\.sheet\.main\+xml|ms-excel\.sheet\.macroEnabled\.main\+xml/.test(xml)) return 'xlsx';
  if (/presentationml\.presentation\.main\+xml|ms-powerpoint\.presentation\.macroEnabled\.main\+xml/.test(xml)) return 'pptx';
  return undefined;
}

async function smallEntry(path: string, entry: ZipEntryInfo | undefined, max: number): Promise<string | undefined> {
  if (!entry || entry.encrypted) return undefined;
  try {
    return (await readEntry(path, entry, max)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** An ODF package is encrypted when its manifest carries encryption data for its parts. */
export function manifestIsEncrypted(manifest: string): boolean {
  return /<(?:\w+:)?encryption-data\b/.test(manifest);
}

async function detectZip(path: string): Promise<FileDetection> {
  let entries: ZipEntryInfo[];
  let corrupt = false;
  try {
    entries = (await listZipEntries(path)).entries;
  } catch {
    // No readable central directory (a truncated upload): guess from the local headers, so the
    // safety check can say "corrupt docx" rather than "not a docx".
    corrupt = true;
    entries = await scanLocalHeaders(path).catch(() => []);
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  const flags: Omit<FileDetection, 'kind' | 'mimeType'> = {};
  if (corrupt) flags.corrupt = true;
  if (entries.some((e) => e.encrypted)) flags.encrypted = true;

  let kind = kindFromNames(new Set(byName.keys()));
  if (!kind && byName.has('[Content_Types].xml')) {
    const types = await smallEntry(path, byName.get('[Content_Types].xml'), 1024 * 1024);
    if (types !== undefined) kind = kindFromContentTypes(types);
  }
  if (kind) {
    if (entries.some((e) => /(^|\/)vbaProject\.bin$/i.test(e.name))) flags.macros = true;
    return result(kind, flags);
  }
  const mimetype = await smallEntry(path, byName.get('mimetype'), 256);
  let odf = mimetype === undefined ? undefined : ODF_TYPES[mimetype.trim()];
  const hasManifest = byName.has('META-INF/manifest.xml');
  const manifest = (odf !== undefined && odf !== 'epub') || (odf === undefined && hasManifest) ? await smallEntry(path, byName.get('META-INF/manifest.xml'), 4 * 1024 * 1024) : undefined;
  if (odf === undefined && manifest !== undefined) {
    // The mimetype entry is optional in ODF: the manifest's entry for "/" says the same.
    const root = /<(?:\w+:)?file-entry\b[^>]*?(?:\w+:)?full-path="\/"[^>]*>/.exec(manifest)?.[0];
    const type = root === undefined ? undefined : /(?:\w+:)?media-type="([^"]*)"/.exec(root)?.[1];
    if (type !== undefined && type !== 'application/epub+zip') odf = ODF_TYPES[type];
  }
  if (odf) {
    if (manifest !== undefined && manifestIsEncrypted(manifest)) flags.encrypted = true;
    return result(odf, flags);
  }
  return result('zip', flags);
}

// ---------------------------------------------------------------- OLE2 (legacy Office, encrypted OOXML)

export interface OleInspection {
  type: OleType;
  encrypted: boolean;
  /** the directory could not be parsed; `type` and `encrypted` come from a byte scan */
  corrupt: boolean;
  /** names of the streams and storages in the directory */
  names: string[];
}

const FREESECT = 0xffffffff;
const ENDOFCHAIN = 0xfffffffe;
const MAX_SECTOR_ID = 0xfffffffa;

interface OleEntry {
  name: string;
  type: number;
  start: number;
  size: number;
  left: number;
  right: number;
  child: number;
}

/** The entries directly under the root storage: the red-black tree of the root's children. */
function rootChildren(entries: readonly (OleEntry | undefined)[]): OleEntry[] {
  const root = entries[0];
  if (!root || root.type !== 5) return [];
  const found: OleEntry[] = [];
  const seen = new Set<number>();
  const stack = [root.child];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id >= entries.length || seen.has(id)) continue;
    seen.add(id);
    const entry = entries[id];
    if (!entry) continue;
    found.push(entry);
    stack.push(entry.left, entry.right);
  }
  return found;
}

class OleReader {
  readonly #h: FileHandle;
  readonly #size: number;
  readonly sectorSize: number;
  readonly miniSectorSize: number;
  readonly miniCutoff: number;
  readonly #difat: number[] = [];
  readonly #fatCache = new Map<number, Buffer>();
  readonly #header: Buffer;
  #miniFat: number[] | undefined;
  #root: OleEntry | undefined;

  constructor(handle: FileHandle, size: number, header: Buffer) {
    this.#h = handle;
    this.#size = size;
    this.#header = header;
    const shift = header.readUInt16LE(0x1e);
    const miniShift = header.readUInt16LE(0x20);
    if (header.readUInt16LE(0x1c) !== 0xfffe) throw new Error('bad byte order mark');
    if (shift !== 9 && shift !== 12) throw new Error(`bad sector shift ${shift}`);
    if (miniShift !== 6) throw new Error(`bad mini sector shift ${miniShift}`);
    this.sectorSize = 1 << shift;
    this.miniSectorSize = 1 << miniShift;
    this.miniCutoff = header.readUInt32LE(0x38);
  }

  async init(): Promise<void> {
    for (let i = 0; i < 109; i++) {
      const s = this.#header.readUInt32LE(0x4c + i * 4);
      if (s > MAX_SECTOR_ID) break;
      this.#difat.push(s);
    }
    let next = this.#header.readUInt32LE(0x44);
    const perSector = this.sectorSize / 4 - 1;
    const seen = new Set<number>();
    while (next <= MAX_SECTOR_ID) {
      if (seen.has(next) || seen.size > 100_000) throw new Error('DIFAT chain loops');
      seen.add(next);
      const sector = await this.sector(next);
      for (let i = 0; i < perSector; i++) {
        const s = sector.readUInt32LE(i * 4);
        if (s <= MAX_SECTOR_ID) this.#difat.push(s);
      }
      next = sector.readUInt32LE(perSector * 4);
    }
  }

  async sector(id: number): Promise<Buffer> {
    const position = (id + 1) * this.sectorSize;
    if (id > MAX_SECTOR_ID || position >= this.#size) throw new Error(`sector ${id} lies outside the file`);
    const data = await readAt(this.#h, position, this.sectorSize);
    if (data.length === 0) throw new Error(`sector ${id} lies outside the file`);
    // The last sector of a file may be short; pad it.
    return data.length === this.sectorSize ? data : Buffer.concat([data, Buffer.alloc(this.sectorSize - data.length)]);
  }

  async fat(id: number): Promise<number> {
    const perSector = this.sectorSize / 4;
    const index = Math.floor(id / perSector);
    const fatSector = this.#difat[index];
    if (fatSector === undefined) throw new Error(`sector ${id} has no FAT entry`);
    let sector = this.#fatCache.get(index);
    if (!sector) {
      sector = await this.sector(fatSector);
      this.#fatCache.set(index, sector);
    }
    return sector.readUInt32LE((id % perSector) * 4);
  }

  /** The sector ids of the chain starting at `start`, at most `limit` of them. */
  async chain(start: number, limit: number): Promise<number[]> {
    const ids: number[] = [];
    const seen = new Set<number>();
    let id = start;
    while (id !== ENDOFCHAIN && ids.length < limit) {
      if (id > MAX_SECTOR_ID || seen.has(id)) throw new Error('broken sector chain');
      seen.add(id);
      ids.push(id);
      id = await this.fat(id);
    }
    return ids;
  }

  /** The directory, indexed by entry id (unused slots are undefined). */
  async directory(maxEntries = 100_000): Promise<(OleEntry | undefined)[]> {
    const first = this.#header.readUInt32LE(0x30);
    const ids = await this.chain(first, Math.ceil((maxEntries * 128) / this.sectorSize));
    const entries: (OleEntry | undefined)[] = [];
    for (const id of ids) {
      const sector = await this.sector(id);
      for (let p = 0; p + 128 <= sector.length; p += 128) {
        const type = sector.readUInt8(p + 0x42);
        if (type === 0) {
          entries.push(undefined);
          continue;
        }
        const nameLength = Math.min(64, sector.readUInt16LE(p + 0x40));
        const name = sector.subarray(p, p + Math.max(0, nameLength - 2)).toString('utf16le');
        const size = this.sectorSize === 512 ? sector.readUInt32LE(p + 0x78) : Number(sector.readBigUInt64LE(p + 0x78));
        entries.push({
          name,
          type,
          start: sector.readUInt32LE(p + 0x74),
          size,
          left: sector.readUInt32LE(p + 0x44),
          right: sector.readUInt32LE(p + 0x48),
          child: sector.readUInt32LE(p + 0x4c),
        });
      }
    }
    const root = entries[0];
    if (root?.type !== 5) throw new Error('the first directory entry is not the root');
    this.#root = root;
    return entries;
  }

  /** The first `length` bytes of a stream (or fewer, if it is shorter). */
  async streamPrefix(entry: OleEntry, length: number): Promise<Buffer> {
    const want = Math.min(length, entry.size);
    if (want <= 0) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    let got = 0;
    if (entry.size >= this.miniCutoff) {
      for (const id of await this.chain(entry.start, Math.ceil(want / this.sectorSize))) {
        parts.push(await this.sector(id));
        got += this.sectorSize;
      }
    } else {
      if (!this.#root) throw new Error('no root entry');
      const miniFat = await this.miniFat();
      let mini = entry.start;
      const seen = new Set<number>();
      while (got < want && mini !== ENDOFCHAIN) {
        if (mini > MAX_SECTOR_ID || seen.has(mini)) throw new Error('broken mini chain');
        seen.add(mini);
        const offset = mini * this.miniSectorSize;
        const rootIds = await this.chain(this.#root.start, Math.floor(offset / this.sectorSize) + 1);
        const sectorId = rootIds[Math.floor(offset / this.sectorSize)];
        if (sectorId === undefined) throw new Error('mini sector outside the mini stream');
        const sector = await this.sector(sectorId);
        const within = offset % this.sectorSize;
        parts.push(sector.subarray(within, within + this.miniSectorSize));
        got += this.miniSectorSize;
        mini = miniFat[mini] ?? ENDOFCHAIN;
      }
    }
    return Buffer.concat(parts).subarray(0, want);
  }

  async miniFat(): Promise<number[]> {
    if (this.#miniFat) return this.#miniFat;
    const first = this.#header.readUInt32LE(0x3c);
    const count = this.#header.readUInt32LE(0x40);
    const table: number[] = [];
    if (first <= MAX_SECTOR_ID) {
      for (const id of await this.chain(first, Math.min(count || 1, 4096))) {
        const sector = await this.sector(id);
        for (let p = 0; p < sector.length; p += 4) table.push(sector.readUInt32LE(p));
      }
    }
    this.#miniFat = table;
    return table;
  }
}

const UTF16_ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');

/** Reads the OLE2 directory: which application wrote the file and whether it is password protected. */
export async function inspectOle(handle: FileHandle, size: number): Promise<OleInspection> {
  try {
    const header = await readAt(handle, 0, 512);
    if (header.length < 512 || !header.subarray(0, 8).equals(OLE_SIGNATURE)) throw new Error('no OLE2 header');
    const reader = new OleReader(handle, size, header);
    await reader.init();
    const all = await reader.directory();
    // Only streams at the root say what the file is: an embedded object keeps its own
    // WordDocument or Workbook stream inside a sub-storage.
    const entries = rootChildren(all);
    const names = entries.map((e) => e.name);
    const find = (name: string) => entries.find((e) => e.type === 2 && e.name === name);

    if (find('EncryptedPackage')) return { type: 'encrypted-ooxml', encrypted: true, corrupt: false, names };

    const word = find('WordDocument');
    if (word) {
      // The FIB: wIdent, nFib, unused, lid, pnNext, then the flags word whose bit 8 is fEncrypted.
      const fib = await reader.streamPrefix(word, 32);
      const encrypted = fib.length >= 12 && (fib.readUInt16LE(0x0a) & 0x0100) !== 0;
      return { type: 'doc', encrypted, corrupt: false, names };
    }
    const book = find('Workbook') ?? find('Book');
    if (book) {
      // BIFF records: a FilePass record (0x002F) among the first ones of the globals substream.
      const prefix = await reader.streamPrefix(book, 4096);
      let encrypted = false;
      for (let p = 0; p + 4 <= prefix.length; ) {
        const type = prefix.readUInt16LE(p);
        if (type === 0x002f) encrypted = true;
        if (type === 0x002f || type === 0x000a || type === 0x0085) break;
        p += 4 + prefix.readUInt16LE(p + 2);
      }
      return { type: 'xls', encrypted, corrupt: false, names };
    }
    if (find('PowerPoint Document')) {
      // The CurrentUserAtom's header token says whether the document is encrypted.
      const current = find('Current User');
      let encrypted = find('EncryptedSummary') !== undefined;
      if (current) {
        const atom = await reader.streamPrefix(current, 16);
        if (atom.length >= 16 && atom.readUInt32LE(12) === 0xf3d1c4df) encrypted = true;
      }
      return { type: 'ppt', encrypted, corrupt: false, names };
    }
    return { type: 'other', encrypted: false, corrupt: false, names };
  } catch {
    // A damaged directory: fall back to looking for the stream name in the first few MB.
    const scan = await readAt(handle, 0, Math.min(size, 8 * 1024 * 1024));
    const encrypted = scan.includes(UTF16_ENCRYPTED_PACKAGE);
    return { type: encrypted ? 'encrypted-ooxml' : 'other', encrypted, corrupt: true, names: [] };
  }
}

/** `inspectOle` for a path. */
export async function inspectOleFile(path: string): Promise<OleInspection> {
  const handle = await open(path, 'r');
  try {
    return await inspectOle(handle, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------- text

/**
 * The head as text if it is valid UTF-8 without NUL bytes (a BOM is allowed). When the file goes
 * on past the head, a character cut at the boundary is not an error.
 */
export function decodeUtf8Head(head: Buffer, truncated: boolean): string | undefined {
  if (head.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: truncated });
  } catch {
    return undefined;
  }
}

const HTML_START = /^(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;
const HTML_TAG =
  /<(?:p|div|span|h[1-6]|br|hr|img|a|ul|ol|li|table|thead|tbody|tr|td|th|b|i|em|strong|pre|code|blockquote|section|article|header|footer|nav|main|form|input|meta|title|link|style|script|iframe|svg)(?:\s[^<>]*)?\/?>/i;

/** Whether text looks like HTML: a whole document (doctype, html/head/body first) or a fragment with HTML tags. */
export function htmlShape(text: string): 'document' | 'fragment' | undefined {
  let rest = text.replace(/^\uFEFF/, '');
  // Leading whitespace, an XML declaration and comments.
  for (;;) {
    const trimmed = rest.replace(/^\s+/, '');
    if (trimmed.startsWith('<!--')) {
      const end = trimmed.indexOf('-->');
      if (end < 0) return undefined;
      rest = trimmed.slice(end + 3);
    } else if (trimmed.startsWith('<?xml')) {
      const end = trimmed.indexOf('?>');
      if (end < 0) return undefined;
      rest = trimmed.slice(end + 2);
    } else {
      rest = trimmed;
      break;
    }
  }
  if (HTML_START.test(rest)) return 'document';
  return HTML_TAG.test(text) ? 'fragment' : undefined;
}
