// The playbook (skill) registry behind list_skills and load_skill, and what run_playbook reads.
// Every JSON file in data/ is loaded at start (discovered, no hand-kept list), checked against
// the format and against the catalog; one broken playbook stops the start with its file name and
// the problem, so a bad playbook can never reach an agent. Credit estimates are computed from the
// catalog's prices, never written by hand, so they cannot drift when a tool's price changes.
// Playbooks tagged `test` are fixtures of the service's own tests: checked like the others, but
// held (listed, loadable, routable) only when asked for (TEST_PLAYBOOKS), never in production.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Catalog } from '../../core/catalog.ts';
import type { AnyTool } from '../../core/define-tool.ts';
import { ServiceError } from '../../core/errors.ts';
import { inputSchemaOf, playbookSchema, templatesIn, type Playbook, type PlaybookStep } from './playbook-schema.ts';

const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));
const MAX_FILE_BYTES = 64 * 1024;

/** One line of list_skills: small, so an agent can scan every playbook at once. */
export interface SkillEntry {
  id: string;
  title: string;
  /** the description's first sentence */
  summary: string;
  estimatedCredits: number;
  tags: string[];
  gatePolicy: Playbook['gate']['policy'];
}

export interface SkillStepView {
  id: string;
  operationId: string;
  purpose: string;
  /** the catalog price of one call */
  credits: number;
  toolTitle: string;
  toolSummary: string;
  kind: AnyTool['kind'];
  input: PlaybookStep['input'];
  file?: string;
  when?: string;
}

/** What load_skill answers: the whole playbook, its input schema, and what the catalog says about its steps. */
export interface LoadedSkill {
  playbook: Playbook;
  /** JSON Schema of the playbook input (what run_playbook's `input` must match) */
  inputSchema: Record<string, unknown>;
  estimatedCredits: { total: number; note: string };
  steps: SkillStepView[];
}

/** load_skill of an id that does not exist: 404 semantics, naming the closest ids. */
export class SkillNotFoundError extends ServiceError {
  readonly skillId: string;
  readonly suggestions: readonly string[];

  constructor(skillId: string, suggestions: readonly string[]) {
    const hint = suggestions.length > 0 ? `Did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : 'Call list_skills to see the playbooks.';
    super(404, 'skill_not_found', `No playbook has the id "${skillId}". ${hint}`, { extra: { skillId, suggestions: [...suggestions] } });
    this.name = 'SkillNotFoundError';
    this.skillId = skillId;
    this.suggestions = suggestions;
  }
}

/** Levenshtein distance, capped: beyond `max` the exact figure does not matter. */
export function editDistance(a: string, b: string, max = 64): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** Up to `limit` candidates close to `wanted`: within a third of its length in edits, or extending it ("seo" -> "seo-audit"). */
export function closest(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  // An id is at most 60 characters; a longer request is not a typo of one, and would cost O(n*m).
  if (wanted.length > 120) return [];
  const w = wanted.toLowerCase();
  const scored: { id: string; d: number }[] = [];
  for (const id of candidates) {
    const d = editDistance(w, id);
    const sameStem = w.length >= 3 && (id.startsWith(w) || w.startsWith(id));
    if (d <= Math.max(2, Math.floor(w.length / 3)) || sameStem) scored.push({ id, d: sameStem ? Math.min(d, 3) : d });
  }
  return scored.sort((a, b) => a.d - b.d || a.id.localeCompare(b.id)).slice(0, limit).map((s) => s.id);
}

const WORD = /[a-z0-9]+/g;
// Words too common to say anything about a playbook ("check my site for ..." should rank on "site").
const STOP = new Set(['a', 'an', 'and', 'the', 'to', 'of', 'for', 'in', 'on', 'is', 'it', 'my', 'our', 'with', 'be', 'or', 'by', 'at', 'as']);
const words = (text: string): string[] => (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP.has(w));

function summaryOf(text: string): string {
  const first = text.split(/(?<=[.!?])\s/)[0] ?? text;
  return first.length > 200 ? `${first.slice(0, 197)}...` : first;
}

// How a query word meets a field's words: whole word, then prefix, then a one-letter typo.
function wordMatch(q: string, terms: readonly string[]): number {
  if (terms.includes(q)) return 1;
  if (q.length >= 3 && terms.some((t) => t.startsWith(q))) return 0.5;
  if (q.length >= 5 && terms.some((t) => editDistance(q, t, 2) <= (q.length >= 8 ? 2 : 1))) return 0.5;
  return 0;
}

interface Entry {
  playbook: Playbook;
  file: string;
  credits: number;
  steps: SkillStepView[];
  fields: [string[], number][];
}

export class PlaybookRegistry {
  readonly #entries: Map<string, Entry>;

  constructor(entries: readonly Entry[]) {
    this.#entries = new Map(entries.map((e) => [e.playbook.id, e]));
  }

  /** Every playbook id, sorted. */
  ids(): string[] {
    return [...this.#entries.keys()].sort();
  }

  /** The validated playbook, or undefined (the runner's lookup; load() is the agent's). */
  get(id: string): Playbook | undefined {
    return this.#entries.get(id)?.playbook;
  }

  /**
   * list_skills: with a query, the playbooks that match any of its words, best first (id and
   * title count most, then aliases and tags, then the description and the tools it calls);
   * without one, all of them by id. `tag` keeps only playbooks carrying that tag.
   */
  list(options: { query?: string; tag?: string } = {}): SkillEntry[] {
    const query = words(options.query ?? '').slice(0, 20);
    const ranked: { entry: Entry; score: number }[] = [];
    for (const entry of this.#entries.values()) {
      if (options.tag !== undefined && !entry.playbook.tags.includes(options.tag)) continue;
      const score = query.length === 0 ? 1 : this.#score(entry, query);
      if (score > 0) ranked.push({ entry, score });
    }
    ranked.sort((a, b) => b.score - a.score || a.entry.playbook.id.localeCompare(b.entry.playbook.id));
    return ranked.map(({ entry: { playbook: p, credits } }) => ({
      id: p.id,
      title: p.title,
      summary: summaryOf(p.description),
      estimatedCredits: credits,
      tags: [...p.tags],
      gatePolicy: p.gate.policy,
    }));
  }

  #score(entry: Entry, query: string[]): number {
    let total = 0;
    for (const q of query) {
      let best = 0;
      for (const [terms, weight] of entry.fields) best = Math.max(best, wordMatch(q, terms) * weight);
      total += best;
    }
    if (entry.playbook.id === query.join('-')) total += 10;
    return total;
  }

  /** load_skill: the whole playbook with its credit estimate and its steps' tool summaries. */
  load(id: string): LoadedSkill {
    const entry = this.#entries.get(id);
    if (!entry) throw new SkillNotFoundError(id, closest(id, this.#entries.keys()));
    const conditional = entry.playbook.steps.some((s) => s.when !== undefined);
    return {
      playbook: entry.playbook,
      inputSchema: z.toJSONSchema(inputSchemaOf(entry.playbook), { io: 'input' }) as Record<string, unknown>,
      estimatedCredits: {
        total: entry.credits,
        note:
          'An estimate: the catalog price of each step, summed' +
          (conditional ? ' (steps with `when` are counted although they run only when their input is given)' : '') +
          '; failed calls are refunded as over REST.',
      },
      steps: entry.steps,
    };
  }
}

/** What the tool's input object accepts: its fields and the ones without a default that must be given. */
function toolFields(tool: AnyTool): { known: Set<string>; required: string[] } | null {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  if (schema.properties === undefined) return null;
  return { known: new Set(Object.keys(schema.properties)), required: schema.required ?? [] };
}

// The checks that need the catalog: the operation exists and is callable over MCP, the file is
// given exactly when the tool takes one, the mapping names only the tool's fields and fills the
// required ones, and literal values are ones the tool accepts.
function catalogProblems(p: Playbook, catalog: Catalog): string[] {
  const problems: string[] = [];
  for (const step of p.steps) {
    const at = `step "${step.id}"`;
    const tool = catalog.get(step.operationId);
    if (!tool) {
      const near = closest(step.operationId, catalog.tools.map((t) => t.operationId));
      problems.push(`${at}: unknown operationId "${step.operationId}"${near.length > 0 ? ` (close: ${near.join(', ')})` : ''}`);
      continue;
    }
    if (tool.websiteOnly === true) problems.push(`${at}: ${step.operationId} is website-only and cannot run over MCP`);
    if (tool.kind === 'file' && step.file === undefined)
      problems.push(`${at}: ${step.operationId} is a file tool; say how the file is given with "file": "{{input.<file input>}}"`);
    if (tool.kind !== 'file' && step.file !== undefined) problems.push(`${at}: ${step.operationId} takes no file, but the step gives one`);
    const fields = toolFields(tool);
    if (fields === null) continue;
    for (const key of Object.keys(step.input)) {
      if (!fields.known.has(key)) problems.push(`${at}: ${step.operationId} has no input field "${key}" (fields: ${[...fields.known].join(', ')})`);
    }
    for (const key of fields.required) {
      if (!(key in step.input)) problems.push(`${at}: ${step.operationId} needs input field "${key}", which the step does not map`);
    }
    const shape = tool.input instanceof z.ZodObject ? (tool.input.shape as Record<string, z.ZodType>) : {};
    for (const [key, value] of Object.entries(step.input)) {
      const field = shape[key];
      if (field === undefined || templatesIn(value, key).length > 0) continue;
      const parsed = field.safeParse(value);
      if (!parsed.success) problems.push(`${at}: input field "${key}" = ${JSON.stringify(value)} is refused by ${step.operationId}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
  }
  const used = new Set(p.steps.flatMap((s) => [...templatesIn(s.input, ''), ...(s.file === undefined ? [] : templatesIn(s.file, ''))].map((t) => t.text)));
  for (const name of Object.keys(p.inputs)) {
    if (!used.has(`input.${name}`)) problems.push(`input "${name}" is declared but no step uses it`);
  }
  return problems;
}

function entryFor(p: Playbook, file: string, catalog: Catalog): Entry {
  const steps: SkillStepView[] = p.steps.map((step) => {
    const tool = catalog.get(step.operationId) as AnyTool;
    return {
      id: step.id,
      operationId: step.operationId,
      purpose: step.purpose,
      credits: tool.credits,
      toolTitle: tool.title,
      toolSummary: summaryOf(tool.description),
      kind: tool.kind,
      input: step.input,
      ...(step.file === undefined ? {} : { file: step.file }),
      ...(step.when === undefined ? {} : { when: step.when }),
    };
  });
  return {
    playbook: p,
    file,
    credits: steps.reduce((sum, s) => sum + s.credits, 0),
    steps,
    fields: [
      [words(`${p.id} ${p.title}`), 4],
      [p.aliases.flatMap(words), 3],
      [p.tags.flatMap(words), 3],
      [words(p.description), 1],
      [p.steps.flatMap((s) => words(`${s.operationId} ${s.purpose}`)), 1],
    ],
  };
}

/** Thrown at start when a playbook file is broken: every problem, each prefixed with its file. */
export class PlaybookLoadError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`${problems.length} problem(s) in the playbooks:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PlaybookLoadError';
    this.problems = problems;
  }
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
}

/** The tag of the playbooks that exist for the service's own tests. */
export const TEST_PLAYBOOK_TAG = 'test';

export interface PlaybookLoadOptions {
  /** hold the playbooks tagged `test` too (config TEST_PLAYBOOKS); they are checked either way */
  withTestPlaybooks?: boolean;
}

/** Loads, checks and indexes every playbook in `dir` (default: data/ beside this file). */
export async function loadPlaybookRegistry(catalog: Catalog, dir: string = DATA_DIR, options: PlaybookLoadOptions = {}): Promise<PlaybookRegistry> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => e.name).sort();
  const problems: string[] = [];
  const entries: Entry[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const fileProblems: string[] = [];
    const text = await readFile(file, 'utf8');
    let raw: unknown;
    if (Buffer.byteLength(text) > MAX_FILE_BYTES) fileProblems.push(`larger than ${MAX_FILE_BYTES} bytes`);
    else {
      try {
        raw = JSON.parse(text);
      } catch (error) {
        fileProblems.push(`not JSON: ${(error as Error).message}`);
      }
    }
    const parsed = raw === undefined ? null : playbookSchema.safeParse(raw);
    if (parsed && !parsed.success) fileProblems.push(...describeIssues(parsed.error));
    if (parsed?.success) {
      const p = parsed.data;
      if (`${p.id}.json` !== name) fileProblems.push(`id "${p.id}" does not match the file name (expected ${p.id}.json)`);
      fileProblems.push(...catalogProblems(p, catalog));
      if (fileProblems.length === 0) entries.push(entryFor(p, file, catalog));
    }
    problems.push(...fileProblems.map((problem) => `${basename(file)}: ${problem}`));
  }
  if (names.length === 0) problems.push(`no playbook files (*.json) in ${dir}`);
  if (problems.length > 0) throw new PlaybookLoadError(problems);
  return new PlaybookRegistry(options.withTestPlaybooks === true ? entries : entries.filter((e) => !e.playbook.tags.includes(TEST_PLAYBOOK_TAG)));
}
