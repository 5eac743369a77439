import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';
import { textField } from './text-shared.ts';

const STOP_WORDS = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its me my no not of on or our she so ' +
    'that the their them then there these they this to was we were what when which who will with you your'
  ).split(' '),
);

// Words: letters and digits, with inner apostrophes or hyphens ("don't", "well-known").
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export const wordFrequency = defineTool({
  family: 'text-utilities',
  slug: 'word-frequency',
  title: 'Word frequency counter',
  description:
    'Counts how often each word occurs. Words are runs of letters and digits, keeping inner apostrophes and hyphens (don\'t, well-known). ' +
    'caseInsensitive (default true) counts "The" and "the" together, reported lower-cased. excludeStopWords drops common English ' +
    'function words (the, and, of, ...). Words shorter than minLength are skipped. Returns the top `limit` words by count (ties in ' +
    'code-unit order of the word) with their share of all counted words in percent (2 decimals).',
  aliases: ['count of each word', 'keyword density', 'term frequency', 'most common words', 'word histogram'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to analyse'),
    caseInsensitive: z.boolean().default(true).describe('Count words regardless of case'),
    excludeStopWords: z.boolean().default(false).describe('Skip common English stop words'),
    minLength: z.number().int().min(1).max(100).default(1).describe('Shortest word to count, in characters').meta({ unit: 'characters' }),
    limit: z.number().int().min(1).max(1000).default(20).describe('How many words to return').meta({ unit: 'words' }),
  }),
  output: z.object({
    totalWords: z.number().int().describe('Words counted (after stop words and minLength)'),
    uniqueWords: z.number().int(),
    words: z.array(z.object({ word: z.string(), count: z.number().int(), percent: z.number() })),
  }),
  examples: [
    {
      title: 'Top three, stop words excluded',
      input: { text: 'The cat sat. The cat ran! A dog sat with the cat.', excludeStopWords: true, limit: 3 },
      output: {
        totalWords: 7,
        uniqueWords: 4,
        words: [
          { word: 'cat', count: 3, percent: 42.86 },
          { word: 'sat', count: 2, percent: 28.57 },
          { word: 'dog', count: 1, percent: 14.29 },
        ],
      },
    },
  ],
  run({ text, caseInsensitive, excludeStopWords, minLength, limit }) {
    const counts = new Map<string, number>();
    let total = 0;
    for (const match of text.matchAll(WORD)) {
      const word = caseInsensitive ? match[0].toLowerCase() : match[0];
      if (Array.from(word).length < minLength) continue;
      if (excludeStopWords && STOP_WORDS.has(word.toLowerCase())) continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
      total++;
    }
    const words = [...counts]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, limit)
      .map(([word, count]) => ({ word, count, percent: roundTo((count / total) * 100, 2) }));
    return { totalWords: total, uniqueWords: counts.size, words };
  },
});
