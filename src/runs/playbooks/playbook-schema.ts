// The playbook (skill) format: a workflow of catalog calls as data, so that adding a playbook is
// adding a JSON file, and the planner (plan_task, run_playbook, verify_task) reads one shape.
// Everything that can be checked without the catalog is checked here (ids, templates, the gate);
// playbook-registry.ts checks the rest against the catalog at start.
import { acceptanceItemSchema } from '../loop/acceptance.ts';
import { z } from 'zod';
import { categorySchema, type Category } from '../../analysis/findings.ts';

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const INPUT_NAME = /^[a-z][A-Za-z0-9]{0,39}$/;

/** The categories a ship gate always reads (the spec: TLS, security headers, HTTP status, mixed content). */
export const SHIP_GATE_CATEGORIES: readonly Category[] = ['tls', 'security-headers', 'http-status', 'mixed-content'];

/** What a playbook input holds; `inputSchemaOf` turns these into the zod schema a run validates against. */
export const INPUT_TYPES = ['url', 'string', 'html', 'text', 'integer', 'boolean', 'file'] as const;

export const playbookInputSchema = z
  .object({
    type: z.enum(INPUT_TYPES).describe('url: an absolute http(s) URL; html/text: content passed inline; file: a file source (base64 or https URL)'),
    description: z.string().min(1).max(300).describe('What the agent should pass, in one sentence'),
    required: z.boolean().default(false).describe('Whether a run needs it'),
    maxLength: z.number().int().min(1).max(5_000_000).optional().describe('For string types: the longest value accepted'),
    enum: z.array(z.string().min(1).max(100)).min(1).max(20).optional().describe('For type string: the only values accepted'),
  })
  .strict();

// A JSON value a step passes to its tool: literals, or strings holding {{...}} references.
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string().max(2000), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema).max(50), z.record(z.string(), jsonValueSchema)]),
);

export const playbookStepSchema = z
  .object({
    id: z.string().regex(KEBAB, 'a step id is kebab-case').max(40).describe('Names the step in reports and in {{steps.<id>...}} references'),
    operationId: z.string().regex(/^[a-z0-9_]+$/, 'an operationId is lower-case words joined by _').describe('The catalog operation the step calls'),
    purpose: z.string().min(1).max(300).describe('Why the step is there, for the agent reading the plan'),
    input: z.record(z.string(), jsonValueSchema).default({}).describe('The tool input: literals and {{input.<name>}} / {{steps.<id>.result.<path>}} references'),
    file: z.string().optional().describe("File tools only: the file source, {{input.<file input>}} or an earlier file step's {{steps.<id>.result.fileId}}"),
    when: z.string().regex(INPUT_NAME).optional().describe('Run the step only when this optional input is given'),
  })
  .strict();

export const playbookGateSchema = z
  .object({
    policy: z.enum(['default', 'ship']).describe('default: no high-severity findings and no poor score; ship: also requireGood'),
    requireGood: z.array(categorySchema).default([]).describe('Categories whose status must be good to pass (needs_improvement or unknown fail)'),
    advisory: z.array(categorySchema).default([]).describe('Categories reported but never failing the gate on needs_improvement alone (the page-speed proxy)'),
  })
  .strict();

export const playbookSchema = z
  .object({
    id: z.string().regex(KEBAB, 'an id is kebab-case (a-z, 0-9, single hyphens)').max(60),
    title: z.string().min(1).max(80),
    description: z.string().min(20).max(1000).describe('For an agent: what the playbook checks and when to use it; the first sentence is the summary'),
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'a version is semver, e.g. 1.0.0'),
    tags: z.array(z.string().regex(KEBAB, 'a tag is kebab-case')).max(12).default([]),
    aliases: z.array(z.string().min(1).max(80)).max(20).default([]).describe('Other ways people name the job, for search'),
    inputs: z.record(z.string().regex(INPUT_NAME, 'an input name is camelCase letters and digits'), playbookInputSchema),
    steps: z.array(playbookStepSchema).min(1).max(12),
    scores: z.array(categorySchema).default([]).describe('The categories the playbook scores (none for a workflow of plain tools)'),
    gate: playbookGateSchema,
    acceptance: z
      .array(acceptanceItemSchema)
      .min(1)
      .max(20)
      .describe('What must hold for the job to count as done (verification.evidence): each a criterion the gate judges (loop/acceptance.ts), or a sentence judged with the gate'),
    guidance: z.string().min(1).max(2000).describe("How the agent's fix-and-verify loop should use the results"),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (const problem of structuralProblems(p)) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  });

export type Playbook = z.infer<typeof playbookSchema>;
export type PlaybookStep = z.infer<typeof playbookStepSchema>;
export type PlaybookInput = z.infer<typeof playbookInputSchema>;

/** A {{...}} reference inside a step's input or file: to a playbook input or to an earlier step's result. */
export type Reference = { kind: 'input'; name: string } | { kind: 'step'; stepId: string; path: string[] };

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Parses one reference's text; null when it is neither form. */
export function parseReference(text: string): Reference | null {
  const input = /^input\.([A-Za-z0-9]+)$/.exec(text);
  if (input?.[1] !== undefined) return { kind: 'input', name: input[1] };
  const step = /^steps\.([a-z0-9-]+)\.result((?:\.[A-Za-z0-9_]+)+)$/.exec(text);
  if (step?.[1] !== undefined && step[2] !== undefined) return { kind: 'step', stepId: step[1], path: step[2].slice(1).split('.') };
  return null;
}

/** Every {{...}} text inside a value, with where it sits (for error messages). */
export function templatesIn(value: unknown, at: string): { at: string; text: string }[] {
  if (typeof value === 'string') return [...value.matchAll(TEMPLATE)].map((m) => ({ at, text: m[1] ?? '' }));
  if (Array.isArray(value)) return value.flatMap((v, i) => templatesIn(v, `${at}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => templatesIn(v, `${at}.${k}`));
  return [];
}

interface Problem {
  path: (string | number)[];
  message: string;
}

// The checks that need only the playbook: ids unique, references resolvable, the gate coherent.
function structuralProblems(p: Playbook): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  p.steps.forEach((step, index) => {
    if (seen.has(step.id)) problems.push({ path: ['steps', index, 'id'], message: `step id "${step.id}" is used twice` });
    const refs = [...templatesIn(step.input, 'input'), ...(step.file === undefined ? [] : templatesIn(step.file, 'file'))];
    for (const { at, text } of refs) {
      const ref = parseReference(text);
      if (ref === null) problems.push({ path: ['steps', index], message: `step "${step.id}" ${at}: "{{${text}}}" is not {{input.<name>}} or {{steps.<id>.result.<path>}}` });
      else if (ref.kind === 'input' && p.inputs[ref.name] === undefined)
        problems.push({ path: ['steps', index], message: `step "${step.id}" ${at} references input "${ref.name}", which the playbook does not declare (declared: ${Object.keys(p.inputs).join(', ') || 'none'})` });
      else if (ref.kind === 'step' && !seen.has(ref.stepId))
        problems.push({ path: ['steps', index], message: `step "${step.id}" ${at} references step "${ref.stepId}", which is not an earlier step` });
    }
    if (step.file !== undefined && !/^\s*\{\{[^{}]*\}\}\s*$/.test(step.file))
      problems.push({ path: ['steps', index, 'file'], message: `step "${step.id}" file must be a single {{...}} reference` });
    for (const { text } of step.file === undefined ? [] : templatesIn(step.file, 'file')) {
      const ref = parseReference(text);
      if (ref?.kind === 'input' && p.inputs[ref.name] !== undefined && p.inputs[ref.name]?.type !== 'file')
        problems.push({ path: ['steps', index, 'file'], message: `step "${step.id}" file references input "${ref.name}", which is not of type file` });
    }
    if (step.when !== undefined) {
      const declared = p.inputs[step.when];
      if (declared === undefined) problems.push({ path: ['steps', index, 'when'], message: `step "${step.id}" when references input "${step.when}", which the playbook does not declare` });
      else if (declared.required) problems.push({ path: ['steps', index, 'when'], message: `step "${step.id}" when names required input "${step.when}": the step would always run` });
    }
    seen.add(step.id);
  });
  for (const [name, spec] of Object.entries(p.inputs)) {
    if (spec.maxLength !== undefined && !['string', 'html', 'text'].includes(spec.type))
      problems.push({ path: ['inputs', name, 'maxLength'], message: `input "${name}" has maxLength but is of type ${spec.type}` });
    if (spec.enum !== undefined && spec.type !== 'string') problems.push({ path: ['inputs', name, 'enum'], message: `input "${name}" has enum but is of type ${spec.type}` });
  }
  if (!Object.values(p.inputs).some((i) => i.required)) problems.push({ path: ['inputs'], message: 'a playbook declares at least one required input' });
  const scored = new Set(p.scores);
  for (const category of [...p.gate.requireGood, ...p.gate.advisory]) {
    if (!scored.has(category)) problems.push({ path: ['gate'], message: `the gate reads "${category}", which is not in scores` });
  }
  for (const category of p.gate.advisory) {
    if (p.gate.requireGood.includes(category)) problems.push({ path: ['gate', 'advisory'], message: `"${category}" cannot be both required good and advisory` });
  }
  if (p.gate.policy === 'ship') {
    const missing = SHIP_GATE_CATEGORIES.filter((c) => !p.gate.requireGood.includes(c));
    if (missing.length > 0) problems.push({ path: ['gate', 'requireGood'], message: `a ship gate requires ${SHIP_GATE_CATEGORIES.join(', ')} to be good; missing: ${missing.join(', ')}` });
  } else if (p.gate.requireGood.length > 0) {
    problems.push({ path: ['gate', 'requireGood'], message: 'requireGood belongs to a ship gate; the default gate fails only on high-severity findings and poor scores' });
  }
  return problems;
}

// Runs validate their input against this: a playbook's inputs as a strict zod object.
const FILE_SOURCE = z.union([
  z.object({ base64: z.string().min(1).describe('The file, base64-encoded'), fileName: z.string().min(1).max(255).describe('Its name, for the result') }).strict(),
  z.object({ url: z.string().regex(/^https:\/\//i, 'a file URL is https').max(2048).describe('An https URL the service fetches the file from') }).strict(),
]);

function zodForInput(spec: PlaybookInput): z.ZodType {
  const base = ((): z.ZodType => {
    switch (spec.type) {
      case 'url':
        return z.string().min(1).max(2048).regex(/^https?:\/\//i, 'an absolute http or https URL');
      case 'integer':
        return z.number().int();
      case 'boolean':
        return z.boolean();
      case 'file':
        return FILE_SOURCE;
      case 'string':
        return spec.enum === undefined ? z.string().max(spec.maxLength ?? 1_000_000) : z.enum(spec.enum as [string, ...string[]]);
      default:
        return z.string().max(spec.maxLength ?? 1_000_000);
    }
  })().describe(spec.description);
  return spec.required ? base : base.optional();
}

// Playbooks are read-only once loaded, and every run validates against its schema: built once each.
const inputSchemas = new WeakMap<Pick<Playbook, 'inputs'>, z.ZodObject>();

/** The zod schema of a playbook's input object (and, through z.toJSONSchema, what load_skill shows). */
export function inputSchemaOf(playbook: Pick<Playbook, 'inputs'>): z.ZodObject {
  let schema = inputSchemas.get(playbook);
  if (schema === undefined) {
    schema = z.object(Object.fromEntries(Object.entries(playbook.inputs).map(([name, spec]) => [name, zodForInput(spec)]))).strict();
    inputSchemas.set(playbook, schema);
  }
  return schema;
}
