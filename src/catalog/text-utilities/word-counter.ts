import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';
import { splitLines, textField } from './text-shared.ts';

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

export function countWords(text: string): number {
  let n = 0;
  for (const token of text.split(/\s+/)) if (HAS_WORD_CHAR.test(token)) n++;
  return n;
}

function countSentences(text: string): number {
  // A sentence is a stretch containing a letter or digit, ended by . ! ? (or …) followed by whitespace or the end,
  // or by the end of the text.
  let n = 0;
  // A run of terminators is tried from its first one only (the lookbehind): tried from each of
  // them, a long run not followed by whitespace costs its length squared.
  for (const part of text.split(/(?<![.!?…])[.!?…]+(?=\s|$)/u)) if (HAS_WORD_CHAR.test(part)) n++;
  return n;
}

function countParagraphs(text: string): number {
  let n = 0;
  for (const block of text.split(/(?:\r\n|\n|\r)[ \t]*(?:\r\n|\n|\r)/)) if (block.trim() !== '') n++;
  return n;
}

export const wordCounter = defineTool({
  family: 'text-utilities',
  slug: 'word-counter',
  title: 'Word and character counter',
  description:
    'Counts characters (Unicode code points, so an emoji made of one code point counts once), characters without whitespace, ' +
    'words (whitespace-separated tokens containing a letter or digit), sentences (text ended by . ! ? … before whitespace or the end, ' +
    'plus a final unterminated one; abbreviations such as "e.g." end a sentence too), paragraphs (blocks separated by blank lines), lines, and the reading and speaking time ' +
    'at the given words per minute (defaults 200 and 130), in minutes rounded to 2 decimals and in whole seconds (rounded).',
  aliases: ['character count', 'letter counter', 'word count', 'reading time', 'sentence counter', 'text statistics'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to measure'),
    readingWordsPerMinute: z.number().int().min(50).max(1000).default(200).describe('Reading speed for the reading time').meta({ unit: 'words per minute' }),
    speakingWordsPerMinute: z.number().int().min(50).max(500).default(130).describe('Speaking speed for the speaking time').meta({ unit: 'words per minute' }),
  }),
  output: z.object({
    characters: z.number().int(),
    charactersNoSpaces: z.number().int(),
    words: z.number().int(),
    sentences: z.number().int(),
    paragraphs: z.number().int(),
    lines: z.number().int(),
    averageWordLength: z.number().describe('Mean letters and digits per word, 2 decimals'),
    readingTimeMinutes: z.number(),
    readingTimeSeconds: z.number().int(),
    speakingTimeMinutes: z.number(),
    speakingTimeSeconds: z.number().int(),
  }),
  examples: [
    {
      title: 'Two short paragraphs',
      input: { text: 'Hello world! This is a test.\n\nSecond paragraph here' },
      output: {
        characters: 51,
        charactersNoSpaces: 42,
        words: 9,
        sentences: 3,
        paragraphs: 2,
        lines: 3,
        averageWordLength: 4.44,
        readingTimeMinutes: 0.05,
        readingTimeSeconds: 3,
        speakingTimeMinutes: 0.07,
        speakingTimeSeconds: 4,
      },
    },
  ],
  run({ text, readingWordsPerMinute, speakingWordsPerMinute }) {
    let characters = 0;
    let charactersNoSpaces = 0;
    for (const ch of text) {
      characters++;
      if (!/\s/u.test(ch)) charactersNoSpaces++;
    }
    const words = countWords(text);
    const wordChars = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
    const readingMinutes = words / readingWordsPerMinute;
    const speakingMinutes = words / speakingWordsPerMinute;
    return {
      characters,
      charactersNoSpaces,
      words,
      sentences: countSentences(text),
      paragraphs: countParagraphs(text),
      lines: splitLines(text).lines.length,
      averageWordLength: words === 0 ? 0 : roundTo(wordChars / words, 2),
      readingTimeMinutes: roundTo(readingMinutes, 2),
      readingTimeSeconds: Math.round(readingMinutes * 60),
      speakingTimeMinutes: roundTo(speakingMinutes, 2),
      speakingTimeSeconds: Math.round(speakingMinutes * 60),
    };
  },
});
