/** Independent checks of a produced PDF with poppler-utils (pdfinfo, pdftotext). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function pdfPages(path: string): Promise<number> {
  const { stdout } = await run('pdfinfo', [path], { timeout: 60_000 });
  const match = /^Pages:\s+(\d+)/m.exec(stdout);
  if (!match) throw new Error(`pdfinfo gave no page count for ${path}`);
  return Number(match[1]);
}

/** The PDF's text with runs of whitespace folded to one space. */
export async function pdfText(path: string): Promise<string> {
  const { stdout } = await run('pdftotext', ['-q', path, '-'], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout.replace(/\s+/g, ' ');
}
