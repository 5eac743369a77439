import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna ' +
  'aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute ' +
  'irure in reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur sint occaecat cupidatat non ' +
  'proident sunt culpa qui officia deserunt mollit anim id est laborum curabitur pretium tincidunt lacus nunc pulvinar ' +
  'sapien vitae viverra porta integer feugiat scelerisque varius morbi quam lectus aliquam faucibus purus gravida ' +
  'mauris nibh praesent semper feugiat nisl tellus rhoncus mattis ultrices neque ornare aenean euismod elementum'
).split(' ');

const OPENING = ['lorem', 'ipsum', 'dolor', 'sit', 'amet'];

export const LOREM_LIMITS = { paragraphs: 50, sentences: 500, words: 5000 } as const;

/** mulberry32: a small, fast, seedable PRNG; the same seed always gives the same text. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class LoremSource {
  readonly #random: () => number;
  #opening: string[];
  constructor(seed: number, startWithLorem: boolean) {
    this.#random = prng(seed);
    this.#opening = startWithLorem ? [...OPENING] : [];
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }
  word(): string {
    return this.#opening.shift() ?? WORDS[this.int(0, WORDS.length - 1)] ?? 'lorem';
  }
  /** A sentence of `n` words: capitalized, maybe one comma, ending in a full stop. */
  sentence(n: number = this.int(6, 14)): string {
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(this.word());
    if (n >= 8) {
      const at = this.int(2, n - 4);
      words[at] = `${words[at] ?? ''},`;
    }
    const text = words.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }
  paragraph(sentences: number = this.int(3, 6)): string[] {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(this.sentence());
    return out;
  }
}

const countWords = (s: string): number => s.split(' ').length;

export const loremIpsum = defineTool({
  family: 'text-utilities',
  slug: 'lorem-ipsum',
  title: 'Lorem ipsum generator',
  description:
    'Generates placeholder Latin-like text: `count` paragraphs (3–6 sentences each, at most 50), sentences (6–14 words, at most 500) ' +
    'or words (at most 5000, returned as one sentence). Paragraphs are separated by a blank line. The text is pseudo-random but ' +
    'deterministic: the same seed (default 1) and options always give the same text. With startWithLorem (default true) it opens ' +
    'with "Lorem ipsum dolor sit amet".',
  aliases: ['placeholder text', 'dummy text', 'filler text', 'lipsum', 'lorem generator'],
  credits: 1,
  input: z.object({
    unit: z.enum(['paragraphs', 'sentences', 'words']).default('paragraphs').describe('What `count` counts'),
    count: z.number().int().min(1).max(5000).default(3).describe('How many (paragraphs ≤ 50, sentences ≤ 500, words ≤ 5000)'),
    seed: z.number().int().min(0).max(4294967295).default(1).describe('Seed of the pseudo-random generator'),
    startWithLorem: z.boolean().default(true).describe('Begin with "Lorem ipsum dolor sit amet"'),
  }),
  output: z.object({
    text: z.string(),
    paragraphs: z.number().int(),
    sentences: z.number().int(),
    words: z.number().int(),
  }),
  examples: [
    {
      title: 'Two sentences',
      input: { unit: 'sentences', count: 2, seed: 7 },
      output: {
        text:
          'Lorem ipsum dolor sit amet adipiscing. Sapien non velit pariatur quis culpa porta, exercitation et scelerisque non enim irure aliquip.',
        paragraphs: 1,
        sentences: 2,
        words: 20,
      },
    },
    {
      title: 'Eight words, no classic opening',
      input: { unit: 'words', count: 8, seed: 42, startWithLorem: false },
      output: { text: 'Anim fugiat mauris lacus magna, proident laboris est.', paragraphs: 1, sentences: 1, words: 8 },
    },
  ],
  run({ unit, count, seed, startWithLorem }) {
    const limit = LOREM_LIMITS[unit];
    if (count > limit) {
      throw invalidInput(`At most ${limit} ${unit}`, [{ field: 'count', message: `must be at most ${limit} when unit is ${unit}` }]);
    }
    const source = new LoremSource(seed, startWithLorem);
    let paragraphs: string[][];
    if (unit === 'paragraphs') {
      paragraphs = Array.from({ length: count }, () => source.paragraph());
    } else if (unit === 'sentences') {
      paragraphs = [source.paragraph(count)];
    } else {
      paragraphs = [[source.sentence(count)]];
    }
    const sentences = paragraphs.flat();
    return {
      text: paragraphs.map((p) => p.join(' ')).join('\n\n'),
      paragraphs: paragraphs.length,
      sentences: sentences.length,
      words: sentences.reduce((n, s) => n + countWords(s), 0),
    };
  },
});
