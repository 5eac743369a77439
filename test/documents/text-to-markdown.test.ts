// txt-to-md's streaming conversion (src/catalog/conversions/converters.ts): the same Markdown
// whatever the chunking of the input, with readline's line breaks (\n, \r\n, a lone \r, and a
// \r\n split over two chunks), the BOM dropped, whitespace-only paragraphs left out, and syntax escaped.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { textToMarkdown, textToMarkdownChunks } from '../../src/catalog/conversions/converters.ts';
import type { ConversionJob } from '../../src/catalog/conversions/define-conversions.ts';

async function convert(chunks: readonly string[]): Promise<string> {
  let out = '';
  for await (const piece of textToMarkdownChunks(Readable.from(chunks))) out += piece;
  return out;
}

/** Every way of cutting `text` into two or three chunks gives `expected`. */
async function assertAnyChunking(text: string, expected: string): Promise<void> {
  assert.equal(await convert([text]), expected, 'one chunk');
  for (let i = 0; i <= text.length; i++) {
    assert.equal(await convert([text.slice(0, i), text.slice(i)]), expected, `cut at ${i}`);
    for (let j = i; j <= text.length; j++) {
      assert.equal(await convert([text.slice(0, i), text.slice(i, j), text.slice(j)]), expected, `cut at ${i} and ${j}`);
    }
  }
}

describe('txt-to-md streaming', () => {
  const dir = mkdtempSync(join(tmpdir(), 'txt-to-md-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps paragraphs and line breaks whatever the chunks, with every kind of line break', async () => {
    await assertAnyChunking('one\ntwo\r\n\r\nthree\rfour\n\nfive', 'one  \ntwo\n\nthree  \nfour\n\nfive\n');
  });

  it('drops the BOM, leaves out whitespace-only paragraphs and keeps leading spaces inside a paragraph', async () => {
    await assertAnyChunking('\uFEFFa\n\n  \n\t\n\nb\n  c', 'a\n\nb  \n  c\n');
    await assertAnyChunking('  \nx', '    \nx\n');
  });

  it('escapes what Markdown would read as syntax: headings, lists, emphasis, code, links, tables', async () => {
    await assertAnyChunking('# not a heading\n1. not a list\n- nor this\n*a* _b_ `c` [d](e) |f|', '\\# not a heading  \n1\\. not a list  \n\\- nor this  \n\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\|f\\|\n');
  });

  it('answers a lone newline for empty or blank input', async () => {
    assert.equal(await convert([]), '\n');
    assert.equal(await convert(['\n\n\r\n']), '\n');
  });

  it('converts a file of many paragraphs (a few MB) through the file streams', async () => {
    const paragraph = Array.from({ length: 40 }, (_, i) => `line ${i} with *stars* and #hash`).join('\n');
    const text = Array.from({ length: 2000 }, () => paragraph).join('\n\n');
    writeFileSync(join(dir, 'in.txt'), text);
    await textToMarkdown({ input: { path: join(dir, 'in.txt') }, outputPath: join(dir, 'out.md') } as ConversionJob);
    const md = readFileSync(join(dir, 'out.md'), 'utf8');
    const expectedParagraph = Array.from({ length: 40 }, (_, i) => `line ${i} with \\*stars\\* and \\#hash`).join('  \n');
    assert.equal(md, `${Array.from({ length: 2000 }, () => expectedParagraph).join('\n\n')}\n`);
  });
});
