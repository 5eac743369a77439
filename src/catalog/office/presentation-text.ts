import { join } from 'node:path';
import { readEngineOutput, writeNewFile } from '../../files/engine-output.ts';
import type { ConversionJob } from '../conversions/define-conversions.ts';

/**
 * Slide text: LibreOffice prints the presentation to PDF (the one export Impress has that keeps
 * every text frame in order), and poppler reads the text back page by page: one page per slide.
 */
export async function presentationToText(job: ConversionJob): Promise<void> {
  const pdfPath = join(job.workDir, 'slides.pdf');
  const textPath = join(job.workDir, 'slides.txt');
  await job.engines.libreoffice.convert({ inputPath: job.input.path, outputPath: pdfPath, format: 'pdf', signal: job.signal });
  await job.engines.poppler.pdfToText({ inputPath: pdfPath, outputPath: textPath, signal: job.signal });
  const pages = (await readEngineOutput(textPath, 'utf8')).split('\f').map((page) => page.trim());
  while (pages.length > 0 && pages[pages.length - 1] === '') pages.pop();
  await writeNewFile(job.outputPath, `${pages.map((text, i) => `--- Slide ${i + 1} ---\n${text}`).join('\n\n')}\n`);
}
