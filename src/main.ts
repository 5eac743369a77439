// The CLI's entry: finds the command in the table (cli/), answers --help and --version without
// side effects (no settings read, no database opened), parses the options strictly and runs it.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { COMMANDS, GROUPS } from './cli/command-table.ts';
import { commandHelp, groupHelp, overviewHelp } from './cli/cli-help.ts';
import { UsageError, type CommandSpec, type OptionValues } from './cli/cli-spec.ts';
import { ConfigError, loadConfig } from './config.ts';
import { isServiceError } from './core/errors.ts';

const HELP = new Set(['--help', '-h']);

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

function findCommand(words: readonly string[]): { command: CommandSpec; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    if (command.path.every((word, i) => words[i] === word)) return { command, rest: words.slice(command.path.length) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const [first, second] = argv;
  if (first === undefined || HELP.has(first)) return void out(overviewHelp(COMMANDS));
  if (first === '--version' || first === '-V' || first === 'version') return void out(version());
  if (first === 'help') {
    const target = argv.slice(1);
    const found = findCommand(target);
    if (found) return void out(commandHelp(found.command));
    if (target[0] !== undefined && GROUPS.has(target[0])) return void out(groupHelp(target[0], COMMANDS));
    return void out(overviewHelp(COMMANDS));
  }
  const found = findCommand(argv);
  if (found === undefined) {
    if (GROUPS.has(first)) {
      if (second === undefined || HELP.has(second)) {
        out(groupHelp(first, COMMANDS));
        if (second === undefined) process.exitCode = 2;
        return;
      }
      throw new UsageError(`unknown command: ${first} ${second}`, undefined, groupHelp(first, COMMANDS));
    }
    throw new UsageError(`unknown command: ${argv.join(' ')}`);
  }
  const { command, rest } = found;
  // --help anywhere after the command shows its help and does nothing else.
  if (rest.some((arg) => HELP.has(arg))) return void out(commandHelp(command));
  const options: ParseArgsOptionsConfig = Object.fromEntries(command.options.map((o) => [o.name, { type: o.type }]));
  let values: OptionValues;
  try {
    values = parseArgs({ args: rest, options, strict: true, allowPositionals: false }).values as OptionValues;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err), command);
  }
  for (const option of command.options) {
    if (option.required && (values[option.name] === undefined || values[option.name] === '')) throw new UsageError(`--${option.name} is required`, command);
  }
  await command.run(values, {
    config: loadConfig,
    print: (value) => out(JSON.stringify(value, null, 2)),
    write: (text) => process.stdout.write(text),
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`tool-service: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof UsageError) {
    const usage = err.usage ?? (err.command ? commandHelp(err.command) : overviewHelp(COMMANDS));
    process.stderr.write(`tool-service: ${err.message}\n\n${usage}\n`);
    process.exit(2);
  }
  if (isServiceError(err)) {
    process.stderr.write(`tool-service: ${err.message}${err.detail !== err.message ? ` (${err.detail})` : ''}\n`);
    // Bad input (an unknown plan, a taken e-mail) is a usage error like a bad flag: exit 2.
    process.exit(err.status < 500 ? 2 : 1);
  }
  process.stderr.write(`tool-service: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
