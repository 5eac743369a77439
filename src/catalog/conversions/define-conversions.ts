import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool, type FileToolContext, type UploadedFile } from '../../core/define-tool.ts';
import type { PageOptions } from '../../engines/page.ts';
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

export type EngineLabel = 'LibreOffice' | 'pandoc' | 'Chromium' | 'poppler' | 'built-in';

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

const DEFAULT_CREDITS: Record<string, number> = { LibreOffice: 3, Chromium: 3, pandoc: 2, poppler: 2, 'built-in': 1 };

// Unknown option fields answer 400 naming them, rather than being silently ignored.
const noOptions = z.strictObject({});
const withPdfOptions = pdfOptionsSchema.strict();

/** Expands a conversion table into catalog tools: one line, one endpoint `/api/v1/<family>/<from>-to-<to>`. */
export function defineConversions(family: string, rows: readonly ConversionRow[]): AnyTool[] {
  return rows.map((row) => {
    const from = FORMATS[row.from];
    const to = FORMATS[row.to];
    const credits = row.credits ?? DEFAULT_CREDITS[row.engine.split(' + ')[0]!] ?? 2;
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
      examples: [
        {
          title: `${row.from.toUpperCase()} to ${row.to.toUpperCase()}`,
          input: row.pdfOptions ? { page_size: 'A4', orientation: 'portrait', margin: '20mm' } : {},
          sampleText: row.sampleText,
          expect: { mimeType: to.mimeType, extension: to.extension, contains: [row.sampleText] },
        },
      ],
      async run(input, ctx: FileToolContext<ConversionEngines>) {
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
