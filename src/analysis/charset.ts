// Decoding a fetched body the way a browser would (WHATWG encoding sniffing, simplified): a byte
// order mark first, then the charset the header declares, then a <meta> in the first bytes,
// else UTF-8 when the bytes are valid UTF-8, else windows-1252. Decoding never throws: invalid
// bytes become U+FFFD, so a broken page still yields text to analyse.

/** How far into the body a <meta> charset is looked for (the HTML standard's prescan reads 1024 bytes). */
const META_PRESCAN_BYTES = 4096;

/** The TextDecoder name for a label, or null when TextDecoder does not know it. */
function encodingFor(label: string): string | null {
  try {
    return new TextDecoder(label.trim().replace(/^["']|["']$/g, '')).encoding;
  } catch {
    return null;
  }
}

function bomEncoding(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The charset parameter of a Content-Type header. */
export function headerCharset(contentType: string | undefined): string | null {
  const match = contentType?.match(/;\s*charset\s*=\s*("?)([^";,\s]+)\1/i);
  return match?.[2] === undefined ? null : encodingFor(match[2]);
}

/** <meta charset=...> or <meta http-equiv="content-type" content="...; charset=..."> near the start. */
export function metaCharset(body: Buffer): string | null {
  const head = body.subarray(0, META_PRESCAN_BYTES).toString('latin1');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = tag.match(/\bcharset\s*=\s*["']?([^"'\s/>;]+)/i);
    if (direct?.[1] !== undefined) {
      const encoding = encodingFor(direct[1]);
      // A page cannot ask to be read as UTF-16 through a <meta> (the standard reads it as UTF-8).
      if (encoding !== null) return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
    }
  }
  return null;
}

function isValidUtf8(body: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}

export interface DecodedText {
  charset: string;
  text: string;
}

export function decodeBody(body: Buffer, contentType: string | undefined, html: boolean): DecodedText {
  const charset = bomEncoding(body) ?? headerCharset(contentType) ?? (html ? metaCharset(body) : null) ?? (isValidUtf8(body) ? 'utf-8' : 'windows-1252');
  // TextDecoder drops the BOM itself (ignoreBOM false).
  return { charset, text: new TextDecoder(charset).decode(body) };
}
