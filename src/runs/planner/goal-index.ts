// The matcher's index of jobs: every playbook and every MCP-callable catalog tool, read once per
// pair of registries into terms (stems and synonym concepts) with the weight of the field they
// came from, the phrases (title, id, aliases) a goal may name them by, and how rare each term is.
// Only ids found here can ever be answered, so the matcher cannot invent one.
import type { Catalog } from '../../core/catalog.ts';
import type { AnyTool } from '../../core/define-tool.ts';
import type { Playbook } from '../playbooks/playbook-schema.ts';
import type { PlaybookRegistry } from '../playbooks/playbook-registry.ts';
import { applySynonyms, LITERAL_SENSES, SYNONYM_WORDS } from './goal-synonyms.ts';
import { rawWords, stem, STOP_TERMS, STOP_WORDS } from './goal-text.ts';

export interface Registries {
  playbooks: PlaybookRegistry;
  catalog: Catalog;
}

export type JobKind = 'playbook' | 'tool';

export interface IndexedPhrase {
  /** as written in the registry */
  text: string;
  terms: string[];
}

export interface IndexedJob {
  kind: JobKind;
  id: string;
  title: string;
  /** term -> weight of the best field holding it: names and aliases 1, tags 0.8, family 0.4, prose 0.2 */
  weights: Map<string, number>;
  phrases: IndexedPhrase[];
  /** for a playbook, the operationIds of its steps; for a tool, none */
  stepTools: string[];
  /** for a conversion tool, the terms naming its source and its target format (word order decides) */
  direction?: { from: Set<string>; to: Set<string> };
  playbook?: Playbook;
  tool?: AnyTool;
}

export interface GoalIndex {
  jobs: IndexedJob[];
  /** term -> how many jobs hold it */
  df: Map<string, number>;
  /** raw words a goal word may be corrected to, by length */
  correctable: Map<number, string[]>;
  /** raw words and stems that need no correction */
  known: Set<string>;
}

/**
 * A text's terms: stems, with synonym phrases folded into concepts, stop words dropped. Concepts
 * in `literal` stay the stems of the words they were read from (see LITERAL_SENSES).
 */
export function termsOf(text: string, literal: readonly string[] = []): string[] {
  const words = rawWords(text);
  const terms = applySynonyms(words.map(stem), words).flatMap((t) => (literal.includes(t.term) ? t.source.split(/\s+/).map(stem) : [t.term]));
  return [...new Set(terms.filter((t) => !STOP_TERMS.has(t)))];
}

const FIELD = { name: 1, tag: 0.8, family: 0.4, prose: 0.2 } as const;

function weigh(weights: Map<string, number>, terms: readonly string[], weight: number): void {
  for (const term of terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
}

function phrase(text: string, literal: readonly string[] = []): IndexedPhrase {
  return { text, terms: termsOf(text, literal) };
}

function playbookJob(p: Playbook): IndexedJob {
  const phrases = [p.title, p.id.replace(/-/g, ' '), ...p.aliases].map((text) => phrase(text));
  const weights = new Map<string, number>();
  weigh(weights, p.description.length > 0 ? termsOf(p.description) : [], FIELD.prose);
  weigh(weights, p.steps.flatMap((s) => termsOf(s.purpose)), FIELD.prose);
  weigh(weights, p.tags.flatMap((t) => termsOf(t.replace(/-/g, ' '))), FIELD.tag);
  for (const ph of phrases) weigh(weights, ph.terms, FIELD.name);
  return { kind: 'playbook', id: p.id, title: p.title, weights, phrases, stepTools: [...new Set(p.steps.map((s) => s.operationId))], playbook: p };
}

function conversionOf(tool: AnyTool): IndexedJob['direction'] {
  const [from, to] = tool.title.split(/\s+to\s+/i);
  // Conversion slugs read "<from>-to-<to>", or "<from>-2-<to>" (the spec's csv-2-json).
  const [slugFrom, slugTo] = tool.slug.split(/-(?:to|2)-/);
  if (from === undefined || to === undefined || slugFrom === undefined || slugTo === undefined) return undefined;
  return { from: new Set([...termsOf(from), ...termsOf(slugFrom)]), to: new Set([...termsOf(to), ...termsOf(slugTo)]) };
}

function toolJob(tool: AnyTool): IndexedJob {
  const literal = LITERAL_SENSES[tool.family] ?? [];
  const phrases = [tool.title, tool.slug.replace(/-/g, ' '), ...tool.aliases].map((text) => phrase(text, literal));
  const weights = new Map<string, number>();
  weigh(weights, termsOf(tool.description, literal), FIELD.prose);
  weigh(weights, termsOf(tool.family.replace(/[-_]/g, ' '), literal), FIELD.family);
  for (const ph of phrases) weigh(weights, ph.terms, FIELD.name);
  const direction = conversionOf(tool);
  return { kind: 'tool', id: tool.operationId, title: tool.title, weights, phrases, stepTools: [], ...(direction ? { direction } : {}), tool };
}

function buildIndex({ playbooks, catalog }: Registries): GoalIndex {
  const jobs: IndexedJob[] = [];
  const correctable = new Set<string>(SYNONYM_WORDS);
  const known = new Set<string>([...SYNONYM_WORDS, ...STOP_WORDS]);
  for (const id of playbooks.ids()) {
    const p = playbooks.get(id);
    if (p === undefined) continue;
    jobs.push(playbookJob(p));
    for (const w of rawWords([p.title, p.id, ...p.aliases, ...p.tags].join(' '))) correctable.add(w);
    for (const w of rawWords(`${p.description} ${p.steps.map((s) => s.purpose).join(' ')}`)) known.add(w);
  }
  // Website-only tools cannot run over MCP, so they are never a job of plan_task or solve_task.
  for (const tool of catalog.tools) {
    if (tool.websiteOnly === true) continue;
    jobs.push(toolJob(tool));
    for (const w of rawWords([tool.title, tool.slug, tool.family, ...tool.aliases].join(' '))) correctable.add(w);
    for (const w of rawWords(tool.description)) known.add(w);
  }
  const df = new Map<string, number>();
  for (const job of jobs) for (const term of job.weights.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const byLength = new Map<number, string[]>();
  for (const word of [...correctable].sort()) {
    if (word.length < 3 || /^\d+$/.test(word)) continue;
    known.add(word);
    const list = byLength.get(word.length) ?? [];
    list.push(word);
    byLength.set(word.length, list);
  }
  for (const word of [...known]) known.add(stem(word));
  return { jobs, df, correctable: byLength, known };
}

// One index per (catalog, playbook registry): both are built once at start and read-only after.
const cache = new WeakMap<Catalog, WeakMap<PlaybookRegistry, GoalIndex>>();

export function goalIndexFor(registries: Registries): GoalIndex {
  let byPlaybooks = cache.get(registries.catalog);
  if (byPlaybooks === undefined) {
    byPlaybooks = new WeakMap();
    cache.set(registries.catalog, byPlaybooks);
  }
  let index = byPlaybooks.get(registries.playbooks);
  if (index === undefined) {
    index = buildIndex(registries);
    byPlaybooks.set(registries.playbooks, index);
  }
  return index;
}
