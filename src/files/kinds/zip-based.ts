// ZIP and the formats built on it: OOXML (docx, xlsx, pptx, told apart by their main part or
// [Content_Types].xml), OpenDocument and EPUB (by the mimetype entry or the manifest), and any
// other ZIP. Detection reads the central directory (or, when it is unreadable, the local headers,
// so a truncated docx is still called a docx and refused as corrupt). The safety check inflates
// every entry under the one set of zip limits and refuses DTDs in XML parts (zip-safety.ts).
import { listZipEntries, readEntry, scanLocalHeaders, type ZipEntryInfo } from '../zip-inspect.ts';
import { assertZipSafe, manifestIsEncrypted } from '../zip-safety.ts';
import { defineContainer, sameKind, startsWith, type Detection, type DetectedKindSpec } from './container-definition.ts';

export { manifestIsEncrypted } from '../zip-safety.ts';

type ZipKind = 'docx' | 'xlsx' | 'pptx' | 'odt' | 'ods' | 'odp' | 'epub' | 'zip';

const MIME: Record<ZipKind, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  zip: 'application/zip',
};

function result(kind: ZipKind, extra: Omit<Detection, 'kind' | 'mimeType'> = {}): Detection<ZipKind> {
  return { kind, mimeType: MIME[kind], ...extra };
}

const ODF_TYPES: Record<string, ZipKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/epub+zip': 'epub',
};

function kindFromNames(names: ReadonlySet<string>): ZipKind | undefined {
  if (!names.has('[Content_Types].xml')) return undefined;
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  return undefined;
}

function kindFromContentTypes(xml: string): ZipKind | undefined {
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


async function detectZip(path: string): Promise<Detection<ZipKind>> {
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
  const flags: Omit<Detection, 'kind' | 'mimeType'> = {};
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


const NOUNS: Record<ZipKind, string> = {
  docx: 'Word document',
  xlsx: 'Excel workbook',
  pptx: 'PowerPoint presentation',
  odt: 'OpenDocument text',
  ods: 'OpenDocument spreadsheet',
  odp: 'OpenDocument presentation',
  epub: 'EPUB book',
  zip: 'ZIP archive',
};
const spec = (kind: ZipKind): DetectedKindSpec => ({ mimeType: MIME[kind], describedAs: kind === 'zip' ? 'a ZIP archive' : kind.toUpperCase(), noun: NOUNS[kind] });
/** OOXML formats also match their encrypted form (an OLE2 EncryptedPackage), so the safety check can ask for the password to be removed. */
const ooxml = (kind: ZipKind) => (d: Detection): boolean => d.kind === kind || (d.kind === 'ole2' && d.oleType === 'encrypted-ooxml');
const accepted = (kind: ZipKind, matches = sameKind(kind)) => ({ mimeType: MIME[kind], extensions: [kind], matches });
const ODF: ReadonlySet<ZipKind> = new Set(['odt', 'ods', 'odp']);

export const zipFiles = defineContainer({
  name: 'zip',
  detected: {
    docx: spec('docx'),
    xlsx: spec('xlsx'),
    pptx: spec('pptx'),
    odt: spec('odt'),
    ods: spec('ods'),
    odp: spec('odp'),
    epub: spec('epub'),
    zip: spec('zip'),
  },
  accepted: {
    docx: accepted('docx', ooxml('docx')),
    xlsx: accepted('xlsx', ooxml('xlsx')),
    pptx: accepted('pptx', ooxml('pptx')),
    odt: accepted('odt'),
    ods: accepted('ods'),
    odp: accepted('odp'),
    epub: accepted('epub'),
    zip: accepted('zip'),
  },
  detect({ path, head }) {
    return startsWith(head, 'PK\x03\x04') || startsWith(head, 'PK\x05\x06') ? detectZip(path) : undefined;
  },
  assertSafe(path, kind, limits): Promise<void> {
    return assertZipSafe(path, {
      noun: NOUNS[kind],
      // EPUB's XHTML may name the W3C DTDs; a plain ZIP holds anything, its parts are not sniffed.
      strictXml: kind !== 'epub',
      sniffMarkup: kind !== 'zip',
      odfManifest: ODF.has(kind),
    }, limits);
  },
});
