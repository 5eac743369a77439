// Minimal OOXML word-processing documents, built in code for the engine tests.
import { zip } from './zip.ts';

export interface DocxOptions {
  paragraphs: readonly string[];
  /** an image linked (not embedded) from an external URL, e.g. http://127.0.0.1:PORT/x.png */
  linkedImageUrl?: string;
  /** a hyperlink target (external) */
  hyperlinkUrl?: string;
  /** a field that includes text from an external URL (INCLUDETEXT) */
  includeTextUrl?: string;
  /** declares an XML external entity pointing at this URL and uses it in a paragraph */
  xxeUrl?: string;
}

const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function linkedImageRun(): string {
  // A DrawingML picture whose blip is r:link'ed (external), 2x2 cm.
  return `<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">
<wp:extent cx="720000" cy="720000"/><wp:docPr id="1" name="Picture 1"/>
<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">
<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">
<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">
<pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:link="rIdImg"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>
<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="720000" cy="720000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>
</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
}

export function buildDocx(options: DocxOptions): Buffer {
  const rels: string[] = [];
  const body: string[] = options.paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`);
  if (options.linkedImageUrl !== undefined) {
    rels.push(`<Relationship Id="rIdImg" Type="${R}/image" Target="${escapeXml(options.linkedImageUrl)}" TargetMode="External"/>`);
    body.push(`<w:p>${linkedImageRun()}</w:p>`);
  }
  if (options.hyperlinkUrl !== undefined) {
    rels.push(`<Relationship Id="rIdLink" Type="${R}/hyperlink" Target="${escapeXml(options.hyperlinkUrl)}" TargetMode="External"/>`);
    body.push(`<w:p><w:hyperlink r:id="rIdLink"><w:r><w:t>a link</w:t></w:r></w:hyperlink></w:p>`);
  }
  if (options.includeTextUrl !== undefined) {
    body.push(
      `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDETEXT "${escapeXml(options.includeTextUrl)}" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>included</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
    );
  }
  let doctype = '';
  if (options.xxeUrl !== undefined) {
    doctype = `<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "${escapeXml(options.xxeUrl)}">]>`;
    body.push('<w:p><w:r><w:t>XXE:&xxe;</w:t></w:r></w:p>');
  }
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
${doctype}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body.join('')}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`;
  return zip([
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    { name: 'word/document.xml', data: document },
    {
      name: 'word/_rels/document.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
    },
  ]);
}
