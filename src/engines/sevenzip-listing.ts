// Reads 7-Zip's technical listing (`7zz l -slt`) into entries. 7-Zip prints the same fields for
// every format it reads, but fills different ones: tar has `Mode`, `Symbolic Link`, `Hard Link`
// and the type flag in `Characteristics`; zip and 7z have `Attributes` (Windows letters, then the
// Unix mode when the archive carries one) and 7z a `Block` per solid block. This parser only
// turns text into data; archive-entry-policy.ts judges it.

export type ArchiveEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket';

export interface ArchiveEntry {
  /** the path as stored (7-Zip shows backslashes of Windows archives as slashes) */
  path: string;
  type: ArchiveEntryType;
  /** uncompressed bytes (for a symlink: the length of its target) */
  size: number;
  /** compressed bytes; 0 when the format does not say per entry (7z solid blocks, tar links) */
  packedSize: number;
  encrypted: boolean;
  /** symlink or hard-link target, when the listing shows it (tar shows both; zip and 7z neither) */
  linkTarget: string | null;
  /** 7z: the solid block the entry belongs to (its packed size is on the block's first entry) */
  block: number | null;
  /** Unix permission string when stored, e.g. `-rw-r--r--` */
  mode: string | null;
}

export interface ArchiveListing {
  /** 7-Zip's name of the format: `zip`, `7z`, `tar`, `gzip` ... */
  type: string;
  /** bytes of the archive itself */
  physicalSize: number;
  /** where the archive starts in the file; not 0 means something else comes first (a polyglot, a self-extractor) */
  offset: number;
  /** bytes after the archive's end that belong to no entry */
  tailSize: number;
  entries: ArchiveEntry[];
  /** errors and warnings 7-Zip printed (headers error, unexpected end, wrong password) */
  errors: string[];
}

const ERROR_LINE = /^(ERRORS|ERROR|WARNINGS|WARNING|Open WARNING|Open ERROR):\s*(.*)$/;

function parseBlocks(text: string): { head: Map<string, string>[]; items: Map<string, string>[]; errors: string[] } {
  const head: Map<string, string>[] = [];
  const items: Map<string, string>[] = [];
  const errors: string[] = [];
  let inItems = false;
  let current: Map<string, string> | null = null;
  let lastErrorHeader = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const error = ERROR_LINE.exec(line);
    if (error) {
      errors.push(line);
      lastErrorHeader = error[2] === '';
      continue;
    }
    if (line === '----------') {
      inItems = true;
      current = null;
      continue;
    }
    if (line === '' || line === '--') {
      current = null;
      lastErrorHeader = false;
      continue;
    }
    const at = line.indexOf(' = ');
    const bare = line.endsWith(' =') ? line.length - 2 : -1;
    if (at < 0 && bare < 0) {
      // The lines under "ERRORS:" name the problem ("Headers Error", "Unexpected end of archive").
      if (lastErrorHeader) errors.push(line.trim());
      continue;
    }
    const key = line.slice(0, at >= 0 ? at : bare);
    const value = at >= 0 ? line.slice(at + 3) : '';
    if (current === null) {
      current = new Map();
      (inItems ? items : head).push(current);
    }
    current.set(key, value);
  }
  return { head, items, errors };
}

function integer(value: string | undefined): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}

/** The Unix mode string inside `Attributes` ("A -rw-r--r--", "D drwxr-xr-x") or `Mode`. */
function unixMode(fields: Map<string, string>): string | null {
  const mode = fields.get('Mode')?.trim();
  if (mode && /^[-dlcbps]/.test(mode)) return mode;
  const match = /([-dlcbps][-rwxsStT]{9})/.exec(fields.get('Attributes') ?? '');
  return match?.[1] ?? null;
}

function entryType(fields: Map<string, string>, mode: string | null): ArchiveEntryType {
  if ((fields.get('Hard Link') ?? '') !== '') return 'hardlink';
  // tar's type flag leads `Characteristics`: 1 hard link, 2 symlink, 3/4 device, 5 directory, 6 fifo.
  const flag = fields.get('Characteristics')?.trim().split(' ')[0];
  if (flag === '1') return 'hardlink';
  if (flag === '2' || (fields.get('Symbolic Link') ?? '') !== '') return 'symlink';
  if (flag === '3' || flag === '4') return 'device';
  if (flag === '6') return 'fifo';
  switch (mode?.[0]) {
    case 'd':
      return 'directory';
    case 'l':
      return 'symlink';
    case 'c':
    case 'b':
      return 'device';
    case 'p':
      return 'fifo';
    case 's':
      return 'socket';
    default:
      break;
  }
  if (fields.get('Folder') === '+' || /^D/.test(fields.get('Attributes') ?? '')) return 'directory';
  return 'file';
}

export function parseSevenZipListing(text: string): ArchiveListing {
  const { head, items, errors } = parseBlocks(text);
  // The last head block describes the innermost archive 7-Zip opened (the first is the file).
  const archive = head.findLast((block) => block.has('Type')) ?? new Map<string, string>();
  const entries = items
    .filter((fields) => fields.has('Path'))
    .map((fields): ArchiveEntry => {
      const mode = unixMode(fields);
      const type = entryType(fields, mode);
      const link = fields.get('Symbolic Link') || fields.get('Hard Link') || '';
      return {
        path: fields.get('Path')!,
        type,
        size: integer(fields.get('Size')),
        packedSize: integer(fields.get('Packed Size')),
        encrypted: fields.get('Encrypted') === '+',
        linkTarget: link === '' ? null : link,
        block: fields.has('Block') && fields.get('Block') !== '' ? integer(fields.get('Block')) : null,
        mode,
      };
    });
  return {
    type: archive.get('Type') ?? 'unknown',
    physicalSize: integer(archive.get('Physical Size')),
    offset: integer(archive.get('Offset')),
    tailSize: integer(archive.get('Tail Size')),
    entries,
    errors,
  };
}
