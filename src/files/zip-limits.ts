// The one set of zip-bomb limits, from config (ZIP_MAX_ENTRIES, ZIP_MAX_UNCOMPRESSED_BYTES,
// ZIP_MAX_RATIO, ZIP_MAX_PART_BYTES, ZIP_MAX_DEPTH). The upload safety check
// (document-safety.ts) and the engines' own guard before they open a container
// (engines/zip-guard.ts) both read it, so an upload the first lets through is never refused by
// the second for a different reason. Where the two sets disagreed, the stricter value was kept:
// 300 MiB in total (not 512 MiB) and 10 000 entries (not 20 000).

export interface ZipSafetyLimits {
  /** entries in one archive */
  maxEntries: number;
  /** the most all entries may inflate to, declared or actual */
  maxUncompressedBytes: number;
  /** the largest inflated/compressed ratio of one entry (checked past `ratioFloorBytes`) */
  maxRatio: number;
  /** the most one entry may inflate to */
  maxPartBytes: number;
  /** entries smaller than this may have any ratio (a few KB of spaces compress 1000:1) */
  ratioFloorBytes: number;
  /**
   * Archives inside archives the service opens, counting the upload as 1 (42.zip nests 5).
   * Document kinds never open nested archives; the archive tools (issue 12 section 4) must stop here.
   */
  maxDepth: number;
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipSafetyLimits> = Object.freeze({
  maxEntries: 10_000,
  maxUncompressedBytes: 300 * 1024 * 1024,
  maxRatio: 200,
  maxPartBytes: 64 * 1024 * 1024,
  ratioFloorBytes: 1024 * 1024,
  maxDepth: 2,
});

/** The defaults with some limits replaced (tests and one-off callers). */
export function zipLimits(overrides: Partial<ZipSafetyLimits> = {}): ZipSafetyLimits {
  return { ...DEFAULT_ZIP_LIMITS, ...overrides };
}
