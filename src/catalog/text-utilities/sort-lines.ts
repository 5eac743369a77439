import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { joinLines, splitLines, textField } from './text-shared.ts';

function compareOrdinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const CHUNK = /\d+|\D+/g;

/** Natural order: runs of digits compare by numeric value ("file2" < "file10"), other runs by code unit. */
export function compareNatural(a: string, b: string): number {
  const ca = a.match(CHUNK) ?? [];
  const cb = b.match(CHUNK) ?? [];
  const n = Math.min(ca.length, cb.length);
  for (let i = 0; i < n; i++) {
    const x = ca[i] ?? '';
    const y = cb[i] ?? '';
    const xd = x.charCodeAt(0) >= 48 && x.charCodeAt(0) <= 57;
    const yd = y.charCodeAt(0) >= 48 && y.charCodeAt(0) <= 57;
    if (xd && yd) {
      const xs = x.replace(/^0+(?=\d)/, '');
      const ys = y.replace(/^0+(?=\d)/, '');
      if (xs.length !== ys.length) return xs.length - ys.length;
      const c = compareOrdinal(xs, ys);
      if (c !== 0) return c;
    } else {
      const c = compareOrdinal(x, y);
      if (c !== 0) return c;
    }
  }
  return ca.length - cb.length;
}

export const sortLines = defineTool({
  family: 'text-utilities',
  slug: 'sort-lines',
  title: 'Sort lines',
  description:
    'Sorts lines ascending or descending. By default lines compare by Unicode code unit (locale-independent, so "B" < "a"); ' +
    'caseInsensitive compares lower-cased lines (ties keep input order: the sort is stable); natural compares runs of digits ' +
    'by numeric value so "item2" sorts before "item10". unique keeps only the first of lines that compare equal (case-insensitive ' +
    'when caseInsensitive is set); removeEmpty drops blank lines. A final line break is kept.',
  aliases: ['alphabetize', 'sort alphabetically', 'order lines', 'natural sort', 'sort list', 'reverse sort'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The lines to sort'),
    order: z.enum(['asc', 'desc']).default('asc').describe('Ascending or descending'),
    natural: z.boolean().default(false).describe('Compare runs of digits numerically'),
    caseInsensitive: z.boolean().default(false).describe('Ignore case when comparing'),
    unique: z.boolean().default(false).describe('Drop lines equal to an earlier one under the comparison'),
    removeEmpty: z.boolean().default(false).describe('Drop lines that are empty or only whitespace'),
  }),
  output: z.object({ text: z.string(), lines: z.number().int().describe('Lines in the output') }),
  examples: [
    {
      title: 'Natural, case-insensitive, unique',
      input: { text: 'file10\nFile2\nfile1\nfile2\n', natural: true, caseInsensitive: true, unique: true },
      output: { text: 'file1\nFile2\nfile10\n', lines: 3 },
    },
    {
      title: 'Descending',
      input: { text: 'pear\napple\nfig', order: 'desc' },
      output: { text: 'pear\nfig\napple', lines: 3 },
    },
  ],
  run({ text, order, natural, caseInsensitive, unique, removeEmpty }) {
    const { lines, trailingNewline } = splitLines(text);
    const items = (removeEmpty ? lines.filter((l) => l.trim() !== '') : lines).map((line) => ({
      line,
      key: caseInsensitive ? line.toLowerCase() : line,
    }));
    const compare = natural ? compareNatural : compareOrdinal;
    const sign = order === 'desc' ? -1 : 1;
    items.sort((a, b) => sign * compare(a.key, b.key));
    let out = items;
    if (unique) {
      const seen = new Set<string>();
      out = items.filter((item) => {
        // Natural comparison treats "2" and "02" as equal; use the normalized key so unique agrees with it.
        const k = natural ? item.key.replace(/\d+/g, (d) => d.replace(/^0+(?=\d)/, '')) : item.key;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    }
    const sorted = out.map((i) => i.line);
    return { text: joinLines(sorted, trailingNewline), lines: sorted.length };
  },
});
