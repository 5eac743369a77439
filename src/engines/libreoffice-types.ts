// The LibreOffice engine's option and result types, apart from the pool (libreoffice.ts) so that
// the engine file stays about the pool and its sandbox, and callers (index.ts) can name the types
// without reading the engine.
import type { ZipSafetyLimits } from '../files/zip-limits.ts';
import type { PageOptions } from './page.ts';
import type { EngineLogger } from './engine-types.ts';

export interface LibreOfficeOptions {
  /** warm instances (default 2) */
  instances?: number;
  /** jobs waiting beyond the running ones before 429 (default 8) */
  maxQueued?: number;
  /** per-job limit in ms (default 60 s) */
  jobTimeoutMs?: number;
  /**
   * restart an instance after this many jobs (default 5000, 0 = never; the first restarts are
   * staggered between instances, and a planned restart waits while another instance restarts)
   */
  maxJobsPerInstance?: number;
  /**
   * restart an instance whose soffice.bin holds more than this resident memory after a job
   * (default 512 MiB; 0 = never): soffice grows with what it converted, a fresh one is ~140 MB
   */
  maxRssPerInstanceBytes?: number;
  /** address-space limit of each instance in bytes (default 4 GiB; 0 = none) */
  memoryLimitBytes?: number;
  /** time allowed for an instance to start (default 60 s) */
  startTimeoutMs?: number;
  /** run each instance in a network namespace without interfaces when possible (default true) */
  isolateNetwork?: boolean;
  /**
   * Filesystem sandbox: 'auto' (default) uses bubblewrap when it works here, 'bwrap' requires it,
   * 'none' runs LibreOffice on the host filesystem (still in a network namespace when possible).
   */
  sandbox?: 'auto' | 'bwrap' | 'none';
  /** soffice program (default 'soffice' on PATH) */
  soffice?: string;
  /** a Python 3 that can `import uno` (default: /usr/bin/python3, then python3 on PATH) */
  python?: string;
  /** limits on zip containers (docx, xlsx, odt, ...) checked before a conversion */
  zipLimits?: Partial<ZipSafetyLimits>;
  /** where profiles live (default: a fresh folder under the OS temp dir) */
  workDir?: string;
  logger?: EngineLogger;
}

export type DocumentKind = 'writer' | 'calc' | 'impress' | 'draw' | 'unknown';

export interface ConvertOptions {
  /** absolute path of the source document */
  inputPath: string;
  /** absolute path of the file to write (its folder must exist) */
  outputPath: string;
  /**
   * Target extension; the bridge picks the export filter for the loaded document's kind:
   * writer: pdf docx doc odt rtf txt html epub; calc: pdf xlsx xls ods csv html;
   * impress: pdf pptx ppt odp html; draw: pdf odg png.
   */
  format?: string;
  /** an explicit export filter (e.g. 'writer_pdf_Export'); overrides `format` */
  filter?: string;
  filterOptions?: string;
  /** export FilterData, e.g. { PageRange: '1-2' } for PDF filters */
  filterData?: Record<string, string | number | boolean>;
  /** import filter and options, e.g. 'Text (encoded)' + 'UTF8' for plain text, CSV options */
  inputFilter?: string;
  inputFilterOptions?: string;
  /** password of an encrypted source document */
  password?: string;
  /** encrypt the output with this password (formats that support it: odt, docx, xlsx, ods, ...) */
  outputPassword?: string;
  /** page size, orientation and margins (Writer and Calc documents: every page style) */
  page?: PageOptions;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ConvertResult {
  kind: DocumentKind;
  filter: string;
  /** time spent inside LibreOffice */
  ms: number;
  /** which pooled instance converted it */
  instance: number;
}
