import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { splitLines, textField } from './text-shared.ts';

export const whitespaceCleaner = defineTool({
  family: 'text-utilities',
  slug: 'remove-extra-whitespace',
  title: 'Remove extra whitespace',
  description:
    'Cleans up whitespace. collapseSpaces (default true): runs of spaces, tabs and other horizontal whitespace become one space; ' +
    'trimLines (default true): leading and trailing whitespace is removed from every line; blankLines: "keep", "collapse" ' +
    '(default: runs of blank lines become one) or "remove"; singleLine (default false): the whole text becomes one line, line breaks ' +
    'turned into spaces. The text is trimmed at both ends and line breaks are normalized to \\n.',
  aliases: ['trim whitespace', 'collapse spaces', 'remove blank lines', 'clean text', 'strip spaces', 'normalize whitespace'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to clean'),
    collapseSpaces: z.boolean().default(true).describe('Turn runs of horizontal whitespace into one space'),
    trimLines: z.boolean().default(true).describe('Trim every line'),
    blankLines: z.enum(['keep', 'collapse', 'remove']).default('collapse').describe('What to do with blank lines'),
    singleLine: z.boolean().default(false).describe('Join everything into one line'),
  }),
  output: z.object({
    text: z.string(),
    removedCharacters: z.number().int().describe('How many UTF-16 code units shorter the text became'),
  }),
  examples: [
    {
      title: 'Messy spacing',
      input: { text: '  Hello,\t\tworld!  \n\n\n\n  This   is  spaced.  ' },
      output: { text: 'Hello, world!\n\nThis is spaced.', removedCharacters: 14 },
    },
    {
      title: 'To a single line',
      input: { text: 'one\n  two\n\nthree ', singleLine: true },
      output: { text: 'one two three', removedCharacters: 4 },
    },
  ],
  run({ text, collapseSpaces, trimLines, blankLines, singleLine }) {
    let lines = splitLines(text).lines.map((line) => {
      let l = collapseSpaces ? line.replace(/[^\S\r\n]+/g, ' ') : line;
      if (trimLines) l = l.trim();
      return l;
    });
    const isBlank = (l: string): boolean => l.trim() === '';
    if (singleLine) {
      const joined = lines.filter((l) => !isBlank(l)).join(' ');
      const out = (collapseSpaces ? joined.replace(/[^\S\r\n]+/g, ' ') : joined).trim();
      return { text: out, removedCharacters: text.length - out.length };
    }
    if (blankLines === 'remove') lines = lines.filter((l) => !isBlank(l));
    else if (blankLines === 'collapse') lines = lines.filter((l, i) => !isBlank(l) || i === 0 || !isBlank(lines[i - 1] ?? ''));
    const out = lines.join('\n').trim();
    return { text: out, removedCharacters: text.length - out.length };
  },
});
