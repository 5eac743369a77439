// The shape of a CLI command: its words, options and help, declared once, so parsing, the help
// text and the checks of required options all come from the same table (cli-help.ts renders it).
import type { Config } from '../config.ts';

export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  /** the placeholder shown in help for a string option (E, ID, N) */
  value?: string;
  required?: boolean;
  description: string;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandContext {
  /** read only when the command runs: --help never loads settings or opens the database */
  config: () => Config;
  print: (value: unknown) => void;
  write: (text: string) => void;
}

export interface CommandSpec {
  /** the words that name it: ['accounts', 'create'] */
  path: readonly string[];
  summary: string;
  /** more about what it does, shown by --help under the usage line */
  description?: string;
  options: readonly OptionSpec[];
  examples?: readonly string[];
  run: (values: OptionValues, ctx: CommandContext) => Promise<void>;
}

/** A mistake in how the command was called: exit 2 with the command's usage. */
export class UsageError extends Error {
  readonly command: CommandSpec | undefined;
  /** the help to show under the message, when it is not the command's (a group's) */
  readonly usage: string | undefined;
  constructor(message: string, command?: CommandSpec, usage?: string) {
    super(message);
    this.command = command;
    this.usage = usage;
  }
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function nonNegativeInt(values: OptionValues, name: string, command: CommandSpec): number | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a non-negative integer, not "${value}"`, command);
  return n;
}

/**
 * A required string option's value. main() refuses a call missing one (its usage, exit 2) before
 * the command runs, from the same table, so here it is only read: reaching a command without it
 * is a bug in the table, not the caller's mistake.
 */
export function requiredOption(values: OptionValues, name: string): string {
  const value = stringOption(values, name);
  if (value === undefined || value === '') throw new Error(`--${name} is declared required, yet reached the command unset`);
  return value;
}
