import { acceptedKind, type AcceptedKind } from '../../files/kinds/file-kind-registry.ts';

/**
 * The file formats conversions speak. The id is an accepted file kind (files/kinds/): its MIME
 * type and extension come from the file-kind registry, the one place a format is described.
 */
export interface FileFormat {
  id: string;
  extension: string;
  mimeType: string;
  label: string;
}

const format = (id: AcceptedKind, label: string): FileFormat => {
  const kind = acceptedKind(id);
  return { id, extension: kind.extensions[0] ?? id, mimeType: kind.mimeType, label };
};

export const FORMATS = {
  pdf: format('pdf', 'PDF'),
  docx: format('docx', 'Word (DOCX)'),
  doc: format('doc', 'Word 97-2003 (DOC)'),
  odt: format('odt', 'OpenDocument text (ODT)'),
  rtf: format('rtf', 'Rich Text (RTF)'),
  txt: format('txt', 'plain text'),
  md: format('md', 'Markdown'),
  html: format('html', 'HTML'),
  pptx: format('pptx', 'PowerPoint (PPTX)'),
  ppt: format('ppt', 'PowerPoint 97-2003 (PPT)'),
  odp: format('odp', 'OpenDocument presentation (ODP)'),
  xlsx: format('xlsx', 'Excel (XLSX)'),
  xls: format('xls', 'Excel 97-2003 (XLS)'),
  ods: format('ods', 'OpenDocument spreadsheet (ODS)'),
  csv: format('csv', 'CSV'),
} as const satisfies Record<string, FileFormat>;

export type FormatId = keyof typeof FORMATS;
