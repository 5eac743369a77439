/** The file formats conversions speak: extension, MIME type, and the content kind an upload must have. */
export interface FileFormat {
  id: string;
  extension: string;
  mimeType: string;
  label: string;
}

const format = (id: string, mimeType: string, label: string): FileFormat => ({ id, extension: id, mimeType, label });

export const FORMATS = {
  pdf: format('pdf', 'application/pdf', 'PDF'),
  docx: format('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'Word (DOCX)'),
  doc: format('doc', 'application/msword', 'Word 97-2003 (DOC)'),
  odt: format('odt', 'application/vnd.oasis.opendocument.text', 'OpenDocument text (ODT)'),
  rtf: format('rtf', 'application/rtf', 'Rich Text (RTF)'),
  txt: format('txt', 'text/plain; charset=utf-8', 'plain text'),
  md: format('md', 'text/markdown; charset=utf-8', 'Markdown'),
  html: format('html', 'text/html; charset=utf-8', 'HTML'),
  pptx: format('pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'PowerPoint (PPTX)'),
  ppt: format('ppt', 'application/vnd.ms-powerpoint', 'PowerPoint 97-2003 (PPT)'),
  odp: format('odp', 'application/vnd.oasis.opendocument.presentation', 'OpenDocument presentation (ODP)'),
  xlsx: format('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'Excel (XLSX)'),
  xls: format('xls', 'application/vnd.ms-excel', 'Excel 97-2003 (XLS)'),
  ods: format('ods', 'application/vnd.oasis.opendocument.spreadsheet', 'OpenDocument spreadsheet (ODS)'),
  csv: format('csv', 'text/csv; charset=utf-8', 'CSV'),
} as const satisfies Record<string, FileFormat>;

export type FormatId = keyof typeof FORMATS;
