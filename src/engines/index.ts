// The engines' public face: the registry (engine-registry.ts) builds them from one list of
// definitions; the engine classes and their option types are exported for the tools and tests.
export { createEngines, ENGINE_DEFINITIONS, engineByLabel, engineOptionsFrom, engineSettingsFrom, engineSettingsShape, isEngineName } from './engine-registry.ts';
export type { EngineLabel, EngineName, EngineOf, EngineOptionsOf, Engines, EngineSet, EngineSettings, EngineView, EnginesOptions } from './engine-registry.ts';
export { defineEngine, type AnyEngineDefinition, type Engine, type EngineDefinition, type SharedEngineOptions } from './engine-definition.ts';
export type { EngineLogger, EngineStatus, EngineState } from './supervisor.ts';
export type { ConvertOptions, ConvertResult, LibreOfficeOptions } from './libreoffice-types.ts';
export type { ChromiumOptions, HtmlToPdfOptions } from './chromium.ts';
export type { PandocConvertOptions } from './pandoc.ts';
export type { PdfInfo, PdfToHtmlOptions, PdfToTextOptions } from './poppler.ts';
export type { PageOptions } from './page.ts';
export { ChromiumEngine } from './chromium.ts';
export { LibreOfficeEngine } from './libreoffice.ts';
export { PandocEngine } from './pandoc.ts';
export { PopplerEngine } from './poppler.ts';
