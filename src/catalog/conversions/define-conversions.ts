import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool, type UploadedFile } from '../../core/define-tool.ts';
import type { PageOptions } from '../../engines/page.ts';
import { engineByLabel, type EngineLabel as RegisteredLabel, type EngineName } from '../../engines/engine-registry.ts';
import { outputName } from '../../files/file-pipeline.ts';
import { sanitizeHtmlFile } from '../../files/html-sanitizer.ts';
import type { ConversionEngines } from './conversion-engines.ts';
import { FORMATS, type FormatId } from './formats.ts';
import { pdfOptionsSchema, toPageOptions } from './page-options.ts';

export interface ConversionJob {
  input: UploadedFile;
  /** Where the converter writes its result (inside the call's work folder). */
  outputPath: string;
  workDir: string;
  page: PageOptions | undefined;
  engines: ConversionEngines;
  signal: AbortSignal;
  /** The row's own option fields (see ConversionRow.options), as validated. */
  options?: Readonly<Record<string, unknown>>;
}

/** A registered engine's label (engines/engine-registry.ts), or 'built-in' for code in this process. */
export type EngineLabel = RegisteredLabel | 'built-in';

/** One line of a family's conversion table. */
export interface ConversionRow {
  from: FormatId;
  to: FormatId;
  engine: EngineLabel | `${EngineLabel} + ${EngineLabel}`;
  /** What the conversion keeps and loses, for the docs. */
  description: string;
  /** Whether the PDF options (page_size, orientation, margin) apply. */
  pdfOptions?: boolean;
  /** Option fields of this row alone (multipart fields or query parameters), handed to convert as job.options. */
  options?: z.ZodRawShape;
  credits?: number;
  aliases?: readonly string[];
  /** A sample text the examples-as-tests suite puts in a generated source file, and expects in the result. */
  sampleText: string;
  convert(job: ConversionJob): Promise<void>;
}

/** What a conversion done in-process costs by default. */
const BUILT_IN_CREDITS = 1;

/**
 * The engines a row's label names ('poppler + pandoc'), declared by its tool: checked before the
 * charge, so a conversion whose program is missing answers 503 and costs nothing.
 */
export function enginesOfLabel(label: string): EngineName[] {
  return label.split(' + ').flatMap((part) => {
    if (part === 'built-in') return [];
    const engine = engineByLabel(part);
    if (!engine) throw new Error(`conversion engine "${part}" is not a registered engine label`);
    return [engine.name];
  });
}

function defaultCredits(label: string): number {
  const first = label.split(' + ')[0] ?? '';
  return first === 'built-in' ? BUILT_IN_CREDITS : (engineByLabel(first)?.credits ?? 2);
}

// Unknown option fields answer 400 naming them, rather than being silently ignored.
const noOptions = z.strictObject({});
const withPdfOptions = pdfOptionsSchema.strict();

/** Expands a conversion table into catalog tools: one line, one endpoint `/api/v1/<family>/<from>-to-<to>`. */
export function defineConversions(family: string, rows: readonly ConversionRow[]): AnyTool[] {
  return rows.map((row) => {
    const from = FORMATS[row.from];
    const to = FORMATS[row.to];
    const credits = row.credits ?? defaultCredits(row.engine);
    return defineFileTool({
      family,
      slug: `${row.from}-to-${row.to}`,
      title: `${from.label} to ${to.label}`,
      description: `Converts ${from.label} to ${to.label} with ${row.engine}. ${row.description}${
        row.pdfOptions ? ' PDF options page_size, orientation and margin are honoured.' : ''
      }${row.to === 'html' ? ' The HTML is sanitised: scripts, frames, objects, forms, event handlers and script URLs are removed.' : ''} Upload the file in the multipart field "file"; the answer holds a presigned downloadUrl valid 1 hour.`,
      aliases: [`${row.from} to ${row.to}`, `convert ${row.from} to ${row.to}`, `${from.label} to ${to.label}`, ...(row.aliases ?? [])],
      credits,
      // Every schema accepts {}: typed as the widest one so examples type-check for any.
      input: (row.options === undefined
        ? row.pdfOptions
          ? withPdfOptions
          : noOptions
        : z.strictObject({ ...(row.pdfOptions ? pdfOptionsSchema.shape : {}), ...row.options })) as typeof withPdfOptions,
      upload: { field: 'file', accept: [row.from] },
      conversion: { from: row.from, to: row.to },
      limits: { timeoutMs: 180_000 },
      engines: enginesOfLabel(row.engine),
      examples: [
        {
          title: `${row.from.toUpperCase()} to ${row.to.toUpperCase()}`,
          input: row.pdfOptions ? { page_size: 'A4', orientation: 'portrait', margin: '20mm' } : {},
          sampleText: row.sampleText,
          expect: { mimeType: to.mimeType, extension: to.extension, contains: [row.sampleText] },
        },
      ],
      async run(input, ctx) {
        const fileName = outputName(ctx.upload.originalName, to.extension);
        const outputPath = join(ctx.workDir, `result.${to.extension}`);
        await row.convert({
          input: ctx.upload,
          outputPath,
          workDir: ctx.workDir,
          page: toPageOptions(input as z.infer<typeof pdfOptionsSchema>),
          engines: ctx.engines,
          signal: ctx.signal,
          options: input as Record<string, unknown>,
        });
        // Here, not in each converter, so that no row producing HTML can forget it.
        if (row.to === 'html') await sanitizeHtmlFile(outputPath, outputPath, ctx.signal);
        return { path: outputPath, fileName, mimeType: to.mimeType };
      },
    });
  });
}
