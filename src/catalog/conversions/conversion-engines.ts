import type { ChromiumEngine } from '../../engines/chromium.ts';
import type { LibreOfficeEngine } from '../../engines/libreoffice.ts';
import type { PandocEngine } from '../../engines/pandoc.ts';
import type { PopplerEngine } from '../../engines/poppler.ts';

/** What conversions need of the engines: the narrow view a tool gets as ctx.engines. */
export interface ConversionEngines {
  libreoffice: Pick<LibreOfficeEngine, 'convert'>;
  chromium: Pick<ChromiumEngine, 'htmlToPdf'>;
  pandoc: Pick<PandocEngine, 'convert'>;
  poppler: Pick<PopplerEngine, 'pdfToText' | 'pdfToHtml'>;
}
