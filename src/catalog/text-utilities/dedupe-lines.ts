import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { joinLines, splitLines, textField } from './text-shared.ts';

export const dedupeLines = defineTool({
  family: 'text-utilities',
  slug: 'dedupe-lines',
  title: 'Remove duplicate lines',
  description:
    'Removes repeated lines, keeping the first occurrence of each and the original order. caseInsensitive compares lines ' +
    'ignoring case; trim compares them ignoring leading and trailing whitespace and also returns them trimmed; removeEmpty drops ' +
    'empty (or, with trim, blank) lines. Lines split on \\n, \\r\\n or \\r and are joined with \\n; a final line break is kept.',
  aliases: ['remove duplicates', 'unique lines', 'deduplicate', 'delete duplicate lines', 'uniq'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The lines to deduplicate'),
    caseInsensitive: z.boolean().default(false).describe('Treat lines differing only in case as duplicates'),
    trim: z.boolean().default(false).describe('Ignore and remove leading/trailing whitespace on each line'),
    removeEmpty: z.boolean().default(false).describe('Drop empty lines as well'),
  }),
  output: z.object({
    text: z.string(),
    lines: z.number().int().describe('Lines in the input'),
    kept: z.number().int().describe('Lines in the output'),
    removed: z.number().int().describe('Lines removed'),
  }),
  examples: [
    {
      title: 'Case-insensitive, trimmed',
      input: { text: 'apple\nBanana\n  apple \nbanana\ncherry\n', caseInsensitive: true, trim: true },
      output: { text: 'apple\nBanana\ncherry\n', lines: 5, kept: 3, removed: 2 },
    },
  ],
  run({ text, caseInsensitive, trim, removeEmpty }) {
    const { lines, trailingNewline } = splitLines(text);
    const seen = new Set<string>();
    const kept: string[] = [];
    for (const raw of lines) {
      const line = trim ? raw.trim() : raw;
      if (removeEmpty && line === '') continue;
      const key = caseInsensitive ? line.toLowerCase() : line;
      if (seen.has(key)) continue;
      seen.add(key);
      kept.push(line);
    }
    return { text: joinLines(kept, trailingNewline), lines: lines.length, kept: kept.length, removed: lines.length - kept.length };
  },
});
