import type { EngineName, EngineView } from '../../engines/engine-registry.ts';

/**
 * What a converter gets as job.engines: every registered engine, typed from the registry. The
 * row's label declares which of them its tool needs (checked before the charge); a new engine
 * appears here by being registered.
 */
export type ConversionEngines = EngineView<EngineName>;
