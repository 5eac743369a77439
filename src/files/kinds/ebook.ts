// Ebooks that are not zips (EPUB is, see zip-based.ts): MOBI and AZW3 are Palm databases of type
// BOOK/MOBI, told apart by the MOBI header's file version (8 is KF8, sold as AZW3; older ones and
// joint KF7/KF8 files are MOBI); FB2 is an XML document whose root is <FictionBook>.
// Safety: a Palm database whose record list points past the end of the file was cut short, and so
// was an FB2 that does not end with its root's end tag (calibre reads both leniently and would
// convert what is left). FB2 never needs a DOCTYPE: one is refused, so no entity is ever expanded.
import { readAt } from '../zip-inspect.ts';
import { defineContainer, sameKind, type HeadProbe } from './container-definition.ts';
import { corrupt, unsafe } from './safety-errors.ts';
import { openForReading } from '../file-reader.ts';

export type EbookKind = 'mobi' | 'azw3' | 'fb2';

const MIME: Record<EbookKind, string> = {
  mobi: 'application/x-mobipocket-ebook',
  azw3: 'application/vnd.amazon.ebook',
  fb2: 'application/x-fictionbook+xml',
};
const NOUN: Record<EbookKind, string> = { mobi: 'MOBI ebook', azw3: 'AZW3 ebook', fb2: 'FB2 ebook' };

const PALM_HEADER = 78;

async function palmKind({ handle, head, size }: HeadProbe): Promise<'mobi' | 'azw3' | undefined> {
  if (head.length < PALM_HEADER + 8 || head.toString('latin1', 60, 68) !== 'BOOKMOBI') return undefined;
  const record0 = head.readUInt32BE(PALM_HEADER);
  const mobi = record0 + 48 <= head.length ? head.subarray(record0, record0 + 48) : record0 < size ? await readAt(handle, record0, Math.min(48, size - record0)) : Buffer.alloc(0);
  // Record 0: the 16-byte PalmDOC header, then "MOBI", its length, type, encoding, id, version.
  if (mobi.length < 40 || mobi.toString('latin1', 16, 20) !== 'MOBI') return 'mobi';
  return mobi.readUInt32BE(36) === 8 ? 'azw3' : 'mobi';
}

/** XML whose root element is FictionBook (a BOM, the declaration, comments and a DOCTYPE may come first). */
function isFb2(head: Buffer): boolean {
  const text = head.toString('utf8', 0, Math.min(head.length, 4096)).replace(/^\uFEFF/, '');
  return /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>\s*)*<([\w.-]+:)?FictionBook[\s>]/.test(text);
}

/** Why a MOBI/AZW3 file looks cut short, or null. */
export async function palmDatabaseTruncation(path: string): Promise<string | null> {
  const handle = await openForReading(path);
  try {
    const size = (await handle.stat()).size;
    const header = await readAt(handle, 0, Math.min(size, PALM_HEADER));
    if (header.length < PALM_HEADER) return 'The file ends inside its Palm database header';
    const records = header.readUInt16BE(76);
    const list = await readAt(handle, PALM_HEADER, Math.min(records * 8, Math.max(0, size - PALM_HEADER)));
    if (list.length < records * 8) return 'The file ends inside its record list';
    for (let i = 0; i < records; i++) {
      const offset = list.readUInt32BE(i * 8);
      if (offset >= size) return `Record ${i + 1} of ${records} starts at byte ${offset}, past the end of the file (${size} bytes)`;
    }
    return null;
  } finally {
    await handle.close();
  }
}

/** Why an FB2 document is refused (cut short, or a DOCTYPE), or null. */
export async function fb2Problem(path: string): Promise<{ cut: boolean; detail: string } | null> {
  const handle = await openForReading(path);
  try {
    const size = (await handle.stat()).size;
    const head = await readAt(handle, 0, Math.min(size, 64 * 1024));
    if (/<!DOCTYPE|<!ENTITY/i.test(head.toString('latin1'))) return { cut: false, detail: 'The FB2 document declares a DOCTYPE or entities; FictionBook needs neither' };
    const tail = await readAt(handle, Math.max(0, size - 256), Math.min(size, 256));
    if (!/<\/([\w.-]+:)?FictionBook\s*>\s*$/.test(tail.toString('latin1'))) return { cut: true, detail: 'The document does not end with </FictionBook>' };
    return null;
  } finally {
    await handle.close();
  }
}

export const ebookFiles = defineContainer({
  name: 'ebook',
  detected: {
    mobi: { mimeType: MIME.mobi, describedAs: 'MOBI ebook', noun: NOUN.mobi },
    azw3: { mimeType: MIME.azw3, describedAs: 'AZW3 (Kindle KF8) ebook', noun: NOUN.azw3 },
    fb2: { mimeType: MIME.fb2, describedAs: 'FB2 (FictionBook) ebook', noun: NOUN.fb2 },
  },
  accepted: {
    mobi: { mimeType: MIME.mobi, extensions: ['mobi', 'prc'], matches: sameKind('mobi') },
    azw3: { mimeType: MIME.azw3, extensions: ['azw3', 'azw'], matches: sameKind('azw3') },
    fb2: { mimeType: MIME.fb2, extensions: ['fb2'], matches: sameKind('fb2') },
  },
  async detect(probe) {
    const palm = await palmKind(probe);
    if (palm !== undefined) return { kind: palm, mimeType: MIME[palm] };
    if (isFb2(probe.head)) return { kind: 'fb2', mimeType: MIME.fb2 };
    return undefined;
  },
  async assertSafe(path, kind) {
    if (kind === 'fb2') {
      const problem = await fb2Problem(path);
      if (problem !== null) throw problem.cut ? corrupt(NOUN.fb2, problem.detail) : unsafe(problem.detail);
      return;
    }
    const cut = await palmDatabaseTruncation(path);
    if (cut !== null) throw corrupt(NOUN[kind], cut);
  },
});
