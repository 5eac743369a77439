// Help text, generated from the command table: the overview (every command, one line each), a
// group's commands (`tool-service accounts --help`) and one command's usage, options and examples.
import { PLAN_IDS } from '../accounts/plans.ts';
import type { CommandSpec, OptionSpec } from './cli-spec.ts';

const NAME = 'tool-service';

function optionLabel(option: OptionSpec): string {
  return option.type === 'string' ? `--${option.name} ${option.value ?? 'VALUE'}` : `--${option.name}`;
}

function usageLine(command: CommandSpec): string {
  const parts = command.options.map((o) => (o.required ? optionLabel(o) : `[${optionLabel(o)}]`));
  return [NAME, ...command.path, ...parts].join(' ');
}

function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}   ${right}`).join('\n');
}

export function overviewHelp(commands: readonly CommandSpec[]): string {
  return [
    `Usage: ${NAME} <command> [options]`,
    '',
    'The utility tool service: the HTTP API and MCP server, and the operator commands for accounts and keys.',
    '',
    'Commands:',
    columns(commands.map((c) => [c.path.join(' '), c.summary])),
    '',
    'Options:',
    columns([
      ['-h, --help', 'show help (also after any command: tool-service accounts create --help)'],
      ['-V, --version', 'print the version'],
    ]),
    '',
    `Plans: ${PLAN_IDS.join(', ')}. Settings come from the environment: see docs/configuration.md.`,
  ].join('\n');
}

export function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  const own = commands.filter((c) => c.path[0] === group);
  return [`Usage: ${NAME} ${group} <command> [options]`, '', 'Commands:', columns(own.map((c) => [c.path.join(' '), c.summary])), '', `Run "${NAME} ${group} <command> --help" for its options.`].join('\n');
}

export function commandHelp(command: CommandSpec): string {
  const options: [string, string][] = command.options.map((o) => [optionLabel(o), `${o.description}${o.required ? ' (required)' : ''}`]);
  options.push(['-h, --help', 'show this help']);
  const lines = [`Usage: ${usageLine(command)}`, '', `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`];
  if (command.description) lines.push('', command.description);
  lines.push('', 'Options:', columns(options));
  if (command.examples && command.examples.length > 0) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}
