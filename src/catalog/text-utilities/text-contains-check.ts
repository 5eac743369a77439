import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { makeFinding, reportSchema, type Finding } from '../../analysis/findings.ts';
import { buildReport, type RuleDefinition } from '../../analysis/scoring.ts';
import { textField } from './text-shared.ts';

// Checks that a text holds every expected phrase, and answers in the findings model (one
// high-severity finding per missing phrase, with a stable findingId), so a playbook's gate can
// read it: the file workflow converts a document, extracts the result's text and checks it here.
// Text extracted from a PDF rarely keeps the source's line breaks or spacing, and may spell "fi"
// as the ligature "ﬁ", so both sides are compared after Unicode NFKC, with soft hyphens dropped
// and every run of whitespace read as one space; case is ignored unless asked for.

/** At most this many phrases per call; each at most MAX_PHRASE_LENGTH characters. */
export const MAX_PHRASES = 100;
export const MAX_PHRASE_LENGTH = 1000;

export const PHRASE_MISSING: RuleDefinition = {
  id: 'text-phrase-missing',
  category: 'best-practices',
  weight: 1,
  severity: 'high',
  title: 'Every expected phrase is in the text',
};

const phraseField = z.string().min(1).max(MAX_PHRASE_LENGTH);

/** The comparison form: NFKC, no soft hyphens, whitespace runs as one space, trimmed; lower-case unless case counts. */
export function normaliseForMatch(text: string, caseSensitive: boolean): string {
  const folded = text.normalize('NFKC').replace(/\u00ad/g, '').replace(/\s+/gu, ' ').trim();
  return caseSensitive ? folded : folded.toLowerCase();
}

/** The phrases as given: a list, or one string with a phrase per line (blank lines skipped); duplicates once. */
function phrasesOf(expected: string | readonly string[], caseSensitive: boolean): string[] {
  const raw = typeof expected === 'string' ? expected.split(/\r\n|\n|\r/) : expected;
  const seen = new Set<string>();
  const phrases: string[] = [];
  for (const phrase of raw) {
    const key = normaliseForMatch(phrase, caseSensitive);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    phrases.push(phrase.trim());
  }
  if (phrases.length === 0) throw invalidInput('No phrase to look for', [{ field: 'expected', message: 'give at least one phrase with a letter, digit or sign in it' }]);
  if (phrases.length > MAX_PHRASES) throw invalidInput(`At most ${MAX_PHRASES} phrases per check`, [{ field: 'expected', message: `${phrases.length} phrases given` }]);
  const long = phrases.find((p) => p.length > MAX_PHRASE_LENGTH);
  if (long !== undefined) throw invalidInput(`A phrase is longer than ${MAX_PHRASE_LENGTH} characters`, [{ field: 'expected', message: `${long.length} characters` }]);
  return phrases;
}

const clip = (s: string, max = 120): string => (s.length > max ? `${s.slice(0, max - 3)}...` : s);

function missingFinding(phrase: string, caseSensitive: boolean): Finding {
  return makeFinding({
    rule: PHRASE_MISSING.id,
    category: PHRASE_MISSING.category,
    severity: PHRASE_MISSING.severity,
    // The phrase as compared is its place: the same phrase however spaced is one instance.
    location: `phrase:${normaliseForMatch(phrase, caseSensitive)}`,
    title: `The text lacks "${clip(phrase, 80)}"`,
    detail: `"${clip(phrase)}" does not occur in the text, compared after Unicode NFKC with whitespace collapsed${caseSensitive ? '' : ' and case ignored'}.`,
    evidence: { value: clip(phrase, 300) },
    fix: {
      patchType: 'content',
      change: `Put "${clip(phrase)}" into the source document, or fix the step that drops it (a font without the glyphs, text set as an image), then run the check again`,
      acceptance: `The text contains "${clip(phrase)}"`,
      roleHint: 'edit',
    },
  });
}

export const textContainsCheck = defineTool({
  family: 'text-utilities',
  slug: 'text-contains-check',
  title: 'Text contains check',
  description:
    'Checks that a text contains every expected phrase, for example the text read back from a PDF made from a document. Phrases are a list, or ' +
    'one string with a phrase per line; both sides are compared after Unicode NFKC (so the ligature "ﬁ" reads as "fi"), with soft ' +
    'hyphens dropped and any run of whitespace or line breaks read as one space; case is ignored unless caseSensitive is true. ' +
    'Answers which phrases were found and a findings report: one high-severity finding per missing phrase (rule text-phrase-missing, ' +
    'category best-practices, a findingId stable for the phrase) and a best-practices score equal to the share of phrases found, ' +
    'so a playbook gate passes only when all are there.',
  aliases: ['text contains check', 'check text contains phrases', 'verify expected text', 'expected phrases check', 'assert text includes'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to search'),
    expected: z
      .union([z.array(phraseField).min(1).max(MAX_PHRASES), z.string().min(1).max(MAX_PHRASES * (MAX_PHRASE_LENGTH + 2))])
      .describe(`The phrases that must be in the text: a list, or one string with a phrase per line (at most ${MAX_PHRASES})`),
    caseSensitive: z.boolean().default(false).describe('Compare letter case too'),
  }),
  output: z.object({
    allFound: z.boolean().describe('Every phrase is in the text'),
    found: z.number().int().describe('How many phrases are in the text'),
    missing: z.array(z.string()).describe('The phrases not in the text, in the order given'),
    phrases: z.array(z.object({ phrase: z.string(), found: z.boolean() })).describe('Each phrase (trimmed, duplicates once) and whether it is there'),
    report: reportSchema.describe('The findings model: one high-severity text-phrase-missing finding, counting the missing phrases and listing them in instances'),
  }),
  examples: [
    {
      title: 'A phrase split over two lines is found; a missing one is a finding',
      input: { text: 'Invoice 402\nTotal due: 1,250.00\nPayable within\n30 days.', expected: ['Total due: 1,250.00', 'payable within 30 days', 'Late fee'] },
      output: {
        allFound: false,
        found: 2,
        missing: ['Late fee'],
        phrases: [
          { phrase: 'Total due: 1,250.00', found: true },
          { phrase: 'payable within 30 days', found: true },
          { phrase: 'Late fee', found: false },
        ],
        report: {
          scores: { 'best-practices': 67, overall: 67 },
          statuses: { 'best-practices': 'needs_improvement', overall: 'needs_improvement' },
          findings: [
            {
              findingId: 'text-phrase-missing:f4decac4c6',
              rule: 'text-phrase-missing',
              category: 'best-practices',
              severity: 'high',
              title: 'The text lacks "Late fee"',
              detail: '"Late fee" does not occur in the text, compared after Unicode NFKC with whitespace collapsed and case ignored.',
              evidence: { value: 'Late fee' },
              fix: {
                patchType: 'content',
                change: 'Put "Late fee" into the source document, or fix the step that drops it (a font without the glyphs, text set as an image), then run the check again',
                acceptance: 'The text contains "Late fee"',
                roleHint: 'edit',
              },
              count: 1,
              instances: [{ value: 'Late fee' }],
            },
          ],
          checks: [{ rule: 'text-phrase-missing', category: 'best-practices', weight: 1, result: 'fail', score: 0.6667 }],
          summary: { findings: 1, high: 1, medium: 0, low: 0, info: 0, checks: 1, passed: 0, failed: 1, unknown: 0 },
          incomplete: false,
          notes: [],
          details: { phrases: 3, found: 2, caseSensitive: false },
        },
      },
    },
    {
      title: 'Every phrase there, case counted',
      input: { text: 'The committee approved the budget.', expected: 'committee approved\nthe budget', caseSensitive: true },
      output: {
        allFound: true,
        found: 2,
        missing: [],
        phrases: [
          { phrase: 'committee approved', found: true },
          { phrase: 'the budget', found: true },
        ],
        report: {
          scores: { 'best-practices': 100, overall: 100 },
          statuses: { 'best-practices': 'good', overall: 'good' },
          findings: [],
          checks: [{ rule: 'text-phrase-missing', category: 'best-practices', weight: 1, result: 'pass', score: 1 }],
          summary: { findings: 0, high: 0, medium: 0, low: 0, info: 0, checks: 1, passed: 1, failed: 0, unknown: 0 },
          incomplete: false,
          notes: [],
          details: { phrases: 2, found: 2, caseSensitive: true },
        },
      },
    },
  ],
  run({ text, expected, caseSensitive }) {
    const phrases = phrasesOf(expected, caseSensitive);
    const haystack = normaliseForMatch(text, caseSensitive);
    const results = phrases.map((phrase) => ({ phrase, found: haystack.includes(normaliseForMatch(phrase, caseSensitive)) }));
    const missing = results.filter((r) => !r.found).map((r) => r.phrase);
    const found = results.length - missing.length;
    const share = Math.round((found / results.length) * 10_000) / 10_000;
    const report = buildReport({
      categories: [PHRASE_MISSING.category],
      checks: [{ rule: PHRASE_MISSING.id, category: PHRASE_MISSING.category, weight: PHRASE_MISSING.weight, result: missing.length > 0 ? 'fail' : 'pass', score: share }],
      findings: missing.map((phrase) => missingFinding(phrase, caseSensitive)),
      details: { phrases: results.length, found, caseSensitive },
    });
    return { allFound: missing.length === 0, found, missing, phrases: results, report };
  },
});
