// The engines, built from one small options object: LibreOffice (warm pool), Chromium (one warm
// browser), pandoc and poppler (a process per job). Every engine starts lazily, answers 503 when
// its program is missing, and is listed by engineStatus() for /readyz; close() kills every child.
import { ChromiumEngine, type ChromiumOptions } from './chromium.ts';
import { LibreOfficeEngine, type LibreOfficeOptions } from './libreoffice.ts';
import { PandocEngine } from './pandoc.ts';
import { PopplerEngine } from './poppler.ts';
import type { ProgramEngineOptions } from './program.ts';
import { stderrLogger, type EngineLogger, type EngineStatus } from './supervisor.ts';

export type { EngineLogger, EngineStatus, EngineState } from './supervisor.ts';
export type { ConvertOptions, ConvertResult, LibreOfficeOptions } from './libreoffice.ts';
export type { ChromiumOptions, HtmlToPdfOptions } from './chromium.ts';
export type { PandocConvertOptions } from './pandoc.ts';
export type { PdfInfo, PdfToHtmlOptions, PdfToTextOptions } from './poppler.ts';
export type { PageOptions } from './page.ts';
export { ChromiumEngine, LibreOfficeEngine, PandocEngine, PopplerEngine };

export interface EnginesOptions {
  libreoffice?: Omit<LibreOfficeOptions, 'logger'>;
  chromium?: Omit<ChromiumOptions, 'logger'>;
  pandoc?: Omit<ProgramEngineOptions, 'logger'>;
  poppler?: Omit<ProgramEngineOptions, 'logger'>;
  /** pino fits: warn(obj, msg) */
  logger?: EngineLogger;
}

export interface Engines {
  libreoffice: LibreOfficeEngine;
  chromium: ChromiumEngine;
  pandoc: PandocEngine;
  poppler: PopplerEngine;
  /** one entry per engine, for /readyz */
  engineStatus(): Promise<EngineStatus[]>;
  /** starts the warm engines now instead of on first use (errors show in engineStatus) */
  warm(): Promise<void>;
  /** stops every engine and kills every child process */
  close(): Promise<void>;
}

export function createEngines(options: EnginesOptions = {}): Engines {
  const logger = options.logger ?? stderrLogger;
  const libreoffice = new LibreOfficeEngine({ ...options.libreoffice, logger });
  const chromium = new ChromiumEngine({ ...options.chromium, logger });
  const pandoc = new PandocEngine({ ...options.pandoc, logger });
  const poppler = new PopplerEngine({ ...options.poppler, logger });
  const all = [libreoffice, chromium, pandoc, poppler];
  let closing: Promise<void> | null = null;
  return {
    libreoffice,
    chromium,
    pandoc,
    poppler,
    engineStatus: () => Promise.all(all.map((engine) => engine.status())),
    async warm() {
      await Promise.allSettled([libreoffice.warm(), chromium.warm()]);
    },
    close() {
      closing ??= Promise.allSettled(all.map((engine) => engine.close())).then(() => undefined);
      return closing;
    },
  };
}
