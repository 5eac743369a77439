import { z } from 'zod';
import { defineTool, INLINE_TEXT_BUDGET, poolAbove } from '../../core/define-tool.ts';
import { invalidInput, unprocessable } from '../../core/errors.ts';
import { textField } from './text-shared.ts';
import { regexTimeout, runTimeBounded, TaskTimeoutError } from './time-bounded.ts';

/** Wall-clock budget for matching a regular expression against the text. */
export const REGEX_TIMEOUT_MS = 1000;
/** Longest result returned, in UTF-16 code units. */
export const MAX_RESULT_LENGTH = 5_000_000;

class ResultTooLarge extends Error {}

/**
 * The replacement text for one match, following String.prototype.replace's rules:
 * $$, $&, $`, $', $1–$99 and $<name>.
 */
export function substitute(
  replacement: string,
  matched: string,
  position: number,
  subject: string,
  captures: readonly (string | undefined)[],
  groups: Record<string, string | undefined> | undefined,
): string {
  if (!replacement.includes('$')) return replacement;
  let out = '';
  let i = 0;
  while (i < replacement.length) {
    const ch = replacement[i];
    const next = replacement[i + 1];
    if (ch !== '$' || next === undefined) {
      out += ch;
      i++;
      continue;
    }
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '&') {
      out += matched;
      i += 2;
    } else if (next === '`') {
      out += subject.slice(0, position);
      i += 2;
    } else if (next === "'") {
      out += subject.slice(position + matched.length);
      i += 2;
    } else if (next >= '0' && next <= '9') {
      const after = replacement[i + 2];
      const two = after !== undefined && after >= '0' && after <= '9' ? Number(next + after) : NaN;
      const one = Number(next);
      if (two >= 1 && two <= captures.length) {
        out += captures[two - 1] ?? '';
        i += 3;
      } else if (one >= 1 && one <= captures.length) {
        out += captures[one - 1] ?? '';
        i += 2;
      } else {
        out += '$';
        i++;
      }
    } else if (next === '<' && groups !== undefined) {
      const close = replacement.indexOf('>', i + 2);
      if (close === -1) {
        out += '$<';
        i += 2;
      } else {
        out += groups[replacement.slice(i + 2, close)] ?? '';
        i = close + 1;
      }
    } else {
      out += '$';
      i++;
    }
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const findReplace = defineTool({
  family: 'text-utilities',
  slug: 'find-replace',
  title: 'Find and replace',
  description:
    'Replaces text. In plain mode `pattern` is literal and `replacement` is inserted as is; ignoreCase and all (default true: ' +
    'every occurrence, false: the first) apply. In regex mode `pattern` is a JavaScript regular expression with `flags` ' +
    `(default "g"; any of d g i m s u v y) and \`replacement\` may use $1–$99, $<name>, $&, $\`, $' and $$. Matching runs under a ` +
    `${REGEX_TIMEOUT_MS} ms time limit: a pattern that backtracks catastrophically is stopped with a 422 (error "regex_timeout"). ` +
    `Invalid regex syntax is a 400 naming \`pattern\`. Results longer than ${MAX_RESULT_LENGTH.toLocaleString('en-US')} characters are a 422.`,
  aliases: ['search and replace', 'regex replace', 'replace text', 'substitute', 'sed', 'regular expression replace'],
  credits: 1,
  // A regular expression's cost is not bounded by its text's length (backtracking): always on the
  // pool. Plain text inline only when short and when its replacements cannot grow it past a few
  // times the inline budget (a short pattern replaced by a long text, matched everywhere).
  compute: (input) =>
    input.mode === 'regex' || (input.text.length / input.pattern.length) * input.replacement.length > 4 * INLINE_TEXT_BUDGET ? 'pool' : poolAbove()(input),
  input: z.object({
    text: textField('The text to search'),
    pattern: z.string().min(1).max(10_000).describe('What to look for: literal text in plain mode, a regular expression (without slashes) in regex mode'),
    replacement: z.string().max(10_000).default('').describe('What to put in place of each match'),
    mode: z.enum(['plain', 'regex']).default('plain').describe('Literal text or regular expression'),
    flags: z
      .string()
      .regex(/^(?!.*(.).*\1)[dgimsuvy]*$/, 'must be distinct letters among d g i m s u v y')
      .default('g')
      .describe('Regex flags, regex mode only (g = every match)'),
    ignoreCase: z.boolean().default(false).describe('Plain mode: match regardless of case'),
    all: z.boolean().default(true).describe('Plain mode: replace every occurrence (false: only the first)'),
  }),
  output: z.object({
    text: z.string().describe('The text after replacement'),
    replacements: z.number().int().describe('How many matches were replaced'),
  }),
  examples: [
    {
      title: 'Plain, case-insensitive',
      input: { text: 'Cats and cats and CATs', pattern: 'cat', replacement: 'dog', ignoreCase: true },
      output: { text: 'dogs and dogs and dogs', replacements: 3 },
    },
    {
      title: 'Regex with capture groups: swap "last, first"',
      input: { text: 'Doe, Jane\nRoe, Richard', pattern: '^(\\w+), (\\w+)$', replacement: '$2 $1', mode: 'regex', flags: 'gm' },
      output: { text: 'Jane Doe\nRichard Roe', replacements: 2 },
    },
  ],
  run({ text, pattern, replacement, mode, flags, ignoreCase, all }) {
    let re: RegExp;
    let literal = false;
    if (mode === 'plain') {
      re = new RegExp(escapeRegExp(pattern), `${all ? 'g' : ''}${ignoreCase ? 'i' : ''}`);
      literal = true;
    } else {
      try {
        re = new RegExp(pattern, flags);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const field = /flag/i.test(message) ? 'flags' : 'pattern';
        throw invalidInput('Invalid regular expression', [{ field, message }]);
      }
    }
    let replacements = 0;
    let length = text.length;
    const replacer = (...args: unknown[]): string => {
      replacements++;
      const hasGroups = typeof args[args.length - 1] === 'object';
      const groups = hasGroups ? (args[args.length - 1] as Record<string, string | undefined>) : undefined;
      const tail = hasGroups ? 3 : 2;
      const matched = args[0] as string;
      const position = args[args.length - tail] as number;
      const captures = args.slice(1, args.length - tail) as (string | undefined)[];
      const out = literal ? replacement : substitute(replacement, matched, position, text, captures, groups);
      length += out.length - matched.length;
      if (length > MAX_RESULT_LENGTH) throw new ResultTooLarge();
      return out;
    };
    try {
      const result = runTimeBounded(() => text.replace(re, replacer), REGEX_TIMEOUT_MS);
      return { text: result, replacements };
    } catch (error) {
      if (error instanceof TaskTimeoutError) throw regexTimeout('pattern', REGEX_TIMEOUT_MS);
      if (error instanceof ResultTooLarge) {
        throw unprocessable(
          'The result would be too long',
          `Replacing would produce more than ${MAX_RESULT_LENGTH.toLocaleString('en-US')} characters.`,
        );
      }
      throw error;
    }
  },
});
