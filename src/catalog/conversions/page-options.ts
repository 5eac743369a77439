import { z } from 'zod';
import { PAGE_SIZE_NAMES, type PageOptions } from '../../engines/page.ts';

const MARGIN = /^\s*(\d+(\.\d+)?|\.\d+)\s*(mm|cm|in|pt|px)?(\s+(\d+(\.\d+)?|\.\d+)\s*(mm|cm|in|pt|px)?){0,3}\s*$/i;

/**
 * The PDF options of every PDF-producing conversion, as multipart fields or query parameters.
 * Without any of them a document keeps its own page setup (HTML and text default to A4).
 */
export const pdfOptionsSchema = z.object({
  page_size: z.enum(PAGE_SIZE_NAMES).optional().describe(`Paper size: ${PAGE_SIZE_NAMES.join(', ')}`),
  orientation: z.enum(['portrait', 'landscape']).optional().describe('Page orientation'),
  margin: z
    .string()
    .max(60)
    .regex(MARGIN, 'a length with unit (mm, cm, in, pt, px), or up to four: top right bottom left, e.g. "20mm" or "1in 0.5in"')
    .optional()
    .describe('Page margins: one length with unit (mm, cm, in, pt, px) or up to four (top right bottom left)'),
});

export type PdfOptions = z.infer<typeof pdfOptionsSchema>;

export function toPageOptions(options: Partial<PdfOptions> | undefined): PageOptions | undefined {
  if (!options || (options.page_size === undefined && options.orientation === undefined && options.margin === undefined)) return undefined;
  return {
    ...(options.page_size === undefined ? {} : { pageSize: options.page_size }),
    ...(options.orientation === undefined ? {} : { orientation: options.orientation }),
    ...(options.margin === undefined ? {} : { margin: options.margin }),
  };
}
