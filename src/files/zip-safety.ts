// The safety check of ZIP-based files (OOXML, OpenDocument, EPUB, plain ZIP), before any engine
// opens one: the entry count, the declared and the actual inflated sizes and ratios (under the
// one set of zip limits, zip-limits.ts), overlapping entries, encrypted entries and packages, and
// DTDs or entities in XML parts (the XXE defence: OOXML and ODF never need one). Every refusal is
// a 422 with its own code and a detail naming the part at fault.
import type { ServiceError } from '../core/errors.ts';
import { bomb, corrupt, encrypted, formatBytes, unsafe } from './kinds/safety-errors.ts';
import { isZipError, listZipEntries, streamEntry, type ZipDirectory, type ZipEntryInfo } from './zip-inspect.ts';
import type { ZipSafetyLimits } from './zip-limits.ts';

/** What the check needs to know of the kind it is checking. */
export interface ZipSafetyKind {
  /** names the file in a corrupt_document message: "Word document" */
  noun: string;
  /** XML parts may not even name a W3C DTD (all but EPUB, whose XHTML may) */
  strictXml: boolean;
  /** parts with other names are sniffed for markup and checked too (all but a plain ZIP) */
  sniffMarkup: boolean;
  /** an OpenDocument package: its manifest says whether it is encrypted */
  odfManifest: boolean;
}

/** An ODF package is encrypted when its manifest carries encryption data for its parts. */
export function manifestIsEncrypted(manifest: string): boolean {
  return /<(?:\w+:)?encryption-data\b/.test(manifest);
}

/** Parts that are XML by name: in OOXML and ODF they never need a DTD. */
const XML_PART = /\.(?:xml|rels|vml|rdf)$/i;
/** Parts that may carry a DOCTYPE naming a W3C DTD (XHTML, SVG), as may any part that only looks like markup. */
const MARKUP_PART = /\.(?:xhtml|html?|opf|ncx|svg)$/i;
/** How much of a part is looked at to decide whether it is markup. */
const SNIFF_BYTES = 1024;

/** Whether content starts (after a BOM and whitespace) with `<`, in UTF-8 or UTF-16. */
export function looksLikeMarkup(head: Buffer): boolean {
  let text: string;
  if (head[0] === 0xfe && head[1] === 0xff) text = Buffer.from(head.subarray(2, head.length - (head.length % 2))).swap16().toString('utf16le');
  else if (head[0] === 0xff && head[1] === 0xfe) text = head.subarray(2).toString('utf16le');
  else if (head[0] === 0 && head[1] !== 0) text = Buffer.from(head.subarray(0, head.length - (head.length % 2))).swap16().toString('utf16le');
  else if (head[0] !== 0 && head[1] === 0) text = head.toString('utf16le');
  else text = head.toString('latin1').replace(/^\xEF\xBB\xBF/, '');
  return /^\s*</.test(text);
}

export async function assertZipSafe(path: string, kind: ZipSafetyKind, l: ZipSafetyLimits): Promise<void> {
  let directory: ZipDirectory;
  try {
    directory = await listZipEntries(path, { maxEntries: l.maxEntries });
  } catch (error) {
    if (!isZipError(error)) throw error;
    if (error.code === 'too_many_entries') throw bomb(`${error.message}`);
    if (error.code === 'too_large') throw bomb(error.message);
    throw corrupt(kind.noun, `The central directory cannot be read: ${error.message}`);
  }
  const entries = directory.entries.filter((e) => !e.isDirectory);

  const locked = entries.find((e) => e.encrypted);
  if (locked) throw encrypted(`The archive entry "${locked.name}" is encrypted`);

  // Entries sharing their data (the overlapping-file bomb) cannot happen in a real package.
  const ordered = [...directory.entries].sort((x, y) => x.localHeaderOffset - y.localHeaderOffset);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    const current = ordered[i]!;
    if (previous.localHeaderOffset + 30 + previous.compressedSize > current.localHeaderOffset) {
      throw bomb(`The entries ${previous.name} and ${current.name} overlap in the archive`);
    }
  }

  let declared = 0;
  for (const entry of entries) {
    declared += entry.uncompressedSize;
    if (entry.uncompressedSize > l.ratioFloorBytes && entry.uncompressedSize > l.maxRatio * Math.max(1, entry.compressedSize)) {
      const ratio = Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize));
      throw bomb(`${entry.name} declares ${formatBytes(entry.uncompressedSize)} from ${formatBytes(entry.compressedSize)} (ratio ${ratio}:1, the limit is ${l.maxRatio}:1)`);
    }
    if (entry.uncompressedSize > l.maxPartBytes) {
      throw bomb(`${entry.name} declares ${formatBytes(entry.uncompressedSize)}; one part may hold at most ${formatBytes(l.maxPartBytes)}`);
    }
  }
  if (declared > l.maxUncompressedBytes) {
    throw bomb(`The entries declare ${formatBytes(declared)} uncompressed in total; the limit is ${formatBytes(l.maxUncompressedBytes)}`);
  }

  const byName = new Map(entries.map((e) => [e.name, e]));
  if (kind.odfManifest) {
    const manifest = byName.get('META-INF/manifest.xml');
    if (manifest) {
      const text = await readPart(path, manifest, Math.min(l.maxPartBytes, l.maxUncompressedBytes), kind, l);
      if (manifestIsEncrypted(text.toString('utf8'))) {
        throw encrypted('META-INF/manifest.xml lists encryption data: the OpenDocument file is protected with a password');
      }
    }
  }

  // Inflate everything, counting what actually comes out: declared sizes can lie. XML parts,
  // and any part whose content looks like markup (a main part may have any name), are checked
  // for DTDs.
  let total = 0;
  for (const entry of entries) {
    const remaining = l.maxUncompressedBytes - total;
    const cap = Math.min(l.maxPartBytes, remaining);
    const strict = kind.strictXml && XML_PART.test(entry.name);
    const named = strict || MARKUP_PART.test(entry.name);
    let chunks: Buffer[] | undefined = kind.sniffMarkup ? [] : undefined;
    let held = 0;
    let decided = !kind.sniffMarkup || named;
    const produced = await scanPart(path, entry, cap, kind, l, total, (chunk) => {
      if (!chunks) return;
      chunks.push(chunk);
      held += chunk.length;
      if (!decided && held >= SNIFF_BYTES) {
        decided = true;
        if (!looksLikeMarkup(Buffer.concat(chunks).subarray(0, SNIFF_BYTES))) chunks = undefined;
      }
    });
    total += produced;
    if (!chunks) continue;
    const data = Buffer.concat(chunks);
    if (!decided && !looksLikeMarkup(data)) continue;
    checkMarkup(entry.name, data, !strict);
  }
}

function partTooLarge(entry: ZipEntryInfo, cap: number, l: ZipSafetyLimits, before: number): ServiceError {
  if (cap < l.maxPartBytes) {
    return bomb(`${entry.name} takes the inflated total past ${formatBytes(l.maxUncompressedBytes)} (${formatBytes(before)} before it)`);
  }
  return bomb(`${entry.name} inflates past ${formatBytes(cap)}`);
}

function ratioGuard(entry: ZipEntryInfo, l: ZipSafetyLimits): (produced: number) => void {
  const limit = Math.max(l.ratioFloorBytes, l.maxRatio * Math.max(1, entry.compressedSize));
  return (produced) => {
    if (produced > limit) {
      throw bomb(`${entry.name} inflates to more than ${formatBytes(limit)} from ${formatBytes(entry.compressedSize)} (the ratio limit is ${l.maxRatio}:1)`);
    }
  };
}

function mapZipError(error: unknown, entry: ZipEntryInfo, cap: number, kind: ZipSafetyKind, l: ZipSafetyLimits, before: number): unknown {
  if (!isZipError(error)) return error;
  switch (error.code) {
    case 'too_large':
      return partTooLarge(entry, cap, l, before);
    case 'encrypted':
      return encrypted(`The archive entry "${entry.name}" is encrypted`);
    case 'unsupported_method':
      return corrupt(kind.noun, error.message);
    default:
      return corrupt(kind.noun, `${entry.name}: ${error.message}`);
  }
}

async function readPart(path: string, entry: ZipEntryInfo, cap: number, kind: ZipSafetyKind, l: ZipSafetyLimits, before = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await scanPart(path, entry, cap, kind, l, before, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

async function scanPart(
  path: string,
  entry: ZipEntryInfo,
  cap: number,
  kind: ZipSafetyKind,
  l: ZipSafetyLimits,
  before: number,
  onChunk: (chunk: Buffer) => void = () => {},
): Promise<number> {
  const guard = ratioGuard(entry, l);
  let produced = 0;
  try {
    return await streamEntry(path, entry, cap, (chunk) => {
      produced += chunk.length;
      guard(produced);
      onChunk(chunk);
    });
  } catch (error) {
    throw mapZipError(error, entry, cap, kind, l, before);
  }
}

// ---------------------------------------------------------------- XML

const ALLOWED_ENCODINGS = /^(?:utf-?8|utf-?16(?:le|be)?|us-ascii|ascii|iso-?8859-\d{1,2}|latin-?1|windows-125\d|cp125\d)$/i;

/** The part as text, or a reason it cannot be read safely as ASCII-compatible or UTF-16 XML. */
export function decodeXml(data: Buffer): { text: string } | { problem: string } {
  const b = (i: number): number => data[i] ?? -1;
  if (b(0) === 0 && b(1) === 0) return { problem: 'is encoded in UTF-32' };
  if (b(2) === 0 && b(3) === 0 && ((b(0) === 0xff && b(1) === 0xfe) || (b(0) === 0x3c && b(1) === 0))) return { problem: 'is encoded in UTF-32' };
  if (b(0) === 0x4c && b(1) === 0x6f && b(2) === 0xa7 && b(3) === 0x94) return { problem: 'is encoded in EBCDIC' };
  if ((b(0) === 0xff && b(1) === 0xfe) || (b(0) === 0x3c && b(1) === 0)) {
    return { text: data.toString('utf16le') };
  }
  if ((b(0) === 0xfe && b(1) === 0xff) || (b(0) === 0 && b(1) === 0x3c)) {
    const swapped = Buffer.from(data.subarray(0, data.length - (data.length % 2)));
    swapped.swap16();
    return { text: swapped.toString('utf16le') };
  }
  const text = data.toString('latin1');
  const declaration = /^(?:\xEF\xBB\xBF)?<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(text.slice(0, 512));
  if (declaration?.[1] !== undefined && !ALLOWED_ENCODINGS.test(declaration[1])) {
    return { problem: `declares the encoding "${declaration[1]}"` };
  }
  return { text };
}

/** A DOCTYPE that only names a W3C DTD (XHTML, SVG), with no internal subset. */
const HARMLESS_DOCTYPE = /^<!DOCTYPE\s+[\w:.-]+(?:\s+PUBLIC\s+("[^"]*"|'[^']*')(?:\s+("|')https?:\/\/www\.w3\.org\/[^"'<>]*\2)?|\s+SYSTEM\s+("|')https?:\/\/www\.w3\.org\/[^"'<>]*\3)?\s*>/i;

function checkMarkup(name: string, data: Buffer, allowW3cDoctype: boolean): void {
  const decoded = decodeXml(data);
  if ('problem' in decoded) throw unsafe(`${name} ${decoded.problem}; only UTF-8, UTF-16 and ASCII-compatible encodings are accepted`);
  const text = decoded.text;
  if (/<!ENTITY/i.test(text)) throw unsafe(`${name} declares an entity (<!ENTITY): external entities are not allowed`);
  const doctype = /<!DOCTYPE/i.exec(text);
  if (doctype) {
    if (allowW3cDoctype && HARMLESS_DOCTYPE.test(text.slice(doctype.index, doctype.index + 1024))) {
      if (!/<!DOCTYPE/i.test(text.slice(doctype.index + 9))) return;
    }
    throw unsafe(`${name} declares a DTD (<!DOCTYPE): documents of this kind never need one, and it could load external entities`);
  }
}
