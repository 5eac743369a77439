// The archive family's conversions, one line each: 7-Zip (engines/sevenzip.ts) lists the
// upload, refuses anything hostile before extracting it, extracts into the call's work folder
// under its limits, and packs the entries again in the target format. Each row's example names a
// tree of files; the examples suite (test/archive/archive-examples.test.ts) builds the source
// archive from it, converts it through the service and reads every entry of the result back.
import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool, type FileToolExample } from '../../core/define-tool.ts';
import type { ArchiveSourceFormat, ArchiveTargetFormat } from '../../engines/sevenzip.ts';
import { outputName } from '../../files/file-pipeline.ts';

export interface ArchiveFormatInfo {
  label: string;
  extension: string;
  mimeType: string;
  /** the accepted file kind (files/kinds/archives.ts) */
  kind: string;
}

export const ARCHIVE_FORMATS: Record<ArchiveSourceFormat, ArchiveFormatInfo> = {
  zip: { label: 'ZIP', extension: 'zip', mimeType: 'application/zip', kind: 'zip' },
  '7z': { label: '7z', extension: '7z', mimeType: 'application/x-7z-compressed', kind: '7z' },
  tar: { label: 'tar', extension: 'tar', mimeType: 'application/x-tar', kind: 'tar' },
  'tar.gz': { label: 'tar.gz', extension: 'tar.gz', mimeType: 'application/gzip', kind: 'tar.gz' },
};

/** A tree of files for an example: path to content (a path ending in "/" is a folder; "-> target" a symlink). */
export type ArchiveTree = Readonly<Record<string, string>>;

export interface ArchiveExampleFacts {
  /** every entry the result holds, as 7-Zip extracts it */
  entries: ArchiveTree;
}

interface ArchiveRow {
  from: ArchiveSourceFormat;
  to: ArchiveTargetFormat;
  /** when the slug is not `<from>-to-<to>` (dots are not allowed in slugs) */
  slug?: string;
  description: string;
  aliases?: readonly string[];
  example: { title: string; tree: ArchiveTree; level?: number };
}

const DOCS_TREE: ArchiveTree = {
  'docs/': '',
  'docs/readme.txt': 'Read me first\n',
  'docs/guide.md': '# Guide\n\nStep one.\n',
  'data/report.csv': 'quarter,revenue\nQ1,1200\nQ2,1350\n',
  'data/': '',
  latest: '-> docs/readme.txt',
};

const CODE_TREE: ArchiveTree = {
  'src/': '',
  'src/main.ts': 'console.log("hello");\n',
  'package.json': '{"name":"demo","version":"1.0.0"}\n',
  'README.md': 'Demo project: héllo wörld ✓\n',
};

const ROWS: readonly ArchiveRow[] = [
  { from: 'tar', to: '7z', description: 'LZMA2 compression, usually far smaller than the tar; folders, names, dates and symlinks are kept.', example: { title: 'a tar of documents as 7z', tree: DOCS_TREE } },
  {
    from: 'zip',
    to: 'tar.gz',
    slug: 'zip-to-gz',
    description: 'A gzip stream holds one file, so the zip\'s entries are repackaged as a tar inside one gzip stream: the result is a .tar.gz (what `tar -xzf` and every archive tool open).',
    aliases: ['zip to tar.gz', 'zip to tgz', 'zip to gzip'],
    example: { title: 'a zip repackaged as .tar.gz', tree: CODE_TREE },
  },
  { from: 'zip', to: '7z', description: 'Usually smaller than the zip; folders, names and dates are kept.', example: { title: 'a zip as 7z at the highest level', tree: CODE_TREE, level: 9 } },
  { from: '7z', to: 'zip', description: 'Deflate, which every system opens without extra software.', example: { title: 'a 7z as zip', tree: CODE_TREE } },
  { from: 'tar', to: 'zip', description: 'Deflate; symlinks are kept as Unix symlink entries.', example: { title: 'a tar as zip', tree: DOCS_TREE } },
  { from: 'zip', to: 'tar', description: 'An uncompressed POSIX tar with the entries\' names, dates and Unix modes.', example: { title: 'a zip as tar', tree: CODE_TREE } },
  { from: 'tar.gz', to: 'zip', slug: 'tar-gz-to-zip', description: 'The gzip stream is inflated (bounded) and the tar\'s entries packed as a zip.', aliases: ['tar.gz to zip', 'tgz to zip'], example: { title: 'a .tar.gz as zip', tree: DOCS_TREE } },
  { from: '7z', to: 'tar', description: 'An uncompressed POSIX tar of the 7z\'s entries.', example: { title: 'a 7z as tar', tree: CODE_TREE } },
  { from: 'tar.gz', to: '7z', slug: 'tar-gz-to-7z', description: 'Usually smaller than the .tar.gz; folders, names, dates and symlinks are kept.', aliases: ['tar.gz to 7z', 'tgz to 7z'], example: { title: 'a .tar.gz as 7z', tree: DOCS_TREE } },
];

const HOSTILE_NOTE =
  'The archive is listed first and refused with 422 before anything is extracted when an entry would land outside its folder (../ or absolute names, symlinks or hard links pointing out), is a device or FIFO, is encrypted (encrypted_document), or when the entries, their total size or their compression ratio pass the limits (document_bomb); nested archives are passed on as files, never opened.';

/** The result's file name: the upload's stem (without .tar.gz or .tgz as a whole) and the target's extension. */
export function archiveOutputName(originalName: string, to: ArchiveTargetFormat): string {
  const stem = originalName.replace(/\.(tar\.gz|tgz)$/i, '');
  // outputName drops one extension: give it a stand-in when the double one is already gone.
  return outputName(stem === originalName ? originalName : `${stem}.x`, ARCHIVE_FORMATS[to].extension);
}

function levelOption(to: ArchiveTargetFormat) {
  if (to === 'tar') return {};
  const min = to === 'tar.gz' ? 1 : 0;
  return {
    level: z.coerce
      .number()
      .int()
      .min(min)
      .max(9)
      .optional()
      .describe(`compression level ${min} (${min === 0 ? 'stored, no compression' : 'fastest'}) to 9 (smallest, slowest); default ${to === 'tar.gz' ? 6 : 5}`),
  };
}

export const archiveConversions: AnyTool[] = ROWS.map((row) => {
  const from = ARCHIVE_FORMATS[row.from];
  const to = ARCHIVE_FORMATS[row.to];
  const example: FileToolExample<Record<string, unknown>> = {
    title: row.example.title,
    input: row.example.level === undefined ? {} : { level: String(row.example.level) },
    sampleText: Object.values(row.example.tree).find((content) => content.length > 0 && !content.startsWith('->')) ?? '',
    source: { format: row.from, tree: row.example.tree },
    expect: { mimeType: to.mimeType, extension: to.extension, contains: [], facts: { entries: row.example.tree } satisfies ArchiveExampleFacts },
  };
  return defineFileTool({
    family: 'archive',
    slug: row.slug ?? `${row.from}-to-${row.to}`,
    title: `${from.label} to ${to.label}`,
    description: `Converts a ${from.label} archive to ${to.label} with 7-Zip. ${row.description} ${HOSTILE_NOTE} Upload the archive in the multipart field "file"; the answer holds a presigned downloadUrl valid 1 hour.`,
    aliases: [`${from.label} to ${to.label}`, `convert ${from.label} to ${to.label}`, `${row.from} to ${row.to}`, ...(row.aliases ?? [])],
    credits: 2,
    input: z.strictObject(levelOption(row.to)),
    upload: { field: 'file', accept: [from.kind] },
    conversion: { from: row.from, to: row.to },
    engines: ['sevenzip'],
    // Beyond the engine's own job limit (ARCHIVE_JOB_TIMEOUT_MS, 9 minutes), so that one answers first.
    limits: { timeoutMs: 600_000 },
    examples: [example],
    async run(input, ctx) {
      const outputPath = join(ctx.workDir, `result.${to.extension}`);
      const level = (input as { level?: number }).level;
      await ctx.engines.sevenzip.convert({
        inputPath: ctx.upload.path,
        from: row.from,
        to: row.to,
        workDir: ctx.workDir,
        outputPath,
        signal: ctx.signal,
        ...(level === undefined ? {} : { level }),
      });
      return { path: outputPath, fileName: archiveOutputName(ctx.upload.originalName, row.to), mimeType: to.mimeType };
    },
  });
});
