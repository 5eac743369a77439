// The synonym table: ways people name the same thing, folded into one concept term ("#speed") on
// both sides of the match, the goal and every title, alias and tag. A concept replaces the words
// it was read from, so "my site is slow" and the alias "page speed" meet on {#page, #speed}.
// Kept small and about the jobs we have: a word that is not here still matches itself.
import { stem } from './goal-text.ts';

/** concept -> the phrases that mean it (written plainly; stemmed when the table is built) */
export const SYNONYM_GROUPS: Readonly<Record<string, readonly string[]>> = {
  '#headers': ['security headers', 'http security headers', 'http headers', 'response headers', 'headers', 'header'],
  '#tls': ['ssl', 'tls', 'certificate', 'certificates', 'cert', 'certs', 'https', 'ssl certificate', 'tls certificate', 'ssl cert', 'encryption'],
  '#speed': ['speed', 'performance', 'perf', 'fast', 'faster', 'fastest', 'slow', 'slower', 'sluggish', 'core web vitals', 'web vitals', 'cwv', 'load time', 'loading time', 'loading', 'loads', 'pagespeed', 'lighthouse', 'latency'],
  '#seo': ['seo', 'search ranking', 'search rankings', 'search engine optimization', 'search engine optimisation', 'google', 'ranking', 'rankings', 'rank', 'rank higher', 'search engines', 'search engine'],
  '#ship': ['launch', 'launching', 'ship', 'shipping', 'release', 'go live', 'going live', 'golive', 'deploy', 'deployment', 'predeploy', 'pre deploy', 'production', 'prod', 'promote', 'promotion', 'ready to ship', 'ready for production'],
  '#compare': ['compare', 'comparison', 'comparing', 'vs', 'versus', 'against', 'side by side', 'head to head', 'benchmark', 'benchmark against'],
  '#competitor': ['competitor', 'competitors', 'rival', 'rivals', 'competition', 'competing site'],
  '#convert': ['convert', 'conversion', 'converter', 'converting', 'turn into', 'turn', 'change into', 'transform', 'export as', 'save as', 'export to', 'make into'],
  '#check': ['check', 'checker', 'audit', 'auditor', 'review', 'scan', 'scanner', 'analyze', 'analyse', 'analyzer', 'analyser', 'analysis', 'inspect', 'validate', 'validator', 'test', 'tester', 'grade', 'grader', 'evaluate', 'evaluator', 'verify', 'examine', 'look at', 'assess', 'assessment'],
  '#page': ['page', 'site', 'website', 'webpage', 'web page', 'web site', 'homepage', 'home page', 'landing page', 'webapp', 'web app'],
  '#calculate': ['calculate', 'calculator', 'calc', 'compute', 'work out', 'figure out', 'estimate'],
  '#docx': ['docx', 'word document', 'word file', 'ms word', 'microsoft word'],
  '#md': ['markdown', 'md'],
  '#txt': ['txt', 'plain text', 'text file'],
  '#xlsx': ['excel', 'xlsx', 'spreadsheet'],
  '#pptx': ['powerpoint', 'pptx', 'slides', 'slide deck'],
  '#emi': ['emi', 'monthly instalment', 'monthly installment', 'loan repayment', 'loan payment'],
  '#mixed': ['mixed content', 'insecure content', 'http resources'],
  '#cookie': ['cookie', 'cookies'],
  '#expiry': ['expiry', 'expire', 'expires', 'expiring', 'expired', 'expiration', 'expiry date', 'valid until'],
  '#security': ['security', 'secure', 'hardening', 'harden', 'safe', 'safety'],
};
// A bare "word" stays a word: it names the Word format ("pdf to word", matched by the titles'
// "Word (DOCX)") as often as words to count ("count the words").

interface Phrase {
  words: string[];
  concept: string;
}

function buildPhrases(): Phrase[] {
  const phrases: Phrase[] = [];
  for (const [concept, variants] of Object.entries(SYNONYM_GROUPS)) {
    for (const variant of variants) phrases.push({ words: variant.split(/\s+/).map(stem), concept });
  }
  // Longest first, so "security headers" is read before "security".
  return phrases.sort((a, b) => b.words.length - a.words.length);
}

const PHRASES = buildPhrases();
const FIRST_WORDS = new Set(PHRASES.map((p) => p.words[0] ?? ''));

/**
 * Families whose names use a concept's words in their literal sense: a speed converter converts
 * km/h to mph, it does not judge page speed. Their tools are indexed with the literal stems, so
 * "how fast does my page load" never meets the unit converter on the #speed concept; a goal for
 * the converter names its units (mph, km/h, knots: its aliases) or "convert speed units".
 */
export const LITERAL_SENSES: Readonly<Record<string, readonly string[]>> = {
  'unit-conversions': ['#speed'],
};

/** Every raw word the table knows, for typo correction ("perfomance" -> "performance"). */
export const SYNONYM_WORDS: readonly string[] = [...new Set(Object.values(SYNONYM_GROUPS).flatMap((v) => v.flatMap((p) => p.split(/\s+/))))];

export interface Term {
  /** the stem or the concept */
  term: string;
  /** where it starts among the goal's words (for word order) */
  at: number;
  /** the words it was read from, as written (after typo correction) */
  source: string;
}

/** Replaces every synonym phrase in a run of stemmed words by its concept; other words stay. */
export function applySynonyms(stems: readonly string[], shown: readonly string[] = stems): Term[] {
  const out: Term[] = [];
  let i = 0;
  while (i < stems.length) {
    const word = stems[i] ?? '';
    const phrase = FIRST_WORDS.has(word) ? PHRASES.find((p) => p.words.every((w, j) => stems[i + j] === w)) : undefined;
    if (phrase) {
      out.push({ term: phrase.concept, at: i, source: shown.slice(i, i + phrase.words.length).join(' ') });
      i += phrase.words.length;
    } else {
      out.push({ term: word, at: i, source: shown[i] ?? word });
      i += 1;
    }
  }
  return out;
}
