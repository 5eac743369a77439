// Fixtures built by code (no committed binaries): ZIP-based Office and OpenDocument files, a
// decompression bomb, an XXE docx, OLE2 containers, PDFs, RTF and small images.
import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';

// ---------------------------------------------------------------- ZIP

export interface FixtureZipEntry {
  name: string;
  data: string | Buffer;
  /** 0 = stored, 8 = deflate (the default) */
  method?: 0 | 8;
  /** Already-deflated data and what it inflates to, for entries too large to build in memory (a bomb). */
  precompressed?: { data: Buffer; crc32: number; size: number };
  /** Lie in the central directory and local header about the uncompressed size. */
  declaredSize?: number;
  /** Set the "encrypted" flag (the data is not actually encrypted). */
  encryptedFlag?: boolean;
}

export interface FixtureZipOptions {
  /** Write every size and offset in ZIP64 extra fields, with a ZIP64 end record and locator. */
  zip64?: boolean;
  /** The archive comment (after the end record). */
  comment?: string;
  /** Bytes before the archive (a self-extractor stub); offsets stay relative to the archive. */
  prefix?: Buffer;
}

/** A correct ZIP archive (UTF-8 names, fixed timestamp). */
export function zip(entries: readonly FixtureZipEntry[], options: FixtureZipOptions = {}): Buffer {
  const z64 = options.zip64 === true;
  const SAT = 0xffffffff;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    let method: number;
    let body: Buffer;
    let crc: number;
    let size: number;
    if (entry.precompressed) {
      method = 8;
      body = entry.precompressed.data;
      crc = entry.precompressed.crc32;
      size = entry.precompressed.size;
    } else {
      const raw = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
      method = entry.method ?? 8;
      body = method === 8 ? deflateRawSync(raw) : raw;
      crc = crc32(raw);
      size = raw.length;
    }
    const declared = entry.declaredSize ?? size;
    const flags = 0x0800 | (entry.encryptedFlag ? 0x1 : 0);
    const version = z64 ? 45 : 20;

    let localExtra = Buffer.alloc(0);
    let centralExtra = Buffer.alloc(0);
    if (z64) {
      localExtra = Buffer.alloc(20);
      localExtra.writeUInt16LE(0x0001, 0);
      localExtra.writeUInt16LE(16, 2);
      localExtra.writeBigUInt64LE(BigInt(declared), 4);
      localExtra.writeBigUInt64LE(BigInt(body.length), 12);
      centralExtra = Buffer.alloc(28);
      centralExtra.writeUInt16LE(0x0001, 0);
      centralExtra.writeUInt16LE(24, 2);
      centralExtra.writeBigUInt64LE(BigInt(declared), 4);
      centralExtra.writeBigUInt64LE(BigInt(body.length), 12);
      centralExtra.writeBigUInt64LE(BigInt(offset), 20);
    }

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(version, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(z64 ? SAT : body.length, 18);
    local.writeUInt32LE(z64 ? SAT : declared, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    locals.push(local, name, localExtra, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0300 | version, 4); // made by: Unix
    central.writeUInt16LE(version, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(z64 ? SAT : body.length, 20);
    central.writeUInt32LE(z64 ? SAT : declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(centralExtra.length, 30);
    central.writeUInt32LE(0o100644 * 0x10000, 38);
    central.writeUInt32LE(z64 ? SAT : offset, 42);
    centrals.push(central, name, centralExtra);
    offset += local.length + name.length + localExtra.length + body.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const tail: Buffer[] = [];
  if (z64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(centralSize), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + centralSize), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const comment = Buffer.from(options.comment ?? '', 'utf8');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(z64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(z64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(z64 ? SAT : centralSize, 12);
  end.writeUInt32LE(z64 ? SAT : offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([options.prefix ?? Buffer.alloc(0), ...locals, ...centrals, ...tail, end, comment]);
}

/**
 * The overlapping-file bomb: one deflated local entry of `megabytes` MB of spaces, and `copies`
 * central-directory entries (word/part<i>.xml) that all point at it, next to a [Content_Types].xml
 * and word/document.xml so that it types as a docx.
 */
export function overlappingDocx(copies = 10, megabytes = 1): Buffer {
  const base = docxParts(`${XML_DECL}<w:document xmlns:w="${W}"><w:body/></w:document>`, undefined);
  const shared = Buffer.alloc(megabytes * 1024 * 1024, 0x20);
  const archive = zip([...base, { name: 'word/part.xml', data: shared }]);
  // Find the shared entry's central header and repeat it under new names.
  const eocd = archive.length - 22;
  const cdOffset = archive.readUInt32LE(eocd + 16);
  let p = cdOffset;
  for (let i = 0; i < base.length; i++) p += 46 + archive.readUInt16LE(p + 28) + archive.readUInt16LE(p + 30);
  const header = archive.subarray(p, eocd);
  const fixed = header.subarray(0, 46);
  const copiesCd = Array.from({ length: copies }, (_, i) => {
    const name = Buffer.from(`word/part${i}.xml`);
    const h = Buffer.from(fixed);
    h.writeUInt16LE(name.length, 28);
    return Buffer.concat([h, name]);
  });
  const cd = Buffer.concat([archive.subarray(cdOffset, p), header, ...copiesCd]);
  const end = Buffer.from(archive.subarray(eocd));
  const count = base.length + 1 + copies;
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(cd.length, 12);
  return Buffer.concat([archive.subarray(0, cdOffset), cd, end]);
}

/** The first `keepBytes` bytes, as an upload cut short would leave them. */
export function truncated(buffer: Buffer, keepBytes: number): Buffer {
  return Buffer.from(buffer.subarray(0, keepBytes));
}

export const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';

function relationships(items: readonly string[]): string {
  return `${XML_DECL}<Relationships xmlns="${PKG_RELS}">${items.join('')}</Relationships>`;
}

function rel(id: string, type: string, target: string, external = false): string {
  return `<Relationship Id="${id}" Type="${DOC_RELS}/${type}" Target="${escapeXml(target)}"${external ? ' TargetMode="External"' : ''}/>`;
}

// ---------------------------------------------------------------- DOCX

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

export interface DocxOptions {
  /** Inserted between the XML declaration and <w:document> (e.g. a DOCTYPE). */
  extraDocumentXmlPrefix?: string;
  /** Raw <Relationship .../> elements for word/_rels/document.xml.rels. */
  relationships?: string;
  /** Raw WordprocessingML appended to the body (e.g. runs using `relationships`). */
  extraBodyXml?: string;
  /** A picture linked (not embedded) from this URL, with TargetMode="External". */
  linkedImageUrl?: string;
  /** A hyperlink to this URL, with TargetMode="External". */
  hyperlinkUrl?: string;
  /** A field that includes the text found at this URL (INCLUDETEXT). */
  includeTextUrl?: string;
  /** A DOCTYPE declaring an external entity pointing at this URL, used in a paragraph ("XXE:&xxe;"). */
  xxeUrl?: string;
}

/** A DrawingML picture whose blip is r:link'ed to relationship `rId`, 2 × 2 cm. */
export function linkedImageParagraph(rId: string): string {
  return `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">
<wp:extent cx="720000" cy="720000"/><wp:docPr id="1" name="Picture 1"/>
<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">
<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">
<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">
<pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:link="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>
<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="720000" cy="720000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>
</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

function paragraph(text: string): string {
  return `<w:p><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
}

const SECT_PR =
  '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>';

function docxParts(documentXml: string, documentRels: string | undefined): FixtureZipEntry[] {
  const entries: FixtureZipEntry[] = [
    {
      name: '[Content_Types].xml',
      data: `${XML_DECL}<Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    { name: '_rels/.rels', data: relationships([rel('rId1', 'officeDocument', 'word/document.xml')]) },
    { name: 'word/document.xml', data: documentXml },
  ];
  if (documentRels !== undefined) entries.push({ name: 'word/_rels/document.xml.rels', data: documentRels });
  return entries;
}

/** A minimal valid Word document: one paragraph per string. */
export function minimalDocx(paragraphs: readonly string[], options: DocxOptions = {}): Buffer {
  const rels: string[] = [];
  const body = paragraphs.map(paragraph);
  if (options.linkedImageUrl !== undefined) {
    rels.push(rel('rIdImg', 'image', options.linkedImageUrl, true));
    body.push(linkedImageParagraph('rIdImg'));
  }
  if (options.hyperlinkUrl !== undefined) {
    rels.push(rel('rIdLink', 'hyperlink', options.hyperlinkUrl, true));
    body.push(`<w:p><w:hyperlink r:id="rIdLink"><w:r><w:t>a link</w:t></w:r></w:hyperlink></w:p>`);
  }
  if (options.includeTextUrl !== undefined) {
    body.push(
      `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDETEXT "${escapeXml(options.includeTextUrl)}" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>included</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
    );
  }
  const doctype = options.xxeUrl === undefined ? '' : xxeDoctype(options.xxeUrl);
  if (options.xxeUrl !== undefined) body.push('<w:p><w:r><w:t>XXE:&xxe;</w:t></w:r></w:p>');
  if (options.relationships !== undefined) rels.push(options.relationships);
  if (options.extraBodyXml !== undefined) body.push(options.extraBodyXml);
  const document = `${XML_DECL}${doctype}${options.extraDocumentXmlPrefix ?? ''}<w:document xmlns:w="${W}" xmlns:r="${DOC_RELS}"><w:body>${body.join('')}${SECT_PR}</w:body></w:document>`;
  return zip(docxParts(document, rels.length > 0 ? relationships(rels) : undefined));
}

/** A DOCTYPE declaring the external entity `xxe` as `target`. */
function xxeDoctype(target: string): string {
  return `<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "${escapeXml(target)}">]>\n`;
}

/** A docx whose document.xml declares an external entity and uses it in the text. */
export function xxeDocx(target = 'file:///etc/passwd'): Buffer {
  return minimalDocx([], {
    extraDocumentXmlPrefix: xxeDoctype(target),
    extraBodyXml: '<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>',
  });
}

export const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';

/** `count` numbered paragraphs of `repeat` × LOREM each, for long documents ("0 Lorem ipsum …"). */
export function loremParagraphs(count: number, repeat = 1): string[] {
  return Array.from({ length: count }, (_, i) => `${i} ${LOREM.repeat(repeat)}`);
}

/**
 * A docx whose document.xml inflates to `gigabytes` GB (default 1) of spaces inside one w:t,
 * from about 1 MB. Built from a 1 MB deflate block repeated: each piece is a fresh deflate
 * stream ended with a full flush (no final bit, byte-aligned, no back-references across pieces),
 * so the concatenation is one valid stream. `lie` declares only 4 KB in the directory so that
 * only an inflate with a cap catches it.
 */
export function docxBomb(options: { gigabytes?: number; lie?: boolean } = {}): Buffer {
  const gigabytes = options.gigabytes ?? 1;
  const head = Buffer.from(`${XML_DECL}<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t xml:space="preserve">`);
  const tail = Buffer.from(`</w:t></w:r></w:p>${SECT_PR}</w:body></w:document>`);
  const block = Buffer.alloc(1024 * 1024, 0x20);
  const blocks = Math.round(gigabytes * 1024);
  const flush = { finishFlush: constants.Z_FULL_FLUSH };
  const deflatedBlock = deflateRawSync(block, flush);
  const pieces = [deflateRawSync(head, flush)];
  for (let i = 0; i < blocks; i++) pieces.push(deflatedBlock);
  pieces.push(deflateRawSync(tail));
  let crc = crc32(head);
  for (let i = 0; i < blocks; i++) crc = crc32(block, crc);
  crc = crc32(tail, crc);
  const size = head.length + blocks * block.length + tail.length;
  if (size > 0xfffffffe) throw new Error('docxBomb: at most 4 GB without ZIP64');
  const [types, rels] = docxParts('', undefined);
  return zip([
    types!,
    rels!,
    {
      name: 'word/document.xml',
      data: '',
      precompressed: { data: Buffer.concat(pieces), crc32: crc, size },
      ...(options.lie ? { declaredSize: 4096 } : {}),
    },
  ]);
}

// ---------------------------------------------------------------- XLSX

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** A minimal valid workbook with one sheet; strings are inline strings, numbers are numbers. */
export function minimalXlsx(rows: readonly (readonly (string | number)[])[]): Buffer {
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const sheetRows = rows
    .map((row, r) => {
      const cells = row.map((value, c) => {
        const ref = `${columnName(c)}${r + 1}`;
        return typeof value === 'number'
          ? `<c r="${ref}"><v>${value}</v></c>`
          : `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(value)}</t></is></c>`;
      });
      return `<row r="${r + 1}">${cells.join('')}</row>`;
    })
    .join('');
  return zip([
    {
      name: '[Content_Types].xml',
      data: `${XML_DECL}<Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    { name: '_rels/.rels', data: relationships([rel('rId1', 'officeDocument', 'xl/workbook.xml')]) },
    {
      name: 'xl/workbook.xml',
      data: `${XML_DECL}<workbook xmlns="${S}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    { name: 'xl/_rels/workbook.xml.rels', data: relationships([rel('rId1', 'worksheet', 'worksheets/sheet1.xml')]) },
    { name: 'xl/worksheets/sheet1.xml', data: `${XML_DECL}<worksheet xmlns="${S}"><sheetData>${sheetRows}</sheetData></worksheet>` },
  ]);
}

// ---------------------------------------------------------------- PPTX

const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS = `xmlns:a="${A}" xmlns:r="${DOC_RELS}" xmlns:p="${P}"`;

const EMPTY_TREE = '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>';

function theme(): string {
  const colors = [
    ['dk1', '<a:sysClr val="windowText" lastClr="000000"/>'],
    ['lt1', '<a:sysClr val="window" lastClr="FFFFFF"/>'],
    ['dk2', '<a:srgbClr val="44546A"/>'],
    ['lt2', '<a:srgbClr val="E7E6E6"/>'],
    ['accent1', '<a:srgbClr val="4472C4"/>'],
    ['accent2', '<a:srgbClr val="ED7D31"/>'],
    ['accent3', '<a:srgbClr val="A5A5A5"/>'],
    ['accent4', '<a:srgbClr val="FFC000"/>'],
    ['accent5', '<a:srgbClr val="5B9BD5"/>'],
    ['accent6', '<a:srgbClr val="70AD47"/>'],
    ['hlink', '<a:srgbClr val="0563C1"/>'],
    ['folHlink', '<a:srgbClr val="954F72"/>'],
  ]
    .map(([n, c]) => `<a:${n}>${c}</a:${n}>`)
    .join('');
  const fill = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>';
  const line = `<a:ln w="6350">${fill}</a:ln>`;
  return `${XML_DECL}<a:theme xmlns:a="${A}" name="Office Theme"><a:themeElements><a:clrScheme name="Office">${colors}</a:clrScheme><a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme><a:fmtScheme name="Office"><a:fillStyleLst>${fill}${fill}${fill}</a:fillStyleLst><a:lnStyleLst>${line}${line}${line}</a:lnStyleLst><a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst>${fill}${fill}${fill}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`;
}

/** A minimal presentation: one slide per string, each with a text box; with the layout, master and theme PowerPoint requires. */
export function minimalPptx(slides: readonly string[]): Buffer {
  const slideEntries: FixtureZipEntry[] = [];
  const overrides: string[] = [];
  const slideIds: string[] = [];
  const presentationRels = [rel('rIdMaster', 'slideMaster', 'slideMasters/slideMaster1.xml'), rel('rIdTheme', 'theme', 'theme/theme1.xml')];
  slides.forEach((text, i) => {
    const n = i + 1;
    slideEntries.push(
      {
        name: `ppt/slides/slide${n}.xml`,
        data: `${XML_DECL}<p:sld ${NS}><p:cSld><p:spTree>${EMPTY_TREE}<p:sp><p:nvSpPr><p:cNvPr id="2" name="Text ${n}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="457200"/><a:ext cx="8229600" cy="1143000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr wrap="square"/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="2800"/><a:t>${escapeXml(text)}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`,
      },
      { name: `ppt/slides/_rels/slide${n}.xml.rels`, data: relationships([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml')]) },
    );
    overrides.push(`<Override PartName="/ppt/slides/slide${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`);
    slideIds.push(`<p:sldId id="${256 + i}" r:id="rIdSlide${n}"/>`);
    presentationRels.push(rel(`rIdSlide${n}`, 'slide', `slides/slide${n}.xml`));
  });
  return zip([
    {
      name: '[Content_Types].xml',
      data: `${XML_DECL}<Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"/><Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"/><Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>${overrides.join('')}</Types>`,
    },
    { name: '_rels/.rels', data: relationships([rel('rId1', 'officeDocument', 'ppt/presentation.xml')]) },
    {
      name: 'ppt/presentation.xml',
      data: `${XML_DECL}<p:presentation ${NS} saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rIdMaster"/></p:sldMasterIdLst><p:sldIdLst>${slideIds.join('')}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000" type="screen4x3"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`,
    },
    { name: 'ppt/_rels/presentation.xml.rels', data: relationships(presentationRels) },
    {
      name: 'ppt/slideMasters/slideMaster1.xml',
      data: `${XML_DECL}<p:sldMaster ${NS}><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>`,
    },
    {
      name: 'ppt/slideMasters/_rels/slideMaster1.xml.rels',
      data: relationships([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'), rel('rId2', 'theme', '../theme/theme1.xml')]),
    },
    {
      name: 'ppt/slideLayouts/slideLayout1.xml',
      data: `${XML_DECL}<p:sldLayout ${NS} type="blank" preserve="1"><p:cSld name="Blank"><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
    },
    { name: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels', data: relationships([rel('rId1', 'slideMaster', '../slideMasters/slideMaster1.xml')]) },
    { name: 'ppt/theme/theme1.xml', data: theme() },
    ...slideEntries,
  ]);
}

// ---------------------------------------------------------------- ODT

/** A minimal valid OpenDocument text: the stored `mimetype` first, a manifest, content and styles. */
export function minimalOdt(paragraphs: readonly string[], options: { encrypted?: boolean } = {}): Buffer {
  const office = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
  const text = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
  const manifestNs = 'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0';
  const encryption = options.encrypted
    ? '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"><manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:iteration-count="1024" manifest:salt="AAAA"/></manifest:encryption-data>'
    : '';
  const body = paragraphs.map((p) => `<text:p>${escapeXml(p)}</text:p>`).join('');
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 0 },
    {
      name: 'META-INF/manifest.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="${manifestNs}" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">${encryption}</manifest:file-entry><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    },
    {
      name: 'content.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content xmlns:office="${office}" xmlns:text="${text}" office:version="1.2"><office:body><office:text>${body}</office:text></office:body></office:document-content>`,
    },
    {
      name: 'styles.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles xmlns:office="${office}" office:version="1.2"/>`,
    },
  ]);
}

// ---------------------------------------------------------------- OLE2

export interface OleStream {
  name: string;
  /** a stream's content */
  data?: Buffer;
  /** a storage's streams and storages (an embedded object, say) */
  children?: readonly OleStream[];
}

interface PlacedOleEntry {
  name: string;
  type: 1 | 2 | 5;
  data?: Buffer;
  right: number;
  child: number;
}

/**
 * An OLE2 compound file holding the given streams and storages: version 3 (512-byte sectors, the
 * default) or 4 (4096-byte sectors). Each stream is padded to at least 4096 bytes so that none
 * lives in the mini stream; the directory size fields record the padded size.
 */
export function ole2(streams: readonly OleStream[], options: { version?: 3 | 4 } = {}): Buffer {
  const version = options.version ?? 3;
  const SECTOR = version === 4 ? 4096 : 512;
  const PER_FAT = SECTOR / 4;
  const PER_DIR = SECTOR / 128;
  const END = 0xfffffffe;
  const FREE = 0xffffffff;
  const FATSECT = 0xfffffffd;
  const NOSTREAM = 0xffffffff;

  // Siblings are kept as a right-leaning chain, sorted the way the format compares names.
  const placed: PlacedOleEntry[] = [{ name: 'Root Entry', type: 5, right: NOSTREAM, child: NOSTREAM }];
  const place = (children: readonly OleStream[]): number => {
    const sorted = [...children].sort((a, b) => a.name.length - b.name.length || (a.name.toUpperCase() < b.name.toUpperCase() ? -1 : 1));
    const ids = sorted.map((s) => {
      const data = s.children ? undefined : Math.max(4096, Math.ceil((s.data?.length ?? 0) / SECTOR) * SECTOR);
      const entry: PlacedOleEntry = { name: s.name, type: s.children ? 1 : 2, right: NOSTREAM, child: NOSTREAM };
      if (data !== undefined) entry.data = Buffer.concat([s.data ?? Buffer.alloc(0), Buffer.alloc(data - (s.data?.length ?? 0))]);
      placed.push(entry);
      return placed.length - 1;
    });
    sorted.forEach((s, i) => {
      const entry = placed[ids[i]!]!;
      if (i + 1 < ids.length) entry.right = ids[i + 1]!;
      if (s.children) entry.child = place(s.children);
    });
    return ids[0] ?? NOSTREAM;
  };
  placed[0]!.child = place(streams);

  const dirEntries = placed.length;
  const dirSectors = Math.ceil(dirEntries / PER_DIR);
  const dataSectors = placed.reduce((n, e) => n + (e.data ? e.data.length / SECTOR : 0), 0);
  // FAT + directory + data must fit in what one FAT sector describes (enough for fixtures).
  const total = 1 + dirSectors + dataSectors;
  if (total > PER_FAT) throw new Error('ole2 fixture: too much data for one FAT sector');

  const fat = Buffer.alloc(SECTOR, 0xff);
  fat.writeUInt32LE(FATSECT, 0);
  let next = 1;
  const chain = (count: number): number => {
    const start = next;
    for (let i = 0; i < count; i++) fat.writeUInt32LE(i === count - 1 ? END : next + i + 1, (next + i) * 4);
    next += count;
    return start;
  };
  const dirStart = chain(dirSectors);
  const starts = placed.map((e) => (e.data ? chain(e.data.length / SECTOR) : END));

  const directory = Buffer.alloc(dirSectors * SECTOR);
  placed.forEach((e, index) => {
    const p = index * 128;
    const encoded = Buffer.from(`${e.name}\0`, 'utf16le');
    encoded.copy(directory, p);
    directory.writeUInt16LE(encoded.length, p + 0x40);
    directory.writeUInt8(e.type, p + 0x42);
    directory.writeUInt8(1, p + 0x43); // black
    directory.writeUInt32LE(NOSTREAM, p + 0x44);
    directory.writeUInt32LE(e.right, p + 0x48);
    directory.writeUInt32LE(e.child, p + 0x4c);
    directory.writeUInt32LE(e.type === 2 ? starts[index]! : e.type === 5 ? END : 0, p + 0x74);
    directory.writeUInt32LE(e.data?.length ?? 0, p + 0x78);
  });
  for (let i = dirEntries; i < dirSectors * PER_DIR; i++) {
    directory.writeUInt32LE(NOSTREAM, i * 128 + 0x44);
    directory.writeUInt32LE(NOSTREAM, i * 128 + 0x48);
    directory.writeUInt32LE(NOSTREAM, i * 128 + 0x4c);
  }

  const header = Buffer.alloc(SECTOR, 0);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(version, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(version === 4 ? 12 : 9, 0x1e);
  if (version === 4) header.writeUInt32LE(dirSectors, 0x28);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(1, 0x2c); // FAT sectors
  header.writeUInt32LE(dirStart, 0x30);
  header.writeUInt32LE(4096, 0x38);
  header.writeUInt32LE(END, 0x3c);
  header.writeUInt32LE(0, 0x40);
  header.writeUInt32LE(END, 0x44);
  header.writeUInt32LE(0, 0x48);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : FREE, 0x4c + i * 4);
  return Buffer.concat([header, fat, directory, ...placed.flatMap((e) => (e.data ? [e.data] : []))]);
}

/** What a password-protected docx/xlsx/pptx looks like: an OLE2 file with EncryptionInfo and EncryptedPackage. Not decryptable. */
export function encryptedOoxmlLike(options: { version?: 3 | 4 } = {}): Buffer {
  const info = Buffer.alloc(64);
  info.writeUInt16LE(4, 0); // agile encryption, version 4.4
  info.writeUInt16LE(4, 2);
  info.writeUInt32LE(0x40, 4);
  const pkg = Buffer.alloc(4096);
  pkg.writeBigUInt64LE(1234n, 0);
  return ole2([
    { name: 'EncryptionInfo', data: Buffer.concat([info, Buffer.from('<?xml version="1.0" encoding="UTF-8"?><encryption/>')]) },
    { name: 'EncryptedPackage', data: pkg },
  ], options);
}

/** A legacy Word file (only its FIB is meaningful) with or without the fEncrypted flag. */
export function legacyDoc(options: { encrypted?: boolean; version?: 3 | 4 } = {}): Buffer {
  const fib = Buffer.alloc(4096);
  fib.writeUInt16LE(0xa5ec, 0); // wIdent
  fib.writeUInt16LE(0x00c1, 2); // nFib: Word 97
  fib.writeUInt16LE(options.encrypted ? 0x0100 : 0, 0x0a);
  return ole2([
    { name: 'WordDocument', data: fib },
    { name: '1Table', data: Buffer.alloc(4096) },
  ], options.version === undefined ? {} : { version: options.version });
}

// ---------------------------------------------------------------- PDF, RTF, images

function pdf(objects: readonly string[], trailerExtra = ''): Buffer {
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A PDF string literal: `(text)` with backslashes and parentheses escaped. */
function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** Catalog, pages, one page of `size` points (US Letter by default) drawing `stream` with Helvetica as /F1. */
function pdfPageObjects(stream: string, size: readonly [number, number] = [612, 792]): string[] {
  return [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size[0]} ${size[1]}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
}

function textStream(text: string): string {
  return `BT /F1 24 Tf 72 720 Td ${pdfString(text)} Tj ET`;
}

/** A one-page PDF showing `text`. */
export function minimalPdf(text = 'Hello'): Buffer {
  return pdf(pdfPageObjects(textStream(text)));
}

/** A one-page PDF with one line per string (14 pt Helvetica, 18 pt apart) on a page of `size` points (A4 by default). */
export function linesPdf(lines: readonly string[], size: readonly [number, number] = [595, 842]): Buffer {
  const stream = ['BT', '/F1 14 Tf', '72 770 Td', '18 TL', ...lines.map((line) => `${pdfString(line)} Tj T*`), 'ET'].join('\n');
  return pdf(pdfPageObjects(stream, size));
}

/** A PDF whose trailer names an /Encrypt dictionary (standard security handler, RC4 40-bit). Not decryptable. */
export function encryptedPdf(): Buffer {
  const objects = pdfPageObjects(textStream('secret'));
  objects.push(`<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${'00'.repeat(32)}> /U <${'00'.repeat(32)}> /P -44 >>`);
  return pdf(objects, ` /Encrypt ${objects.length} 0 R /ID [<${'11'.repeat(16)}> <${'11'.repeat(16)}>]`);
}

/** An RTF document with one paragraph per line of `text`. */
export function rtf(text: string): string {
  // Per UTF-16 code unit, so characters outside the BMP become their two surrogates.
  const escaped = text
    .split('')
    .map((c) => {
      if (c === '\\' || c === '{' || c === '}') return `\\${c}`;
      if (c === '\n') return '\\par\n';
      const unit = c.charCodeAt(0);
      return unit < 0x80 ? c : `\\u${(unit << 16) >> 16}?`;
    })
    .join('');
  return `{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times New Roman;}}\\f0\\fs24 ${escaped}\\par\n}\n`;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid solid red RGB PNG, `size` × `size` pixels (1 × 1 by default). */
export function png(size = 1): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3, Buffer.from([0xff, 0, 0]))]);
  const idat = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The start of a JFIF JPEG (SOI, APP0) followed by EOI: enough for signature checks, not a decodable image. */
export function jpegSignature(): Buffer {
  return Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
}

/** A valid 1 × 1 GIF. */
export function gif(): Buffer {
  return Buffer.from('47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b', 'hex');
}

/** A RIFF/WEBP header with a tiny VP8L chunk: enough for signature checks. */
export function webpSignature(): Buffer {
  const vp8l = Buffer.from('2f0000000000', 'hex');
  const chunk = Buffer.concat([Buffer.from('VP8L'), Buffer.from([vp8l.length, 0, 0, 0]), vp8l]);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + chunk.length, 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, chunk]);
}
