// archive/list: what an archive holds, as JSON in the body (nothing is extracted, nothing stored).
// 7-Zip lists the upload; each entry comes with its sizes, compression ratio and, when it could
// not be extracted safely, why (the same rules the conversions refuse on), so a caller can see a
// zip slip or a bomb before deciding anything.
import { z } from 'zod';
import { defineFileTool } from '../../core/define-tool.ts';
import { archiveError, entryRatios, linkTargetInside, summarize, unsafePathReason } from '../../engines/archive-entry-policy.ts';
import type { ArchiveSourceFormat } from '../../engines/sevenzip.ts';
import type { ArchiveEntry } from '../../engines/sevenzip-listing.ts';
import { ARCHIVE_FORMATS } from './archive-conversions.ts';

const entrySchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'hardlink', 'device', 'fifo', 'socket']),
  sizeBytes: z.number().int().describe('uncompressed size (for a link: the length of its target)'),
  packedBytes: z.number().int().nullable().describe('compressed size (a tar file: its data padded to 512-byte blocks); null when the format does not say per entry (7z solid blocks; tar folders and links)'),
  ratio: z.number().nullable().describe('uncompressed / compressed, 2 decimals (for a 7z solid block: on its first entry); null when unknown'),
  encrypted: z.boolean(),
  linkTarget: z.string().nullable(),
  unsafe: z.string().nullable().describe('why extracting this entry would be refused, or null'),
});

const listSchema = z.object({
  format: z.enum(['zip', '7z', 'tar', 'tar.gz']),
  archiveBytes: z.number().int(),
  entryCount: z.number().int(),
  fileCount: z.number().int(),
  directoryCount: z.number().int(),
  linkCount: z.number().int(),
  totalBytes: z.number().int().describe('the files\' uncompressed sizes together'),
  ratio: z.number().nullable().describe('totalBytes / archiveBytes, 2 decimals'),
  encrypted: z.boolean().describe('some entry is password-protected'),
  entries: z.array(entrySchema),
});

export type ArchiveListResult = z.infer<typeof listSchema>;

const FORMAT_OF_KIND: Record<string, ArchiveSourceFormat> = { zip: 'zip', '7z': '7z', tar: 'tar', 'tar.gz': 'tar.gz' };

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function unsafeReason(entry: ArchiveEntry): string | null {
  const path = unsafePathReason(entry.path);
  if (path) return `its name has ${path}`;
  if (entry.type === 'device' || entry.type === 'fifo' || entry.type === 'socket') return `it is a ${entry.type === 'device' ? 'device node' : entry.type}, not a file`;
  if ((entry.type === 'symlink' || entry.type === 'hardlink') && entry.linkTarget !== null && linkTargetInside(entry.path, entry.linkTarget, entry.type) === null) {
    return 'it links outside the archive';
  }
  return null;
}

export const archiveList = defineFileTool({
  family: 'archive',
  slug: 'list',
  title: 'List an archive',
  description:
    'Lists what a zip, 7z, tar or tar.gz archive holds and answers JSON in the body (no link, nothing extracted): every entry\'s path, type, uncompressed and compressed size, compression ratio, encryption and link target, the totals, and for each entry that extraction would refuse, why (../ or absolute names, links pointing out, devices). Use it to look inside an archive, or to check one before converting it. Upload the archive in the multipart field "file".',
  aliases: ['list zip contents', 'archive contents', 'what is in this zip', 'inspect archive', 'zip file list', 'tar list'],
  credits: 1,
  input: z.strictObject({}),
  upload: { field: 'file', accept: Object.values(ARCHIVE_FORMATS).map((format) => format.kind) },
  engines: ['sevenzip'],
  answer: 'json',
  output: listSchema,
  examples: [
    {
      title: 'a tar of documents',
      input: {},
      sampleText: 'Read me first',
      source: { format: 'tar', tree: { 'docs/': '', 'docs/readme.txt': 'Read me first\n', latest: '-> docs/readme.txt' } },
      expect: {
        mimeType: 'application/json',
        extension: 'json',
        contains: [],
        // The whole answer (/openapi.json shows it as the example's result), for the tar the
        // tree makes with 512-byte headers and no padding past the two end blocks.
        facts: {
          format: 'tar',
          archiveBytes: 3072,
          entryCount: 3,
          fileCount: 1,
          directoryCount: 1,
          linkCount: 1,
          totalBytes: 14,
          ratio: 0,
          encrypted: false,
          entries: [
            { path: 'docs', type: 'directory', sizeBytes: 0, packedBytes: null, ratio: null, encrypted: false, linkTarget: null, unsafe: null },
            { path: 'docs/readme.txt', type: 'file', sizeBytes: 14, packedBytes: 512, ratio: 0.03, encrypted: false, linkTarget: null, unsafe: null },
            { path: 'latest', type: 'symlink', sizeBytes: 15, packedBytes: null, ratio: null, encrypted: false, linkTarget: 'docs/readme.txt', unsafe: null },
          ],
        } satisfies ArchiveListResult,
      },
    },
  ],
  async run(_input, ctx): Promise<ArchiveListResult> {
    const format = FORMAT_OF_KIND[ctx.upload.kind];
    if (format === undefined) throw archiveError('corrupt_document', `a ${ctx.upload.kind} file is not an archive this tool lists`);
    const engine = ctx.engines.sevenzip;
    const listing = await engine.list({ inputPath: ctx.upload.path, format, workDir: ctx.workDir, signal: ctx.signal });
    if (listing.entries.length > engine.limits.maxEntries) {
      throw archiveError('document_bomb', `${listing.entries.length} entries; at most ${engine.limits.maxEntries} are listed`);
    }
    const ratios = entryRatios(listing);
    const totals = summarize(listing);
    const archiveBytes = ctx.upload.sizeBytes;
    return {
      format,
      archiveBytes,
      entryCount: totals.entries,
      fileCount: totals.files,
      directoryCount: totals.directories,
      linkCount: totals.links,
      totalBytes: totals.totalBytes,
      ratio: archiveBytes > 0 ? round(totals.totalBytes / archiveBytes) : null,
      encrypted: listing.entries.some((entry) => entry.encrypted),
      entries: listing.entries.map((entry) => {
        const ratio = ratios.get(entry);
        return {
          path: entry.path,
          type: entry.type,
          sizeBytes: entry.size,
          packedBytes: entry.packedSize > 0 || (entry.block === null && listing.type === 'zip') ? entry.packedSize : null,
          ratio: ratio === undefined ? null : round(ratio),
          encrypted: entry.encrypted,
          linkTarget: entry.linkTarget,
          unsafe: unsafeReason(entry),
        };
      }),
    };
  },
});
