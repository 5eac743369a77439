// The goal matcher behind plan_task and solve_task: from a goal as a person writes it, the jobs
// (playbooks and catalog tools) it may mean, ranked with a confidence from 0 to 1, and whether the
// best is clear enough to run (`match`) or the caller should choose (`suggest`).
//
// How a goal is read: URLs are taken out (they name the page, not the job); the words are folded
// (case, accents, possessives), typos corrected against the registries' own words (edit distance
// 1, or 2 for words of 8 letters or more; a word that is itself an English word, "shop", is never
// a typo), stemmed, synonym phrases folded into concepts, stop
// words dropped. Each job is then scored on two things, equally weighted:
//   - explained: how much of the goal the job accounts for (each goal term weighted by how rare
//     it is across jobs, times the weight of the job's field holding it; words no job knows
//     weigh little, so filler does not sink a match but words naming another job do);
//   - named: how completely one of the job's names (title, id, an alias) appears in the goal.
// A conversion named the wrong way round ("pdf to word" for Word to PDF) has its score halved.
// A best job that accounts for none of the goal's specific words (only "site", "better", "file",
// "convert": see VAGUE_TERMS) is a guess, so the goal is answered with a suggest, never run.
import { allowedTypos, extractUrls, MAX_GOAL_CHARS, MAX_GOAL_WORDS, rawWords, stem, STOP_TERMS, STOP_WORDS, typoDistance } from './goal-text.ts';
import { applySynonyms, LITERAL_SENSES, type Term } from './goal-synonyms.ts';
import { goalIndexFor, type GoalIndex, type IndexedJob, type JobKind, type Registries } from './goal-index.ts';
import { COMMON_WORDS, VAGUE_TERMS } from './goal-vocabulary.ts';

export type { Registries, JobKind } from './goal-index.ts';

/**
 * The best job is run only when its confidence is at least MATCH_THRESHOLD and it leads every
 * unrelated job by at least MATCH_MARGIN. A threshold of 0.55 needs a goal that names most of a
 * job (a full alias alone gives at least 0.5 + part of the other half); the margin of 0.1 keeps
 * "convert my pdf" (a dozen pdf conversions within a few hundredths) a suggestion.
 */
export const MATCH_THRESHOLD = 0.55;
export const MATCH_MARGIN = 0.1;
/** How many ranked candidates an answer lists. */
export const MAX_CANDIDATES = 5;
// A goal word no job knows weighs this much, against 1.5-4.7 for known words (ln of rarity).
const UNKNOWN_WEIGHT = 0.4;
const REVERSED_CONVERSION = 0.5;

export interface GoalCandidate {
  kind: JobKind;
  /** a playbook id or a catalog operationId, always one of the registries' */
  id: string;
  title: string;
  /** 0..1, rounded to 3 decimals */
  confidence: number;
  /** the goal's words this job accounts for, as written (a corrected typo shows as "chek->check") */
  matchedOn: string[];
  /** the job's title or alias the goal names most completely, or null */
  matchedPhrase: string | null;
}

/**
 * Why the decision is what it is. `empty_goal` and `goal_too_long` are invalid goals (never
 * matched); `no_words` a goal with nothing to match once URLs and filler are gone (a bare URL,
 * random characters); `low_confidence` nothing reaches the threshold; `ambiguous` two unrelated
 * jobs are within the margin; `several_jobs` the goal names an unrelated job in full besides the
 * best ("audit my seo and page speed"); `vague` the best job matches only on words that fit many
 * jobs ("make my site better", "convert my file").
 */
export type MatchReason = 'matched' | 'empty_goal' | 'goal_too_long' | 'no_words' | 'low_confidence' | 'ambiguous' | 'several_jobs' | 'vague';

export interface GoalMatch {
  decision: 'match' | 'suggest';
  reason: MatchReason;
  /** the job to run when decision is match; otherwise null */
  best: GoalCandidate | null;
  /** up to MAX_CANDIDATES, best first (empty for an invalid goal) */
  candidates: GoalCandidate[];
  /** URLs found in the goal, in order, absolute */
  urls: string[];
  /** typo corrections applied, as written -> as read */
  corrections: { from: string; to: string }[];
}

interface GoalTerms {
  terms: Term[];
  weights: Map<string, number>;
  words: string[];
  corrections: { from: string; to: string }[];
}

function correct(word: string, index: GoalIndex): string {
  if (STOP_WORDS.has(word) || COMMON_WORDS.has(word) || index.known.has(word) || index.known.has(stem(word))) return word;
  const max = allowedTypos(word.length);
  if (max === 0) return word;
  let best: { word: string; d: number } | null = null;
  for (let len = word.length - max; len <= word.length + max; len++) {
    for (const candidate of index.correctable.get(len) ?? []) {
      const d = typoDistance(word, candidate, max);
      if (d <= max && (best === null || d < best.d)) best = { word: candidate, d };
    }
  }
  return best?.word ?? word;
}

// Rarity depends on the index alone, and scoring asks for it for every name term of every job on
// each goal: the table is worked out once per index (the index itself is built once per registries).
const idfTables = new WeakMap<GoalIndex, Map<string, number>>();

function idfTable(index: GoalIndex): Map<string, number> {
  let table = idfTables.get(index);
  if (table === undefined) {
    table = new Map([...index.df].map(([term, df]) => [term, df === 0 ? 0 : Math.log((index.jobs.length + 1) / (df + 0.5))]));
    idfTables.set(index, table);
  }
  return table;
}

// A job holding none of a goal's terms scores 0 on both halves (a job's names are among its
// terms) and is dropped: only the jobs holding at least one goal term are scored. The ranking
// below is a total order (ids are unique), so the order they are scored in changes nothing.
const jobsByTerm = new WeakMap<GoalIndex, Map<string, IndexedJob[]>>();

function jobsHolding(index: GoalIndex, terms: Iterable<string>): IndexedJob[] {
  let byTerm = jobsByTerm.get(index);
  if (byTerm === undefined) {
    byTerm = new Map();
    for (const job of index.jobs) {
      for (const term of job.weights.keys()) {
        const jobs = byTerm.get(term);
        if (jobs === undefined) byTerm.set(term, [job]);
        else jobs.push(job);
      }
    }
    jobsByTerm.set(index, byTerm);
  }
  const found = new Set<IndexedJob>();
  for (const term of terms) for (const job of byTerm.get(term) ?? []) found.add(job);
  return [...found];
}

function idf(term: string, index: GoalIndex): number {
  return idfTable(index).get(term) ?? 0;
}

const LITERAL_CONCEPTS = new Set(Object.values(LITERAL_SENSES).flat());

/** The stems of the (corrected) words a concept was read from, each at its own place. */
function literalTerms(t: Term, words: readonly string[]): Term[] {
  const count = t.source.split(/\s+/).length;
  return words.slice(t.at, t.at + count).map((w, j) => ({ term: stem(w), at: t.at + j, source: w }));
}

function readGoal(text: string, index: GoalIndex): GoalTerms {
  const written = rawWords(text).slice(0, MAX_GOAL_WORDS);
  const corrections: { from: string; to: string }[] = [];
  const words = written.map((w) => {
    const fixed = correct(w, index);
    if (fixed !== w) corrections.push({ from: w, to: fixed });
    return fixed;
  });
  const shown = written.map((w, i) => (words[i] !== w ? `${w}->${words[i] ?? ''}` : w));
  const seen = new Set<string>();
  const folded = applySynonyms(words.map(stem), shown);
  // A concept some family reads literally ("speed" of a unit converter) keeps the literal stems it
  // was read from too, which only that family's tools hold (see LITERAL_SENSES).
  const literals = folded.flatMap((t) => (LITERAL_CONCEPTS.has(t.term) ? literalTerms(t, words) : [])).filter((t) => index.df.has(t.term));
  const terms = [...folded, ...literals].filter((t) => !STOP_TERMS.has(t.term) && !seen.has(t.term) && seen.add(t.term) !== undefined);
  const weights = new Map<string, number>();
  for (const t of terms) weights.set(t.term, index.df.has(t.term) ? idf(t.term, index) : UNKNOWN_WEIGHT);
  return { terms, weights, words, corrections };
}

// Whether the goal names a conversion's formats the wrong way round: the target first, or the
// source after "to"/"into"; "from X" marks X as the source whatever the order.
function reversed(job: IndexedJob, goal: GoalTerms): boolean {
  if (job.direction === undefined) return false;
  const first = (set: Set<string>): Term | undefined => goal.terms.find((t) => set.has(t.term) && !(job.direction?.from.has(t.term) && job.direction.to.has(t.term)));
  const source = first(job.direction.from);
  const target = first(job.direction.to);
  // "to CSV" names CSV the target: a job converting from CSV is the wrong way round, even when
  // the goal does not name what the job converts to.
  if (source !== undefined && target === undefined) return afterTo(source, goal.words);
  if (source === undefined || target === undefined) return false;
  // "from my old word file": only stop words may stand between "from" and the format.
  const afterFrom = (t: Term): boolean => {
    for (let i = t.at - 1; i >= 0 && i >= t.at - 4; i--) {
      const w = goal.words[i] ?? '';
      if (w === 'from') return true;
      if (!STOP_WORDS.has(w) && w !== 'old' && w !== 'existing') return false;
    }
    return false;
  };
  if (afterFrom(source)) return false;
  if (afterFrom(target)) return true;
  return target.at < source.at;
}

/** Whether the word before a term (skipping filler) is "to" or "into". */
function afterTo(t: Term, words: readonly string[]): boolean {
  for (let i = t.at - 1; i >= 0 && i >= t.at - 3; i--) {
    const w = words[i] ?? '';
    if (w === 'to' || w === 'into') return true;
    if (!STOP_WORDS.has(w)) return false;
  }
  return false;
}

interface Scored {
  job: IndexedJob;
  candidate: GoalCandidate;
  /** the terms of the job's phrase the goal names completely, or null when none is complete */
  fullPhrase: string[] | null;
  /** whether the job holds a goal term that is not vague (VAGUE_TERMS) */
  specific: boolean;
}

function score(job: IndexedJob, goal: GoalTerms, index: GoalIndex): Scored {
  let mass = 0;
  let explained = 0;
  const matched: string[] = [];
  let specific = false;
  for (const t of goal.terms) {
    const w = goal.weights.get(t.term) ?? UNKNOWN_WEIGHT;
    mass += w;
    const fw = job.weights.get(t.term) ?? 0;
    explained += w * fw;
    if (fw > 0 && !matched.includes(t.source)) matched.push(t.source);
    if (fw > 0 && !VAGUE_TERMS.has(t.term)) specific = true;
  }
  let named = 0;
  let matchedPhrase: string | null = null;
  let fullPhrase: string[] | null = null;
  const rarity = idfTable(index);
  for (const ph of job.phrases) {
    let total = 0;
    let hit = 0;
    for (const term of ph.terms) {
      const w = rarity.get(term) ?? 0;
      total += w;
      if (goal.weights.has(term)) hit += w;
    }
    const coverage = total > 0 ? hit / total : 0;
    if (coverage >= 0.999 && fullPhrase === null) fullPhrase = ph.terms;
    if (coverage > named) {
      named = coverage;
      matchedPhrase = ph.text;
    }
  }
  let confidence = mass > 0 ? 0.5 * (explained / mass) + 0.5 * named : 0;
  if (reversed(job, goal)) confidence *= REVERSED_CONVERSION;
  const candidate = { kind: job.kind, id: job.id, title: job.title, confidence: Math.round(confidence * 1000) / 1000, matchedOn: matched, matchedPhrase };
  return { job, candidate, fullPhrase, specific };
}

// A playbook and a tool among its steps are the same job for the margin: "compare my page with
// a competitor's" may rank the competitor playbook and its one tool together without being unclear.
function related(a: IndexedJob, b: IndexedJob): boolean {
  return (a.kind === 'playbook' && a.stepTools.includes(b.id)) || (b.kind === 'playbook' && b.stepTools.includes(a.id));
}

// "audit my seo and page speed": the goal names a second, unrelated job in full (one of its titles
// or aliases, every word), with a word the best job does not carry in its own names or tags.
// Running either would silently drop half of what was asked, so the caller chooses.
function namesAnotherJob(top: IndexedJob, other: Scored): boolean {
  if (other.fullPhrase === null || other.candidate.confidence < MATCH_THRESHOLD) return false;
  // A concept the best job's family reads literally is the best job's word, not another job's.
  const literal = top.kind === 'tool' && top.tool !== undefined ? (LITERAL_SENSES[top.tool.family] ?? []) : [];
  return other.fullPhrase.some((term) => (top.weights.get(term) ?? 0) < 0.8 && !literal.includes(term));
}

function invalid(reason: MatchReason, urls: string[] = []): GoalMatch {
  return { decision: 'suggest', reason, best: null, candidates: [], urls, corrections: [] };
}

export interface MatchOptions {
  /** only these jobs are ranked (the jobs that can read the content a caller sent, for one) */
  only?: (job: { kind: JobKind; id: string }) => boolean;
}

/**
 * Matches already made, per index and goal text (the whole ranking, without an `only` filter): an
 * agent's loop sends the same goal to solve_task and to every verify_task, and reading and scoring
 * it again cost ~0.5 ms of the main thread per call. Bounded; entries are frozen, as callers share them.
 */
const MATCHED_GOALS = new WeakMap<GoalIndex, Map<string, GoalMatch>>();
const MATCHED_GOALS_KEPT = 256;

/** Ranks the registries' jobs for a goal and decides whether the best is clear enough to run. */
export function matchGoal(goal: unknown, registries: Registries, options: MatchOptions = {}): GoalMatch {
  if (typeof goal !== 'string' || goal.trim() === '') return invalid('empty_goal');
  if (goal.length > MAX_GOAL_CHARS) return invalid('goal_too_long');
  const index = goalIndexFor(registries);
  if (options.only !== undefined) return rankGoal(goal, index, options);
  let kept = MATCHED_GOALS.get(index);
  if (kept === undefined) MATCHED_GOALS.set(index, (kept = new Map()));
  const known = kept.get(goal);
  if (known !== undefined) return known;
  const match = deepFreeze(rankGoal(goal, index, options));
  // The oldest entry goes first (a Map keeps insertion order).
  if (kept.size >= MATCHED_GOALS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(goal, match);
  return match;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function rankGoal(goal: string, index: GoalIndex, options: MatchOptions): GoalMatch {
  const { urls, rest } = extractUrls(goal);
  const read = readGoal(rest, index);
  if (![...read.weights.keys()].some((t) => index.df.has(t))) return { ...invalid('no_words', urls), corrections: read.corrections };
  const { only } = options;
  const scored = jobsHolding(index, read.weights.keys())
    .filter((job) => only === undefined || only(job))
    .map((job) => score(job, read, index))
    .filter((s) => s.candidate.confidence > 0)
    .sort((a, b) => b.candidate.confidence - a.candidate.confidence || (a.job.kind === b.job.kind ? 0 : a.job.kind === 'playbook' ? -1 : 1) || a.job.id.localeCompare(b.job.id));
  const top = scored[0];
  const candidates = scored.slice(0, MAX_CANDIDATES).map((s) => s.candidate);
  const base = { candidates, urls, corrections: read.corrections };
  if (top === undefined) return { decision: 'suggest', reason: 'no_words', best: null, ...base };
  if (top.candidate.confidence < MATCH_THRESHOLD) return { decision: 'suggest', reason: 'low_confidence', best: null, ...base };
  if (!top.specific) return { decision: 'suggest', reason: 'vague', best: null, ...base };
  const unrelated = scored.slice(1).filter((s) => !related(top.job, s.job));
  // Naming two jobs in full says more than a close score does, so it is told first.
  if (unrelated.some((s) => namesAnotherJob(top.job, s))) return { decision: 'suggest', reason: 'several_jobs', best: null, ...base };
  const rival = unrelated[0];
  if (rival !== undefined && top.candidate.confidence - rival.candidate.confidence < MATCH_MARGIN) {
    return { decision: 'suggest', reason: 'ambiguous', best: null, ...base };
  }
  return { decision: 'match', reason: 'matched', best: top.candidate, ...base };
}
