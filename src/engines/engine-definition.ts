// What every engine is to the rest of the service, and how one is declared. An engine file ends
// with `export const xEngine = defineEngine({...})` (its name, label, credits, the environment
// keys it reads with their defaults and docs, and how to build it); engine-registry.ts lists the
// definitions, and everything else (the Engines type, ctx.engines, /readyz, config keys, the
// conversion tables' engine labels and credits) is derived from that one list.
import type { z } from 'zod';
import type { EngineLogger, EngineProbe, EngineStatus } from './engine-types.ts';
import type { ZipSafetyLimits } from '../files/zip-limits.ts';

/** The contract /readyz, warm-up, shutdown and the invoke path's preflight rely on. */
export interface Engine {
  /** name, version, state, queue for /readyz */
  status(): Promise<EngineStatus>;
  /** whether its programs are installed (found once, lazily; the version comes with it) */
  availability(): Promise<EngineProbe>;
  /** starts warm workers now instead of on first use; per-job engines have nothing to warm */
  warm(): Promise<void>;
  /** stops it and kills every child process */
  close(): Promise<void>;
}

/** Settings every engine takes from the service (ENGINE_QUEUE_LIMIT, ENGINE_JOB_TIMEOUT_MS, the zip limits). */
export interface SharedEngineOptions {
  logger: EngineLogger;
  maxQueued?: number;
  jobTimeoutMs?: number;
  /** the one zip-bomb limit set (config's ZIP_*), for engines that open zip containers */
  zipLimits?: ZipSafetyLimits;
}

export interface EngineDefinition<N extends string, L extends string, Z extends z.ZodObject, O extends object, E extends Engine> {
  /** machine name: the key in ctx.engines and Engines, the name in /readyz, what a tool declares */
  readonly name: N;
  /** the name people read: in conversion tables ('LibreOffice', 'pandoc + Chromium') and messages */
  readonly label: L;
  /** default credits of a conversion whose (first) engine this is */
  readonly credits: number;
  /**
   * The environment keys this engine reads, each with its default and a .describe() doc.
   * loadConfig parses them with every other setting, so a bad value stops the start.
   */
  readonly settings: Z;
  /** options from the parsed settings */
  fromSettings(settings: z.output<Z>): O;
  /** builds the engine; it must not start anything until first use or warm() */
  create(options: O & SharedEngineOptions): E;
}

// The definitions are checked for shape here and kept with their literal types for the registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEngineDefinition = EngineDefinition<string, string, z.ZodObject, any, Engine>;

export function defineEngine<N extends string, L extends string, Z extends z.ZodObject, O extends object, E extends Engine>(
  definition: EngineDefinition<N, L, Z, O, E>,
): EngineDefinition<N, L, Z, O, E> {
  if (!/^[a-z][a-z0-9]*$/.test(definition.name)) throw new Error(`engine name ${definition.name} must be lower-case letters and digits`);
  if (!Number.isInteger(definition.credits) || definition.credits < 1 || definition.credits > 10) throw new Error(`engine ${definition.name}: credits must be 1 to 10`);
  for (const key of Object.keys(definition.settings.shape)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(key)) throw new Error(`engine ${definition.name}: setting ${key} is not an environment variable name`);
  }
  return definition;
}
