// The one list of engines. Adding an engine is one file (the engine, ending with its
// defineEngine) and one line here; from this list come the Engines type tools get as ctx.engines,
// the names a tool may declare, the labels and default credits of conversion tables, the
// environment keys loadConfig parses, /readyz, warm-up, shutdown and the preflight that answers
// 503 for a missing program before anything is charged.
import type { z } from 'zod';
import { ServiceError } from '../core/errors.ts';
import { calibreEngine } from './calibre.ts';
import { chromiumEngine } from './chromium.ts';
import type { AnyEngineDefinition, SharedEngineOptions } from './engine-definition.ts';
import { ffmpegEngine } from './ffmpeg.ts';
import { imageEngine } from './image.ts';
import { libreofficeEngine } from './libreoffice.ts';
import { pandocEngine } from './pandoc.ts';
import { popplerEngine } from './poppler.ts';
import { sevenZipEngine } from './sevenzip.ts';
import { stderrLogger, type EngineLogger, type EngineStatus } from './engine-types.ts';

/** Every engine, in /readyz order. */
export const ENGINE_DEFINITIONS = [libreofficeEngine, chromiumEngine, pandocEngine, popplerEngine, imageEngine, ffmpegEngine, calibreEngine, sevenZipEngine] as const satisfies readonly AnyEngineDefinition[];

type Definition = (typeof ENGINE_DEFINITIONS)[number];
type DefinitionOf<N extends EngineName> = Extract<Definition, { name: N }>;

/** What a tool may declare in `engines`. */
export type EngineName = Definition['name'];
/** What a conversion table's `engine` column names. */
export type EngineLabel = Definition['label'];
/** The engine object behind a name. */
export type EngineOf<N extends EngineName> = ReturnType<DefinitionOf<N>['create']>;
/** The options an engine is built with (beyond the shared ones). */
export type EngineOptionsOf<N extends EngineName> = ReturnType<DefinitionOf<N>['fromSettings']>;
/** The engines a tool that declared `N` gets as ctx.engines. */
export type EngineView<N extends EngineName> = { readonly [K in N]: EngineOf<K> };
/** Each engine's parsed settings (Config.engines). */
export type EngineSettings = { [N in EngineName]: z.output<DefinitionOf<N>['settings']> };

export interface EngineSet {
  /** one entry per engine, for /readyz */
  engineStatus(): Promise<EngineStatus[]>;
  /** starts the warm engines now instead of on first use (errors show in engineStatus) */
  warm(): Promise<void>;
  /** stops every engine and kills every child process */
  close(): Promise<void>;
  /**
   * Throws 503 engine_unavailable, naming the missing program, when one of `names` is not
   * installed: the invoke path calls it before the charge, so a missing engine costs nothing.
   */
  require(names: readonly EngineName[]): Promise<void>;
}

export type Engines = EngineView<EngineName> & EngineSet;

export type EnginesOptions = { [N in EngineName]?: Partial<EngineOptionsOf<N>> } & Partial<Omit<SharedEngineOptions, 'logger'>> & {
  /** pino fits: warn(obj, msg) */
  logger?: EngineLogger;
};

const BY_NAME = new Map<string, AnyEngineDefinition>(ENGINE_DEFINITIONS.map((d) => [d.name, d]));
const BY_LABEL = new Map<string, AnyEngineDefinition>(ENGINE_DEFINITIONS.map((d) => [d.label, d]));

export function isEngineName(name: string): name is EngineName {
  return BY_NAME.has(name);
}

/** The definition whose label is `label` ('LibreOffice'), if any. */
export function engineByLabel(label: string): { name: EngineName; label: EngineLabel; credits: number } | undefined {
  const found = BY_LABEL.get(label);
  return found && isEngineName(found.name) ? { name: found.name, label: found.label as EngineLabel, credits: found.credits } : undefined;
}

/** Every engine's environment keys, merged into loadConfig's one schema. */
export function engineSettingsShape(): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const definition of ENGINE_DEFINITIONS) {
    for (const [key, schema] of Object.entries(definition.settings.shape)) {
      if (key in shape) throw new Error(`two engines read ${key}`);
      shape[key] = schema;
    }
  }
  return shape;
}

/** Each engine's settings out of loadConfig's parsed environment (already checked by engineSettingsShape's schemas). */
export function engineSettingsFrom(parsed: Readonly<Record<string, unknown>>): EngineSettings {
  const settings: Record<string, unknown> = {};
  for (const definition of ENGINE_DEFINITIONS) {
    settings[definition.name] = Object.fromEntries(Object.keys(definition.settings.shape).map((key) => [key, parsed[key]]));
  }
  return settings as EngineSettings;
}

/** The per-engine options createEngines takes, from Config.engines. */
export function engineOptionsFrom(settings: EngineSettings): { [N in EngineName]: EngineOptionsOf<N> } {
  const options: Record<string, unknown> = {};
  for (const definition of ENGINE_DEFINITIONS) options[definition.name] = definition.fromSettings(settings[definition.name] as never);
  return options as { [N in EngineName]: EngineOptionsOf<N> };
}

/**
 * Builds every registered engine (nothing starts until first use or warm()). Per-engine options
 * override the shared ones (queue limit, job time limit, zip limits).
 */
export function createEngines(options: EnginesOptions = {}): Engines {
  const logger = options.logger ?? stderrLogger;
  const shared: SharedEngineOptions = { logger };
  if (options.maxQueued !== undefined) shared.maxQueued = options.maxQueued;
  if (options.jobTimeoutMs !== undefined) shared.jobTimeoutMs = options.jobTimeoutMs;
  if (options.zipLimits !== undefined) shared.zipLimits = options.zipLimits;
  const own = options as Record<string, object | undefined>;
  const built = new Map<string, ReturnType<AnyEngineDefinition['create']>>();
  for (const definition of ENGINE_DEFINITIONS) {
    built.set(definition.name, definition.create({ ...shared, ...(own[definition.name] ?? {}), logger }));
  }
  const all = [...built.values()];
  let closing: Promise<void> | null = null;
  const set: EngineSet = {
    engineStatus: () => Promise.all(all.map((engine) => engine.status())),
    async warm() {
      await Promise.allSettled(all.map((engine) => engine.warm()));
    },
    close() {
      closing ??= Promise.allSettled(all.map((engine) => engine.close())).then(() => undefined);
      return closing;
    },
    async require(names) {
      for (const name of names) {
        const engine = built.get(name);
        const definition = BY_NAME.get(name);
        if (!engine || !definition) throw new Error(`no engine named ${name} is registered`);
        const probe = await engine.availability();
        // The same answer the engine's supervisor gives when a job reaches a missing program.
        if (!probe.ok) {
          throw new ServiceError(503, 'engine_unavailable', `${definition.label} is not installed on this server (missing: ${probe.missing})`, {
            extra: { engine: definition.name, missing: probe.missing },
          });
        }
      }
    },
  };
  // The map holds one engine per definition, each built by its own create(): the view's type is
  // derived from the same list, which TypeScript cannot follow through the loop.
  const view = Object.fromEntries(built) as unknown as EngineView<EngineName>;
  return { ...view, ...set };
}
