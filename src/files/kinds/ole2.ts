// OLE2 compound files: legacy Word, Excel and PowerPoint (doc, xls, ppt), and the container a
// password-protected docx/xlsx/pptx travels in (an EncryptedPackage stream). The directory is read
// to say which application wrote the file and whether it is encrypted; a damaged directory falls
// back to a byte scan and is refused as corrupt by the safety check.
import { readAt } from '../zip-inspect.ts';
import { defineContainer, startsWith, type Detection, type OleType } from './container-definition.ts';
import { corrupt, encrypted } from './safety-errors.ts';
import { openForReading, type ReadableFile } from '../file-reader.ts';

export const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const OLE_MIME: Record<OleType, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  'encrypted-ooxml': 'application/x-ole-storage',
  other: 'application/x-ole-storage',
};

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
  readonly #h: ReadableFile;
  readonly #size: number;
  readonly sectorSize: number;
  readonly miniSectorSize: number;
  readonly miniCutoff: number;
  readonly #difat: number[] = [];
  readonly #fatCache = new Map<number, Buffer>();
  readonly #header: Buffer;
  #miniFat: number[] | undefined;
  #root: OleEntry | undefined;

  constructor(handle: ReadableFile, size: number, header: Buffer) {
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
export async function inspectOle(handle: ReadableFile, size: number): Promise<OleInspection> {
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
  const handle = await openForReading(path);
  try {
    return await inspectOle(handle, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

/** A legacy file of `type`'s application; an OLE2 file whose application is unknown (a damaged directory) gets the benefit of the doubt. */
const legacy = (type: OleType) => (d: Detection): boolean => d.kind === 'ole2' && (d.oleType === undefined || d.oleType === 'other' || d.oleType === type);

export const ole2Files = defineContainer({
  name: 'ole2',
  detected: {
    ole2: { mimeType: 'application/x-ole-storage', describedAs: 'a legacy Office (OLE2) file', noun: 'Office document' },
  },
  accepted: {
    doc: { mimeType: 'application/msword', extensions: ['doc'], matches: legacy('doc') },
    xls: { mimeType: 'application/vnd.ms-excel', extensions: ['xls'], matches: legacy('xls') },
    ppt: { mimeType: 'application/vnd.ms-powerpoint', extensions: ['ppt'], matches: legacy('ppt') },
  },
  async detect({ handle, head, size }): Promise<Detection<'ole2'> | undefined> {
    if (!startsWith(head, OLE_SIGNATURE)) return undefined;
    const ole = await inspectOle(handle, size);
    return {
      kind: 'ole2',
      mimeType: OLE_MIME[ole.type],
      oleType: ole.type,
      ...(ole.encrypted ? { encrypted: true } : {}),
      ...(ole.corrupt ? { corrupt: true } : {}),
    };
  },
  async assertSafe(path) {
    const ole = await inspectOleFile(path);
    if (ole.type === 'encrypted-ooxml') {
      throw encrypted('The file is an OLE2 container holding an EncryptedPackage stream: a password-protected docx, xlsx or pptx');
    }
    if (ole.encrypted) {
      const what = ole.type === 'doc' ? 'Word' : ole.type === 'xls' ? 'Excel' : ole.type === 'ppt' ? 'PowerPoint' : 'Office';
      throw encrypted(`The legacy ${what} file is marked as encrypted`);
    }
    if (ole.corrupt) throw corrupt('Office document', 'The OLE2 directory cannot be read: the sector chains are broken or point past the end of the file');
  },
});
