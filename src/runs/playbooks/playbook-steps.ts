// Turns a step's input mapping into the input its tool receives, for the runner (run_playbook):
// a value that is exactly one {{reference}} takes the referenced value with its type (a number
// stays a number), a reference inside longer text is spliced in as text, literals pass as they are.
import { parseReference, type PlaybookStep } from './playbook-schema.ts';

export interface StepScope {
  /** the playbook input, already validated against inputSchemaOf */
  input: Record<string, unknown>;
  /** results of the steps that ran so far, by step id */
  results: Record<string, unknown>;
}

const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const PART = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The referenced value, or undefined when the input was not given or the path is absent. */
export function lookupReference(text: string, scope: StepScope): unknown {
  const ref = parseReference(text);
  if (ref === null) throw new Error(`"{{${text}}}" is not a reference`);
  if (ref.kind === 'input') return scope.input[ref.name];
  let value: unknown = scope.results[ref.stepId];
  for (const key of ref.path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function resolveValue(value: unknown, scope: StepScope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookupReference(whole[1] ?? '', scope);
    return value.replace(PART, (_, text: string) => {
      const found = lookupReference(text, scope);
      return found === undefined || found === null ? '' : typeof found === 'object' ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveValue(v, scope);
      // An optional input that was not given leaves its field out, so the tool's default applies.
      if (resolved !== undefined) out[k] = resolved;
    }
    return out;
  }
  return value;
}

/** Whether the step runs for this input: steps with `when` run only when that input was given. */
export function stepApplies(step: PlaybookStep, scope: StepScope): boolean {
  return step.when === undefined || (scope.input[step.when] !== undefined && scope.input[step.when] !== null);
}

/** The tool input for one step, and its file source when the tool takes a file. */
export function resolveStep(step: PlaybookStep, scope: StepScope): { input: Record<string, unknown>; file?: unknown } {
  const input = resolveValue(step.input, scope) as Record<string, unknown>;
  return step.file === undefined ? { input } : { input, file: resolveValue(step.file, scope) };
}
