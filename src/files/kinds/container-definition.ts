// How one container format is declared in the file-kind registry (file-kind-registry.ts): the
// kinds its detector can answer, the formats a tool may accept from it, how it is recognised from
// the file's head, and the safety check its files meet before an engine opens them. One file per
// container format (pdf.ts, zip-based.ts, ole2.ts, images.ts, text-like.ts); a new format is a
// new file (or a new entry in one) and a line in the registry.
import type { ZipSafetyLimits } from '../zip-limits.ts';
import type { ImageHeaderLimits } from './image-header.ts';
import type { ReadableFile } from '../file-reader.ts';

/** The limits the safety checks hold files to: the zip set, and the image set (IMAGE_MAX_*; the defaults when absent). */
export interface SafetyLimits extends ZipSafetyLimits {
  image?: ImageHeaderLimits;
}

/** What an OLE2 compound file holds, from its directory. */
export type OleType = 'doc' | 'xls' | 'ppt' | 'encrypted-ooxml' | 'other';

/** What detection found; `K` is the detected kind (see FileKind). */
export interface Detection<K extends string = string> {
  kind: K;
  mimeType: string;
  /** Password-protected: an encrypted PDF, an OLE2 EncryptedPackage (a protected docx/xlsx/pptx), a legacy doc/xls/ppt with encryption, encrypted ZIP entries or an encrypted ODF package. */
  encrypted?: boolean;
  /** For `text`: it looks like HTML, a whole document (then `mimeType` is text/html) or a fragment. */
  isHtml?: boolean;
  /** For `ole2`: which application's file it is, when the directory says. */
  oleType?: OleType;
  /** For ZIP kinds: the central directory is unreadable, the kind was guessed from the local headers. */
  corrupt?: boolean;
  /** For OOXML kinds: the package holds a VBA project (docm/xlsm/pptm). */
  macros?: boolean;
}

/** The start of the file, read once and shown to every detector in turn. */
export interface HeadProbe {
  path: string;
  handle: ReadableFile;
  /** the first 64 KB (or the whole file when smaller) */
  head: Buffer;
  size: number;
}

/** A kind detection can answer. */
export interface DetectedKindSpec {
  mimeType: string;
  /** how a 415 names it: "Its content looks like <describedAs>" */
  describedAs: string;
  /** how a 422 names it: "The <noun> is damaged or incomplete" */
  noun: string;
}

/** A format a tool may name in `upload.accept`. */
export interface AcceptedKindSpec {
  /** the MIME type a result of this format is served with */
  mimeType: string;
  /** file name extensions, the usual one first (results are named with it) */
  extensions: readonly string[];
  /** whether a detected file is of this format */
  matches(detection: Detection): boolean;
}

export interface ContainerDefinition<D extends string, A extends string> {
  /** the container format's name, e.g. 'zip' */
  readonly name: string;
  readonly detected: { readonly [K in D]: DetectedKindSpec };
  readonly accepted: { readonly [K in A]: AcceptedKindSpec };
  /** the file's kind when it is of this container, else undefined (the next detector tries) */
  detect(probe: HeadProbe): Promise<Detection<D> | undefined> | Detection<D> | undefined;
  /**
   * Throws a 422 ServiceError when a file of `kind` must not reach an engine (bombs, DTDs,
   * passwords, truncation). Runs after the charge: the file is the caller's fault.
   */
  assertSafe?(path: string, kind: D, limits: SafetyLimits): Promise<void>;
}

export function defineContainer<D extends string, A extends string>(definition: ContainerDefinition<D, A>): ContainerDefinition<D, A> {
  return definition;
}

export function startsWith(buffer: Buffer, bytes: readonly number[] | string | Buffer, at = 0): boolean {
  const sig = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return buffer.length >= at + sig.length && buffer.subarray(at, at + sig.length).equals(sig);
}

/** A kind accepted exactly when it is detected. */
export const sameKind = (kind: string) => (detection: Detection): boolean => detection.kind === kind;
