/**
 * The bench's inputs, made by code: a 1-page and a 20-page docx (test/support/fixtures.ts's
 * minimalDocx: A4, 2.54 cm margins, LibreOffice's default font), an HTML page, and a ~100 MB
 * text file written to disk in chunks (never held whole in memory).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { minimalDocx } from '../../test/support/fixtures.ts';

export const ONE_PAGE_MARKER = 'Quarterly revenue grew by twelve percent';

export function onePageDocx(): Buffer {
  return minimalDocx([
    'Quarterly report',
    `${ONE_PAGE_MARKER} while operating costs held steady across every region.`,
    'The board approved the plan for the next fiscal year with a clear majority.',
    'Hiring will continue in the second half, with a focus on support and operations.',
  ]);
}

/** 300 paragraphs of ~190 characters: 20 A4 pages in LibreOffice (295 to 305 all give 20). */
export const TWENTY_PAGE_PARAGRAPHS = 300;

export function twentyPageDocx(): Buffer {
  const paragraphs: string[] = [];
  for (let i = 1; i <= TWENTY_PAGE_PARAGRAPHS; i++) {
    paragraphs.push(
      `Paragraph ${i}. Quarterly revenue grew by twelve percent while operating costs held steady across every region, and the board approved the plan for the next fiscal year with a clear majority.`,
    );
  }
  return minimalDocx(paragraphs);
}

export const HTML_MARKER = 'Printable release notes for version two';

/** A realistic small page: styles, headings, a list and a table (about one A4 page). */
export function samplePageHtml(): string {
  const rows = Array.from({ length: 12 }, (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i + 1) * 3}</td><td>${((i + 1) * 12.5).toFixed(2)} EUR</td></tr>`).join('');
  const items = Array.from({ length: 6 }, (_, i) => `<li>Improvement number ${i + 1}: faster start-up and clearer error messages.</li>`).join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Release notes</title>
<style>
  body { font-family: sans-serif; margin: 0 1em; color: #222; }
  h1 { color: #0a4d8c; border-bottom: 2px solid #0a4d8c; }
  table { border-collapse: collapse; width: 100%; }
  td, th { border: 1px solid #999; padding: 4px 8px; }
  tr:nth-child(even) { background: #f0f4f8; }
</style></head>
<body>
<h1>${HTML_MARKER}</h1>
<p>This page lists what changed in the second version, with the prices of every item below.</p>
<h2>Changes</h2><ul>${items}</ul>
<h2>Items</h2>
<table><thead><tr><th>Name</th><th>Quantity</th><th>Price</th></tr></thead><tbody>${rows}</tbody></table>
<p>Thank you for reading the release notes.</p>
</body></html>
`;
}

/**
 * Writes `bytes` bytes of ASCII prose to `path`, in 1 MB chunks: paragraphs of one ~1000-character
 * line each, a blank line between them, and no Markdown-special character, so that txt-to-md gives
 * a result of the same size (it stays under the 100 MB output limit too).
 */
export async function writeBigText(path: string, bytes: number): Promise<void> {
  const words = ['alpha', 'budget', 'report', 'growth', 'region', 'steady', 'review', 'market', 'figure', 'quarter', 'support', 'planning'];
  let block = '';
  let i = 0;
  while (block.length < 1024 * 1024) {
    const paragraph = Array.from({ length: 140 }, (_, k) => words[(i * 7 + k * 5 + (k >> 3)) % words.length]).join(' ');
    block += `${paragraph}\n\n`;
    i++;
  }
  const chunk = Buffer.from(block.slice(0, 1024 * 1024), 'ascii');
  const out = createWriteStream(path);
  let left = bytes;
  while (left > 0) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    left -= piece.length;
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
