// Every CLI command, in the order the overview lists them.
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import type { CommandSpec } from './cli-spec.ts';
import { migrateCommand, serveCommand } from './server-commands.ts';

export const COMMANDS: readonly CommandSpec[] = [serveCommand, migrateCommand, ...ACCOUNT_COMMANDS];

/** The first words of commands that have sub-commands (accounts, keys). */
export const GROUPS: ReadonlySet<string> = new Set(COMMANDS.filter((c) => c.path.length > 1).map((c) => c.path[0] ?? ''));
