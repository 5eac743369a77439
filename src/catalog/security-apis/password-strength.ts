// Password strength the zxcvbn way (@zxcvbn-ts: pattern matching against common passwords,
// English words and names, keyboard walks, sequences, repeats and dates, then the cheapest way
// to guess the whole). The password is never in the result, the logs or an error: patterns are
// reported by position and kind, not by the characters they cover.
import { ZxcvbnFactory, type MatchEstimated, type ZxcvbnResult } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';

export const MAX_PASSWORD_LENGTH = 256;
export const MAX_USER_INPUTS = 20;
export const MAX_USER_INPUT_LENGTH = 100;

// Built on first use: loading the dictionaries takes ~150 ms, which tools that never check a
// password should not pay at start.
let factory: ZxcvbnFactory | undefined;
function estimator(): ZxcvbnFactory {
  factory ??= new ZxcvbnFactory({
    translations: en.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary },
    maxLength: MAX_PASSWORD_LENGTH,
  });
  return factory;
}

const STRENGTH = ['very weak', 'weak', 'fair', 'strong', 'very strong'] as const;

const crackTimeSchema = z.object({
  guessesPerSecond: z.number().describe('The attacker speed this scenario assumes'),
  seconds: z.number().describe('Time to guess the password at that speed (3 significant digits)'),
  display: z.string().describe('The same, in words'),
});

const patternSchema = z.object({
  kind: z
    .enum(['dictionary', 'user-input', 'keyboard', 'sequence', 'repeat', 'date', 'recent-year', 'separator', 'bruteforce', 'other'])
    .describe('What the characters at start..end were recognised as; bruteforce means no pattern'),
  start: z.number().int().describe('0-based index of its first character'),
  end: z.number().int().describe('0-based index of its last character'),
  length: z.number().int(),
  guessesLog10: z.number().describe('log10 of the guesses this part alone costs'),
  dictionary: z.string().optional().describe('For dictionary words: the list it is in (passwords-common, commonWords-en, firstnames-en, ...)'),
  rank: z.number().int().optional().describe('For dictionary words: its rank in that list (1 is the most common)'),
  l33t: z.boolean().optional().describe('For dictionary words: found after undoing l33t substitutions (4 for a, 0 for o)'),
  reversed: z.boolean().optional().describe('For dictionary words: found written backwards'),
  keyboard: z.string().optional().describe('For keyboard walks: the layout (qwerty, dvorak, keypad, ...)'),
  turns: z.number().int().optional().describe('For keyboard walks: changes of direction'),
  sequence: z.string().optional().describe('For sequences: lower, upper, digits or unicode'),
  repeatCount: z.number().int().optional().describe('For repeats: how many times the unit repeats'),
});
export type DetectedPattern = z.infer<typeof patternSchema>;

const outputSchema = z.object({
  score: z.number().int().min(0).max(4).describe('0 too guessable, 1 very guessable, 2 somewhat guessable, 3 safely unguessable, 4 very unguessable'),
  strength: z.enum(STRENGTH).describe('The score in words'),
  length: z.number().int().describe('Characters checked'),
  guessesLog10: z.number().describe('log10 of the estimated guesses needed (2 decimals)'),
  crackTimes: z.object({
    onlineThrottled: crackTimeSchema.describe('An online attack on a service that rate-limits: 100 guesses per hour'),
    onlineUnthrottled: crackTimeSchema.describe('An online attack with no rate limit: 10 guesses per second'),
    offlineSlowHashing: crackTimeSchema.describe('Stolen hashes of a slow hash (bcrypt, scrypt, Argon2): 10^4 guesses per second'),
    offlineFastHashing: crackTimeSchema.describe('Stolen hashes of a fast hash (MD5, SHA-1) on many GPUs: 10^10 guesses per second'),
  }),
  feedback: z.object({
    warning: z.string().nullable().describe('The main weakness, or null'),
    suggestions: z.array(z.string()).describe('What would make it stronger'),
  }),
  patterns: z.array(patternSchema).describe('The cheapest split of the password into patterns, in order; positions only, never the characters'),
});
export type PasswordStrengthResult = z.infer<typeof outputSchema>;

const RATES = {
  onlineThrottled: ['onlineThrottlingXPerHour', 100 / 3600],
  onlineUnthrottled: ['onlineNoThrottlingXPerSecond', 10],
  offlineSlowHashing: ['offlineSlowHashingXPerSecond', 1e4],
  offlineFastHashing: ['offlineFastHashingXPerSecond', 1e10],
} as const;

/** Three significant digits: enough to read, and the same on every platform. */
function sig3(n: number): number {
  return n === 0 || !Number.isFinite(n) ? n : Number(n.toPrecision(3));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function describePattern(m: MatchEstimated): DetectedPattern {
  const base = { start: m.i, end: m.j, length: m.j - m.i + 1, guessesLog10: round2(m.guessesLog10) };
  switch (m.pattern) {
    case 'dictionary': {
      const userInput = m['dictionaryName'] === 'userInputs';
      return {
        kind: userInput ? 'user-input' : 'dictionary',
        ...base,
        ...(userInput ? {} : { dictionary: String(m['dictionaryName']) }),
        rank: Number(m['rank']),
        l33t: Boolean(m['l33t']),
        reversed: Boolean(m['reversed']),
      };
    }
    case 'spatial':
      return { kind: 'keyboard', ...base, keyboard: String(m['graph']), turns: Number(m['turns']) };
    case 'sequence':
      return { kind: 'sequence', ...base, sequence: String(m['sequenceName']) };
    case 'repeat':
      return { kind: 'repeat', ...base, repeatCount: Number(m['repeatCount']) };
    case 'date':
      return { kind: 'date', ...base };
    case 'regex':
      return { kind: m['regexName'] === 'recentYear' ? 'recent-year' : 'other', ...base };
    case 'separator':
    case 'bruteforce':
      return { kind: m.pattern, ...base };
    default:
      return { kind: 'other', ...base };
  }
}

export function estimatePasswordStrength(password: string, userInputs: readonly string[] = []): PasswordStrengthResult {
  const result: ZxcvbnResult = estimator().check(password, [...userInputs]);
  const crack = (key: keyof typeof RATES) => {
    const [name, rate] = RATES[key];
    const time = result.crackTimes[name];
    return { guessesPerSecond: sig3(rate), seconds: sig3(time.seconds), display: time.display };
  };
  return {
    score: result.score,
    strength: STRENGTH[result.score],
    length: Math.min([...password].length, MAX_PASSWORD_LENGTH),
    guessesLog10: round2(result.guessesLog10),
    crackTimes: {
      onlineThrottled: crack('onlineThrottled'),
      onlineUnthrottled: crack('onlineUnthrottled'),
      offlineSlowHashing: crack('offlineSlowHashing'),
      offlineFastHashing: crack('offlineFastHashing'),
    },
    feedback: { warning: result.feedback.warning || null, suggestions: [...result.feedback.suggestions] },
    patterns: (result.sequence as MatchEstimated[]).map(describePattern),
  };
}

export const passwordStrength = defineTool({
  family: 'security-apis',
  slug: 'password-strength',
  title: 'Password strength',
  description:
    'Estimates how hard a password is to guess, the zxcvbn way: it finds common passwords, English words and names (also reversed or ' +
    'in l33t), the userInputs you pass (name, e-mail, site), keyboard walks, sequences, repeats and dates, and counts the guesses of ' +
    'the cheapest way to try them. Answers a 0-4 score, log10 guesses, crack times for four attack speeds, a warning with suggestions, ' +
    'and the patterns by position. The password is never returned or logged.',
  aliases: ['password checker', 'password strength meter', 'zxcvbn', 'password entropy', 'how secure is my password'],
  credits: 1,
  input: z.object({
    password: z.string().min(1).max(MAX_PASSWORD_LENGTH).describe(`The password to judge (1-${MAX_PASSWORD_LENGTH} characters); never echoed or stored`),
    userInputs: z
      .array(z.string().min(1).max(MAX_USER_INPUT_LENGTH))
      .max(MAX_USER_INPUTS)
      .default([])
      .describe(`Words a guesser would try first for this user (name, e-mail, site name): up to ${MAX_USER_INPUTS}, each up to ${MAX_USER_INPUT_LENGTH} characters`),
  }),
  output: outputSchema,
  // guessesLog10 and crack times are the library's, rounded; none of these depends on today's date.
  examples: [
    {
      title: 'A keyboard word with digits',
      input: { password: 'qwerty123' },
      output: {
        score: 0,
        strength: 'very weak',
        length: 9,
        guessesLog10: 2.44,
        crackTimes: {
          onlineThrottled: { guessesPerSecond: 0.0278, seconds: 9830, display: '3 hours' },
          onlineUnthrottled: { guessesPerSecond: 10, seconds: 27.3, display: '27 seconds' },
          offlineSlowHashing: { guessesPerSecond: 10000, seconds: 0.0273, display: 'less than a second' },
          offlineFastHashing: { guessesPerSecond: 10000000000, seconds: 2.73e-8, display: 'less than a second' },
        },
        feedback: { warning: 'This is a commonly used password.', suggestions: ['Add more words that are less common.'] },
        patterns: [
          { kind: 'dictionary', start: 0, end: 8, length: 9, guessesLog10: 2.43, dictionary: 'passwords-common', rank: 272, l33t: false, reversed: false },
        ],
      },
    },
    {
      title: 'Built on the user name it belongs to',
      input: { password: 'janedoe!', userInputs: ['jane', 'doe'] },
      output: {
        score: 2,
        strength: 'fair',
        length: 8,
        guessesLog10: 6,
        crackTimes: {
          onlineThrottled: { guessesPerSecond: 0.0278, seconds: 36400000, display: '1 year' },
          onlineUnthrottled: { guessesPerSecond: 10, seconds: 101000, display: '1 day' },
          offlineSlowHashing: { guessesPerSecond: 10000, seconds: 101, display: '2 minutes' },
          offlineFastHashing: { guessesPerSecond: 10000000000, seconds: 0.000101, display: 'less than a second' },
        },
        feedback: { warning: 'There should not be any personal or page related data.', suggestions: ['Add more words that are less common.'] },
        patterns: [
          { kind: 'user-input', start: 0, end: 3, length: 4, guessesLog10: 1.7, rank: 1, l33t: false, reversed: false },
          { kind: 'bruteforce', start: 4, end: 7, length: 4, guessesLog10: 4 },
        ],
      },
    },
    {
      title: 'A long passphrase with l33t and separators',
      input: { password: 'drOw$sy-Kettle-9-m4rble' },
      output: {
        score: 4,
        strength: 'very strong',
        length: 23,
        guessesLog10: 20.15,
        crackTimes: {
          onlineThrottled: { guessesPerSecond: 0.0278, seconds: 5.06e+21, display: 'centuries' },
          onlineUnthrottled: { guessesPerSecond: 10, seconds: 14100000000000000000, display: 'centuries' },
          offlineSlowHashing: { guessesPerSecond: 10000, seconds: 14100000000000000, display: 'centuries' },
          offlineFastHashing: { guessesPerSecond: 10000000000, seconds: 14100000000, display: 'centuries' },
        },
        feedback: { warning: null, suggestions: [] },
        patterns: [
          { kind: 'bruteforce', start: 0, end: 7, length: 8, guessesLog10: 8 },
          { kind: 'dictionary', start: 8, end: 13, length: 6, guessesLog10: 3.85, dictionary: 'diceware-common', rank: 3553, l33t: false, reversed: false },
          { kind: 'keyboard', start: 14, end: 16, length: 3, guessesLog10: 2.96, keyboard: 'keypad', turns: 2 },
          { kind: 'dictionary', start: 17, end: 22, length: 6, guessesLog10: 3.95, dictionary: 'lastnames-en', rank: 4470, l33t: true, reversed: false },
        ],
      },
    },
  ],
  run: ({ password, userInputs }) => estimatePasswordStrength(password, userInputs),
});
