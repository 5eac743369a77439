// From a matched job, the caller's `input` and the URLs found in the goal, the input the job runs
// with, or a need_input answer naming exactly what is missing. Rule 3 of the meta-tools: local
// input (input.html, input.text, input.code) is analysed free unless `enhance: true`, and a URL is
// needed only where a live fetch is (page speed, TLS, mixed content, live headers); so every step
// of a playbook is classed here as answerable from HTML or needing the live page, and the lead's
// runner decides free local against billed live from that, not from a guess.
//
// input.text and input.code steer the meta-tools, but they are also what a text tool works on: a
// tool whose schema has the field gets it (input.code goes to a code field, or to a plain `text`
// field: code is text to the text tools; HTML markup sent as code is read as input.html). A job
// that can read none of the content sent is not run on something else: the answer is `suggest`,
// listing the jobs that can (see contentNotTaken).
import { z } from 'zod';
import type { Catalog } from '../../core/catalog.ts';
import type { AnyTool } from '../../core/define-tool.ts';
import { inputSchemaOf, type Playbook } from '../playbooks/playbook-schema.ts';
import type { Registries } from './goal-index.ts';
import { contentFieldOf, goalRequest, isHtmlMarkup, sentContent, toolFields } from './input-content.ts';
import { extractUrls } from './goal-text.ts';
import { judgeUrl } from './local-url.ts';

/** live: needs input.url and a fetch; html: can run on input.html; json: plain fields; file: a file source */
export type StepAccess = 'live' | 'html' | 'json' | 'file';

export interface StepNeed {
  stepId: string;
  operationId: string;
  /** the catalog price of one call */
  credits: number;
  access: StepAccess;
  /** true for url steps that HTML cannot answer */
  needsLiveFetch: boolean;
  /** the optional input that gates the step (`when`), if any */
  when?: string;
}

/**
 * Whether a URL tool can judge input.html: it declares the analyzers that make its whole report
 * from the page's HTML (`htmlAnalyzers`: head, headings, images, JSON-LD, snippet). Every other URL
 * tool reads the live response (TLS handshake, headers, cookies, CORS, redirects, timings, linked
 * resources) and needs input.url; the spec names page speed and mixed content among those.
 */
export function answersFromHtml(tool: AnyTool): boolean {
  return tool.kind === 'url' && tool.htmlAnalyzers !== undefined && tool.htmlAnalyzers.length > 0;
}

export function accessOf(tool: AnyTool): StepAccess {
  if (tool.kind === 'file') return 'file';
  if (tool.kind === 'json') return 'json';
  return answersFromHtml(tool) ? 'html' : 'live';
}

/** Each step of a playbook with its price and whether it needs a live fetch. */
export function playbookStepNeeds(playbook: Playbook, catalog: Catalog): StepNeed[] {
  return playbook.steps.flatMap((step) => {
    const tool = catalog.get(step.operationId);
    if (tool === undefined) return [];
    const access = accessOf(tool);
    return [{ stepId: step.id, operationId: step.operationId, credits: tool.credits, access, needsLiveFetch: access === 'live', ...(step.when === undefined ? {} : { when: step.when }) }];
  });
}

export interface JobRef {
  kind: 'playbook' | 'tool';
  id: string;
}

/** The caller's input keys that steer the meta-tools rather than being a job field. */
export const META_INPUT_KEYS: ReadonlySet<string> = new Set(['html', 'text', 'code', 'file', 'featureMemory', 'enhance']);

export interface ResolvedInput {
  status: 'ready';
  job: JobRef;
  /** the job's own fields: a playbook's declared inputs, or a tool's input object */
  input: Record<string, unknown>;
  /** local: analyse input.html/text (free unless enhance); live: fetch the URL (billed); plain: JSON or file tools (billed) */
  mode: 'local' | 'live' | 'plain';
  /** the content to analyse in local mode */
  local?: { html?: string; text?: string; code?: string };
  /** a file tool's source, as the caller gave it in input.file */
  file?: unknown;
  /** input fields filled from URLs written in the goal */
  fromGoal: string[];
  /** caller keys the job does not take (and that are not meta keys), dropped */
  ignored: string[];
}

/** `input_not_taken`: the caller sent input.text or input.code and the job reads neither (answered as a suggest). */
export type NeedInputCode = 'missing_input' | 'local_preview_required' | 'invalid_input' | 'input_not_taken';

export interface NeedInput {
  status: 'need_input';
  code: NeedInputCode;
  job: JobRef;
  /** the fields to give */
  missing: string[];
  hint: string;
  /** a complete input that would pass, to edit */
  exampleInput: Record<string, unknown>;
  /** for local_preview_required and invalid_input: the field, the value and why */
  field?: string;
  url?: string;
  reason?: string;
}

const EXAMPLE_HTML = '<!doctype html><html lang="en"><head><title>My page</title></head><body><h1>My page</h1></body></html>';

function exampleValue(name: string, spec: Playbook['inputs'][string], urlIndex: number): unknown {
  switch (spec.type) {
    case 'url':
      return urlIndex === 0 ? 'https://example.com/' : `https://competitor.example/`;
    case 'html':
      return EXAMPLE_HTML;
    case 'text':
      return 'The text to work on.';
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'file':
      return { base64: '<the file, base64-encoded>', fileName: 'document.docx' };
    default:
      return spec.enum?.[0] ?? `<${name}>`;
  }
}

/** A playbook input that passes: every required input, with example values. */
export function playbookExampleInput(playbook: Playbook): Record<string, unknown> {
  let urls = 0;
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(playbook.inputs)) {
    if (!spec.required) continue;
    out[name] = exampleValue(name, spec, spec.type === 'url' ? urls++ : 0);
  }
  return out;
}

/** A tool input that passes: its first example's input, plus the file for a file tool. */
export function toolExampleInput(tool: AnyTool): Record<string, unknown> {
  if (tool.kind === 'file') {
    const example = tool.fileExamples?.[0];
    const ext = tool.conversion?.from ?? tool.upload?.accept[0] ?? 'bin';
    return { ...((example?.input as Record<string, unknown> | undefined) ?? {}), file: { base64: '<the file, base64-encoded>', fileName: `document.${ext}` } };
  }
  const example = tool.kind === 'url' ? tool.urlExamples?.[0]?.input : tool.examples[0]?.input;
  return { ...((example as Record<string, unknown> | undefined) ?? {}) };
}

interface Args {
  input?: Record<string, unknown> | undefined;
  goalUrls?: readonly string[] | undefined;
  /** the goal as written: its words fill a tool's request field (input-content.ts GOAL_TEXT_FIELDS) */
  goal?: string | undefined;
}

const localPreviewHint = (field: string, htmlHelps: boolean | 'file'): string =>
  `The ${field} names your own machine or a private network, which the service can never reach (localhost URLs are never accepted). ` +
  (htmlHelps === 'file'
    ? `Put the file at a public https URL and pass that as input.${field}: the service downloads it from there.`
    : htmlHelps
    ? "Pass the page's HTML as input.html for a free local analysis, or deploy a preview at a public https URL and pass that as input." + field + '.'
    : `Deploy a preview at a public https URL and pass that as input.${field}: these checks read the live response (TLS, headers, redirects), which HTML cannot answer.`);

function localContent(input: Record<string, unknown>): ResolvedInput['local'] | undefined {
  const local: NonNullable<ResolvedInput['local']> = {};
  for (const key of ['html', 'text', 'code'] as const) {
    const value = input[key];
    if (typeof value === 'string' && value.trim() !== '') local[key] = value;
  }
  // A page sent as input.code is a page: the HTML analyzers read it as they read input.html.
  if (local.html === undefined && local.code !== undefined && isHtmlMarkup(local.code)) local.html = local.code;
  return Object.keys(local).length > 0 ? local : undefined;
}

/**
 * The answer when the caller sent input.text or input.code and the job reads none of the content
 * sent: running it would bill a job that ignores what the caller asked about.
 */
function contentNotTaken(job: JobRef, sent: readonly ('text' | 'code')[], exampleInput: Record<string, unknown>, what: string): NeedInput {
  const names = sent.map((k) => `input.${k}`).join(' and ');
  return {
    status: 'need_input',
    code: 'input_not_taken',
    job,
    missing: [],
    field: sent[0] ?? 'code',
    reason: `${job.id} reads no ${names}: ${what}`,
    hint: `${job.id} does not read ${names} (${what}). The jobs listed take it as their input; run one of them with the same ${names}.`,
    exampleInput,
  };
}

/**
 * Whether a job reads the caller's input.text or input.code: a tool through contentFieldOf, a
 * playbook through a declared input of that name; code that is HTML markup, any job that can run
 * on input.html alone.
 */
export function jobReads(job: JobRef, key: 'text' | 'code', registries: Registries, htmlMarkup = false): boolean {
  if (job.kind === 'tool') {
    const tool = registries.catalog.get(job.id);
    if (tool === undefined) return false;
    return contentFieldOf(tool, key) !== undefined || (htmlMarkup && key === 'code' && tool.kind === 'url' && accessOf(tool) === 'html');
  }
  const playbook = registries.playbooks.get(job.id);
  if (playbook === undefined) return false;
  if (playbook.inputs[key] !== undefined) return true;
  return htmlMarkup && key === 'code' && playbookStepNeeds(playbook, registries.catalog).every((n) => n.access === 'html' || n.access === 'json');
}

// Local mode makes every input optional (the URL is not needed); built once per playbook, as inputSchemaOf is.
const localInputSchemas = new WeakMap<Playbook, z.ZodObject>();

function localInputSchemaOf(playbook: Playbook): z.ZodObject {
  let schema = localInputSchemas.get(playbook);
  if (schema === undefined) {
    schema = inputSchemaOf(playbook).partial();
    localInputSchemas.set(playbook, schema);
  }
  return schema;
}

function resolvePlaybook(playbook: Playbook, catalog: Catalog, args: Args): ResolvedInput | NeedInput {
  const job: JobRef = { kind: 'playbook', id: playbook.id };
  const given = args.input ?? {};
  const exampleInput = playbookExampleInput(playbook);
  const needs = playbookStepNeeds(playbook, catalog);
  const local = localContent(given);
  // Local mode: the caller sent the page and every step can read it; the URL becomes optional.
  const localMode = local?.html !== undefined && needs.every((n) => n.access !== 'live');
  const sent = sentContent(given);
  if (!localMode && sent.length > 0 && !sent.some((k) => playbook.inputs[k] !== undefined)) {
    return contentNotTaken(job, sent, exampleInput, `its steps read ${needs.some((n) => n.access === 'live') ? 'the live page at input.url' : "a page, from input.url or the page's HTML as input.html"}`);
  }
  const input: Record<string, unknown> = {};
  const fromGoal: string[] = [];
  const ignored: string[] = [];
  const goalUrls = [...(args.goalUrls ?? [])];
  const missing: string[] = [];
  for (const [name, spec] of Object.entries(playbook.inputs)) {
    let value = given[name];
    if (value === undefined && spec.type === 'url' && goalUrls.length > 0) {
      value = goalUrls.shift();
      fromGoal.push(name);
    }
    if (value === undefined) {
      if (spec.required && !(localMode && spec.type === 'url')) missing.push(name);
      continue;
    }
    if (spec.type === 'url') {
      const verdict = judgeUrl(value);
      // With the page's HTML in hand nothing is fetched: a local URL beside it (in the goal or the
      // input) only names the page, so it is left out rather than refused.
      if (verdict.kind === 'local' && localMode) {
        if (fromGoal.includes(name)) fromGoal.splice(fromGoal.indexOf(name), 1);
        else ignored.push(name);
        continue;
      }
      if (verdict.kind === 'local') {
        return { status: 'need_input', code: 'local_preview_required', job, missing: [name], field: name, url: verdict.url, reason: verdict.reason, hint: localPreviewHint(name, needs.every((n) => n.access !== 'live')), exampleInput };
      }
      if (verdict.kind === 'invalid') return { status: 'need_input', code: 'invalid_input', job, missing: [name], field: name, reason: verdict.reason, hint: `input.${name}: ${verdict.reason}.`, exampleInput };
      value = verdict.url;
    }
    input[name] = value;
  }
  if (missing.length > 0) {
    const live = needs.filter((n) => n.needsLiveFetch).map((n) => n.stepId);
    const urlHint =
      live.length === 0 && Object.values(playbook.inputs).some((s) => s.type === 'url')
        ? " Or pass the page's HTML as input.html: every step of this playbook can read it, free."
        : live.length > 0
          ? ` The steps ${live.join(', ')} read the live page, so a public URL is needed (HTML alone cannot answer them).`
          : '';
    return { status: 'need_input', code: 'missing_input', job, missing, hint: `${playbook.title} needs ${missing.map((m) => `input.${m} (${playbook.inputs[m]?.description ?? ''})`).join(' and ')}.${urlHint}`, exampleInput };
  }
  const schema = localMode ? localInputSchemaOf(playbook) : inputSchemaOf(playbook);
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    return { status: 'need_input', code: 'invalid_input', job, missing: field === '' ? [] : [field], field, reason: issue?.message ?? 'invalid', hint: `input.${field}: ${issue?.message ?? 'invalid'}.`, exampleInput };
  }
  ignored.push(...Object.keys(given).filter((k) => playbook.inputs[k] === undefined && !META_INPUT_KEYS.has(k)));
  const mode = localMode ? 'local' : needs.some((n) => n.access === 'live' || n.access === 'html') ? 'live' : 'plain';
  return { status: 'ready', job, input, mode, ...(local === undefined ? {} : { local }), fromGoal, ignored };
}

function resolveTool(tool: AnyTool, args: Args): ResolvedInput | NeedInput {
  const job: JobRef = { kind: 'tool', id: tool.operationId };
  const given = args.input ?? {};
  const exampleInput = toolExampleInput(tool);
  const { fields, required, urlFields, goalTextField } = toolFields(tool);
  const local = localContent(given);
  const access = tool.kind === 'url' ? accessOf(tool) : null;
  const localMode = access === 'html' && local?.html !== undefined;
  const sent = sentContent(given);
  // A file conversion asked with text or code is answered by its own need_input: the content goes in input.file.
  if (!localMode && tool.kind !== 'file' && sent.length > 0 && !sent.some((k) => contentFieldOf(tool, k) !== undefined)) {
    const what = tool.kind === 'url' ? (access === 'html' ? "it analyses a page, from input.url or the page's HTML as input.html" : 'it reads the live page at input.url') : `it takes ${[...fields].join(', ') || 'no content field'}`;
    return contentNotTaken(job, sent, exampleInput, what);
  }
  // A meta key that is also one of the tool's own fields (a text tool's `text`) is that field.
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) if (!META_INPUT_KEYS.has(key) || fields.has(key)) input[key] = value;
  const codeField = local?.code === undefined ? undefined : contentFieldOf(tool, 'code');
  if (codeField !== undefined && input[codeField] === undefined) input[codeField] = local?.code;
  const fromGoal: string[] = [];
  const ignored: string[] = [];
  if (tool.kind === 'url' && input.url === undefined && args.goalUrls?.[0] !== undefined) {
    input.url = args.goalUrls[0];
    fromGoal.push('url');
  }
  if (tool.kind !== 'url') {
    // A JSON tool's URL fields take the goal's URLs in order; the planner judges those it filled
    // (a value the caller gave is the tool's to judge: some take an id as well as a URL).
    const goalUrls = [...(args.goalUrls ?? [])];
    for (const field of urlFields) {
      if (input[field] !== undefined || goalUrls.length === 0) continue;
      const verdict = judgeUrl(goalUrls.shift());
      if (verdict.kind === 'local') return { status: 'need_input', code: 'local_preview_required', job, missing: [field], field, url: verdict.url, reason: verdict.reason, hint: localPreviewHint(field, 'file'), exampleInput };
      if (verdict.kind === 'invalid') return { status: 'need_input', code: 'invalid_input', job, missing: [field], field, reason: verdict.reason, hint: `input.${field}: ${verdict.reason}.`, exampleInput };
      input[field] = verdict.url;
      fromGoal.push(field);
    }
  }
  // The goal's words are the request of a tool that takes one in words (video-insight's prompt).
  if (goalTextField !== undefined && input[goalTextField] === undefined && args.goal !== undefined) {
    const request = goalRequest(extractUrls(args.goal).rest);
    if (request !== undefined) {
      input[goalTextField] = request;
      fromGoal.push(goalTextField);
    }
  }
  if (tool.kind === 'url' && input.url !== undefined) {
    const verdict = judgeUrl(input.url);
    // With the page's HTML in hand nothing is fetched: a local URL beside it only names the page.
    if (verdict.kind === 'local' && localMode) {
      if (fromGoal.includes('url')) fromGoal.splice(0);
      else ignored.push('url');
      delete input.url;
    } else if (verdict.kind === 'local') return { status: 'need_input', code: 'local_preview_required', job, missing: ['url'], field: 'url', url: verdict.url, reason: verdict.reason, hint: localPreviewHint('url', access === 'html'), exampleInput };
    else if (verdict.kind === 'invalid') return { status: 'need_input', code: 'invalid_input', job, missing: ['url'], field: 'url', reason: verdict.reason, hint: `input.url: ${verdict.reason}.`, exampleInput };
    else input.url = verdict.url;
  }
  const missing = required.filter((f) => input[f] === undefined && !(localMode && f === 'url'));
  if (tool.kind === 'file' && given.file === undefined) missing.push('file');
  if (missing.length > 0) {
    const sentText = sent.length > 0 ? ` input.${sent.join(' and input.')} is not read by a file conversion: send it as a file.` : '';
    const what = tool.kind === 'file' && missing.includes('file') ? ` The file goes in input.file as {base64, fileName}, {url} (public https) or {fileId}; accepted: ${tool.upload?.accept.join(', ') ?? 'see get_tool_schema'}.${sentText}` : '';
    const html = access === 'html' && missing.includes('url') ? " Or pass the page's HTML as input.html, analysed free." : '';
    return { status: 'need_input', code: 'missing_input', job, missing, hint: `${tool.title} needs ${missing.map((m) => `input.${m}`).join(', ')}.${what}${html} get_tool_schema ${tool.operationId} shows every field.`, exampleInput };
  }
  const parsed = (localMode && tool.input instanceof z.ZodObject ? tool.input.partial() : tool.input).safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? String(issue.path[0]) : '';
    const message = issue?.message ?? 'invalid';
    return { status: 'need_input', code: 'invalid_input', job, missing: field === '' ? [] : [field], field, reason: message, hint: `input${field === '' ? '' : `.${field}`}: ${message}. get_tool_schema ${tool.operationId} shows every field.`, exampleInput };
  }
  return {
    status: 'ready',
    job,
    input,
    mode: localMode ? 'local' : tool.kind === 'url' ? 'live' : 'plain',
    ...(local === undefined ? {} : { local }),
    ...(tool.kind === 'file' ? { file: given.file } : {}),
    fromGoal,
    ignored,
  };
}

/**
 * The input a matched job runs with, or need_input. The URL comes from input.<field> or, failing
 * that, from the URLs written in the goal, in order (a competitor comparison takes the first as
 * `url` and the second as `competitorUrl`); a tool's request in words (`prompt`) from the goal's
 * words. Throws only for an id that is in neither registry,
 * which the matcher never answers.
 */
export function resolveJobInput(job: JobRef, args: Args, registries: Registries): ResolvedInput | NeedInput {
  if (job.kind === 'playbook') {
    const playbook = registries.playbooks.get(job.id);
    if (playbook === undefined) throw new Error(`no playbook ${job.id}`);
    return resolvePlaybook(playbook, registries.catalog, args);
  }
  const tool = registries.catalog.get(job.id);
  if (tool === undefined) throw new Error(`no tool ${job.id}`);
  return resolveTool(tool, args);
}
