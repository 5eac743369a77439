import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { textField } from './text-shared.ts';

// Letters that NFKD does not decompose into a base letter plus marks.
const TRANSLITERATIONS: Record<string, string> = {
  ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  ł: 'l', Ł: 'L', þ: 'th', Þ: 'TH', ı: 'i', ħ: 'h', Ħ: 'H',
};

export function slugify(text: string, separator: string, lowercase: boolean, maxLength: number | undefined): string {
  let s = text
    .replace(/[ßẞæÆœŒøØđĐðÐłŁþÞıħĦ]/g, (ch) => TRANSLITERATIONS[ch] ?? ch)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/&/g, ' and ')
    .replace(/['’]/g, '');
  if (lowercase) s = s.toLowerCase();
  s = s.replace(/[^A-Za-z0-9]+/g, separator);
  const escaped = separator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  s = s.replace(new RegExp(`^${escaped}+|${escaped}+$`, 'g'), '');
  if (maxLength !== undefined && s.length > maxLength) {
    const cutInsideWord = s[maxLength] !== separator;
    s = s.slice(0, maxLength);
    // Cut back to the last whole word when the cut fell inside one.
    const last = s.lastIndexOf(separator);
    if (cutInsideWord && last > 0) s = s.slice(0, last);
    s = s.replace(new RegExp(`${escaped}+$`), '');
  }
  return s;
}

export const slugifyTool = defineTool({
  family: 'text-utilities',
  slug: 'slugify',
  title: 'Slugify',
  description:
    'Turns text into a URL slug: accents are removed (é → e, ß → ss, ø → o), & becomes "and", apostrophes are dropped, ' +
    'every run of other characters that are not ASCII letters or digits becomes one separator, separators at the ends are trimmed, ' +
    'and the result is lower-cased unless lowercase is false. With maxLength, the slug is cut at the last whole word that fits ' +
    '(or hard-cut if the first word is longer). Characters with no Latin form (e.g. CJK) are dropped.',
  aliases: ['url slug', 'permalink', 'seo friendly url', 'slug generator', 'kebab url'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to slugify', 100_000),
    separator: z.enum(['-', '_', '.']).default('-').describe('Character placed between words'),
    lowercase: z.boolean().default(true).describe('Lower-case the slug'),
    maxLength: z.number().int().min(1).max(1000).optional().describe('Longest slug to return').meta({ unit: 'characters' }),
  }),
  output: z.object({ slug: z.string(), length: z.number().int() }),
  examples: [
    {
      title: 'A blog post title',
      input: { text: 'Crème Brûlée & Straße: 10 Tips for Beginners!' },
      output: { slug: 'creme-brulee-and-strasse-10-tips-for-beginners', length: 46 },
    },
    {
      title: 'Capped at 20 characters with underscores',
      input: { text: "What's new in Node.js 24?", separator: '_', maxLength: 20 },
      output: { slug: 'whats_new_in_node_js', length: 20 },
    },
  ],
  run({ text, separator, lowercase, maxLength }) {
    const slug = slugify(text, separator, lowercase, maxLength);
    return { slug, length: slug.length };
  },
});
