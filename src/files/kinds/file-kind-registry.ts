// The one list of file kinds: each container format's detector, in the order they are tried on a
// file's head. From it come FileKind (what detection answers), AcceptedKind (what a tool may name
// in upload.accept), their MIME types and extensions, kindMatches, and which safety check a
// detected kind meets. Adding a format is an entry in its container's file, or a new container
// file and one line here.
import { archiveFiles } from './archives.ts';
import { audioFiles } from './audio.ts';
import type { ContainerDefinition, DetectedKindSpec, AcceptedKindSpec, Detection } from './container-definition.ts';
import { ebookFiles } from './ebook.ts';
import { imageFiles } from './images.ts';
import { ole2Files } from './ole2.ts';
import { pdfFiles } from './pdf.ts';
import { svgFiles } from './svg.ts';
import { textFiles } from './text-like.ts';
import { zipFiles } from './zip-based.ts';

/** Detectors in the order they are tried; text-like last, as the fallback before `unknown`. */
export const FILE_CONTAINERS = [pdfFiles, ole2Files, zipFiles, archiveFiles, imageFiles, audioFiles, ebookFiles, svgFiles, textFiles] as const;

type Container = (typeof FILE_CONTAINERS)[number];
type DetectedOf<C> = C extends ContainerDefinition<infer D, string> ? D : never;
type AcceptedOf<C> = C extends ContainerDefinition<string, infer A> ? A : never;

/** What detection answers: a container's kind, or nothing at all, or nothing it knows. */
export type FileKind = DetectedOf<Container> | 'empty' | 'unknown';
/** What a file tool may accept (upload.accept): its detector decides with kindMatches. */
export type AcceptedKind = AcceptedOf<Container>;
export type FileDetection = Detection<FileKind>;

const OUTSIDE: Record<'empty' | 'unknown', DetectedKindSpec> = {
  empty: { mimeType: 'application/x-empty', describedAs: 'nothing', noun: 'file' },
  unknown: { mimeType: 'application/octet-stream', describedAs: 'an unrecognised binary format', noun: 'file' },
};

// Built once from the list; a kind declared twice is a mistake caught at start.
const DETECTED = new Map<string, { spec: DetectedKindSpec; container: Container | undefined }>(Object.entries(OUTSIDE).map(([kind, spec]) => [kind, { spec, container: undefined }]));
const ACCEPTED = new Map<string, AcceptedKindSpec>();
for (const container of FILE_CONTAINERS) {
  for (const [kind, spec] of Object.entries<DetectedKindSpec>(container.detected)) {
    if (DETECTED.has(kind)) throw new Error(`file kind ${kind} is detected by two containers`);
    DETECTED.set(kind, { spec, container });
  }
  for (const [kind, spec] of Object.entries<AcceptedKindSpec>(container.accepted)) {
    if (ACCEPTED.has(kind)) throw new Error(`accepted kind ${kind} is declared by two containers`);
    ACCEPTED.set(kind, spec);
  }
}

export function isAcceptedKind(kind: string): kind is AcceptedKind {
  return ACCEPTED.has(kind);
}

export function isFileKind(kind: string): kind is FileKind {
  return DETECTED.has(kind);
}

/** Every kind a tool may accept, in registry order. */
export function acceptedKinds(): AcceptedKind[] {
  return [...ACCEPTED.keys()].filter(isAcceptedKind);
}

/** MIME type and extensions of an accepted kind (the extension results of that format are named with first). */
export function acceptedKind(kind: AcceptedKind): AcceptedKindSpec {
  return ACCEPTED.get(kind)!;
}

/** How a detected kind is named in messages and what MIME type it has when nothing more is known. */
export function detectedKind(kind: FileKind): DetectedKindSpec {
  return DETECTED.get(kind)!.spec;
}

/** The container format whose detector answers `kind` (its safety check applies). */
export function containerOf(kind: FileKind): Container | undefined {
  return DETECTED.get(kind)?.container;
}

/**
 * Whether `accepted` (a format a tool takes) is satisfied by what was detected. Encrypted
 * OOXML (an OLE2 EncryptedPackage) matches docx/xlsx/pptx so that the safety check can ask for
 * the password to be removed; legacy doc/xls/ppt take OLE2 files of their application.
 */
export function kindMatches(accepted: AcceptedKind, detected: FileDetection | FileKind): boolean {
  const detection: Detection = typeof detected === 'string' ? { kind: detected, mimeType: detectedKind(detected).mimeType } : detected;
  return ACCEPTED.get(accepted)?.matches(detection) ?? false;
}
