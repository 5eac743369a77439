import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { textField } from './text-shared.ts';

export const TEXT_CASES = [
  'upper',
  'lower',
  'title',
  'sentence',
  'camel',
  'pascal',
  'snake',
  'kebab',
  'constant',
  'dot',
  'alternating',
  'inverse',
] as const;
export type TextCase = (typeof TEXT_CASES)[number];

// Words for the programming cases: runs of letters and digits, further split at camelCase
// boundaries ("parseHTTPResponse" → parse, HTTP, Response). Everything else separates words.
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{Lo}\p{Lt}\p{Lm}\p{M}\p{N}]+|\p{Lu}+|[\p{L}\p{M}\p{N}]+/gu;

export function splitWords(text: string): string[] {
  // Apostrophes inside a word do not split it: "it's" → its.
  return text.replace(/(?<=[\p{L}\p{N}])['’](?=\p{L})/gu, '').match(WORD) ?? [];
}

const capitalize = (word: string): string => {
  const [first = '', ...rest] = Array.from(word);
  return first.toUpperCase() + rest.join('').toLowerCase();
};

function titleCase(text: string): string {
  // First letter of every word upper, the rest lower; a word starts after anything that is not a letter, digit or apostrophe.
  return text.toLowerCase().replace(/(^|[^\p{L}\p{M}\p{N}'’])(\p{L})/gu, (_m, before: string, letter: string) => before + letter.toUpperCase());
}

const LETTER = /\p{L}/u;
const SPACE = /\s/u;

function sentenceCase(text: string): string {
  // Lower everything, then upper the first letter of the text and the first letter after . ! ? followed by whitespace.
  // One pass: a regular expression for "terminator, whitespace, non-letters, letter" scans to the
  // end of the text from every terminator when no letter follows, which is quadratic.
  const lower = text.toLowerCase();
  let out = '';
  let pending = true;
  for (let i = 0; i < lower.length; ) {
    const ch = String.fromCodePoint(lower.codePointAt(i)!);
    i += ch.length;
    if (pending && LETTER.test(ch)) {
      out += ch.toUpperCase();
      pending = false;
    } else {
      out += ch;
      if ((ch === '.' || ch === '!' || ch === '?') && SPACE.test(lower[i] ?? '')) pending = true;
    }
  }
  return out;
}

function alternatingCase(text: string): string {
  let i = 0;
  let out = '';
  for (const ch of text) {
    if (ch.toLowerCase() !== ch.toUpperCase()) {
      out += i % 2 === 0 ? ch.toLowerCase() : ch.toUpperCase();
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

function inverseCase(text: string): string {
  let out = '';
  for (const ch of text) {
    const upper = ch.toUpperCase();
    out += ch === upper ? ch.toLowerCase() : upper;
  }
  return out;
}

export function convertCase(text: string, to: TextCase): string {
  switch (to) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      return titleCase(text);
    case 'sentence':
      return sentenceCase(text);
    case 'alternating':
      return alternatingCase(text);
    case 'inverse':
      return inverseCase(text);
    case 'camel':
      return splitWords(text)
        .map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w)))
        .join('');
    case 'pascal':
      return splitWords(text).map(capitalize).join('');
    case 'snake':
      return splitWords(text).map((w) => w.toLowerCase()).join('_');
    case 'kebab':
      return splitWords(text).map((w) => w.toLowerCase()).join('-');
    case 'constant':
      return splitWords(text).map((w) => w.toUpperCase()).join('_');
    case 'dot':
      return splitWords(text).map((w) => w.toLowerCase()).join('.');
  }
}

export const textCaseConverter = defineTool({
  family: 'text-utilities',
  slug: 'text-case-converter',
  title: 'Text case converter',
  description:
    'Converts text to another letter case. upper/lower/inverse (swap case)/alternating (aLtErNaTiNg, counting letters only) ' +
    'keep everything else as is; title upper-cases the first letter of every word and lowers the rest; sentence lowers everything ' +
    'and upper-cases the first letter of each sentence (after . ! ? and whitespace). camel, pascal, snake, kebab, constant and dot ' +
    'split the text into words (runs of letters and digits, also split at camelCase boundaries: "XMLParser" → XML, Parser), drop ' +
    'everything else (apostrophes inside words are dropped: it’s → its) and join them: helloWorld, HelloWorld, hello_world, hello-world, HELLO_WORLD, hello.world.',
  aliases: ['uppercase', 'lowercase', 'title case', 'camelCase', 'snake_case', 'kebab-case', 'change case', 'capitalize'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to convert'),
    case: z.enum(TEXT_CASES).describe('The case to convert to'),
  }),
  output: z.object({
    text: z.string().describe('The converted text'),
    case: z.enum(TEXT_CASES).describe('The case converted to'),
  }),
  examples: [
    {
      title: 'Title case',
      input: { text: 'the QUICK brown fox', case: 'title' },
      output: { text: 'The Quick Brown Fox', case: 'title' },
    },
    {
      title: 'A label to a camelCase identifier',
      input: { text: 'User account ID', case: 'camel' },
      output: { text: 'userAccountId', case: 'camel' },
    },
    {
      title: 'An identifier to snake_case',
      input: { text: 'parseHTTPResponse2', case: 'snake' },
      output: { text: 'parse_http_response2', case: 'snake' },
    },
  ],
  run({ text, case: to }) {
    return { text: convertCase(text, to), case: to };
  },
});
