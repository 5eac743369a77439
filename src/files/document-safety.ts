// The up-front safety checks on an upload whose kind is known, before any engine opens it:
// decompression bombs, DTDs (the XXE defence), password-protected documents and truncated
// archives. Each container format declares its own check in the file-kind registry
// (kinds/*.ts); this is the one entry point, under the one set of zip limits (zip-limits.ts) and
// the image limits (kinds/image-header.ts).
import type { SafetyLimits } from './kinds/container-definition.ts';
import { containerOf, type FileKind } from './kinds/file-kind-registry.ts';
import { zipLimits } from './zip-limits.ts';

export { decodeXml, looksLikeMarkup } from './zip-safety.ts';
export { formatBytes, type SafetyErrorCode } from './kinds/safety-errors.ts';

/** The zip limits and the image limits, as the safety check's callers name them. */
export type { SafetyLimits };

export { DEFAULT_ZIP_LIMITS as DEFAULT_SAFETY_LIMITS } from './zip-limits.ts';

/** Throws a 422 ServiceError when the document must not reach an engine. */
export async function assertSafeDocument(path: string, kind: FileKind, limits: Partial<SafetyLimits> = {}): Promise<void> {
  await containerOf(kind)?.assertSafe?.(path, kind as never, { ...zipLimits(limits), ...(limits.image === undefined ? {} : { image: limits.image }) });
}
