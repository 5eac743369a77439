// PDF: recognised by its %PDF- signature; an /Encrypt entry anywhere in the head or the tail
// (the trailer or an xref-stream dictionary) makes it a password-protected one, refused before
// an engine opens it.
import { readAt } from '../zip-inspect.ts';
import { defineContainer, sameKind, startsWith } from './container-definition.ts';
import { encrypted } from './safety-errors.ts';
import { openForReading, type ReadableFile } from '../file-reader.ts';

const HEAD_BYTES = 64 * 1024;

/** An `/Encrypt` entry (a reference or an inline dictionary) in the trailer or xref-stream dictionary. */
const PDF_ENCRYPT = /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/;

export async function pdfIsEncrypted(handle: ReadableFile, head: Buffer, size: number): Promise<boolean> {
  if (PDF_ENCRYPT.test(head.toString('latin1'))) return true;
  if (size <= head.length) return false;
  const tailStart = Math.max(head.length, size - HEAD_BYTES);
  const tail = await readAt(handle, tailStart, size - tailStart);
  return PDF_ENCRYPT.test(tail.toString('latin1'));
}

export const pdfFiles = defineContainer({
  name: 'pdf',
  detected: {
    pdf: { mimeType: 'application/pdf', describedAs: 'PDF', noun: 'PDF' },
  },
  accepted: {
    pdf: { mimeType: 'application/pdf', extensions: ['pdf'], matches: sameKind('pdf') },
  },
  async detect({ handle, head, size }) {
    if (!startsWith(head, '%PDF-')) return undefined;
    return (await pdfIsEncrypted(handle, head, size)) ? { kind: 'pdf', mimeType: 'application/pdf', encrypted: true } : { kind: 'pdf', mimeType: 'application/pdf' };
  },
  async assertSafe(path) {
    const handle = await openForReading(path);
    try {
      const size = (await handle.stat()).size;
      const head = await readAt(handle, 0, Math.min(size, HEAD_BYTES));
      if (await pdfIsEncrypted(handle, head, size)) throw encrypted('The PDF has an /Encrypt dictionary: it is encrypted with a password');
    } finally {
      await handle.close();
    }
  },
});
