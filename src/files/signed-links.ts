import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constantTimeEqual } from '../accounts/secrets.ts';

/**
 * The key that signs download links. Every process sharing DATA_DIR must agree on it, so when
 * FILE_SIGNING_SECRET is unset one is generated once and kept in DATA_DIR/signing-secret (mode 600).
 */
export function loadSigningSecret(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = join(dataDir, 'signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    // Another process created it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  }
}

/** How url() writes a unix time: the canonical decimal of a positive integer. */
const CANONICAL_EXPIRES = /^[1-9]\d{0,11}$/;

export class LinkSigner {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  /**
   * The HMAC of the link's exact text: `expires` is signed as the string the link carries, so a
   * number spelled another way (0-padded, +, 1e9) is another string and never matches.
   */
  signature(fileId: string, fileName: string, expires: number | string): string {
    return createHmac('sha256', this.#secret).update(`${fileId}\n${fileName}\n${String(expires)}`).digest('base64url');
  }

  /** `PUBLIC_BASE_URL/files/<fileId>/<fileName>?expires=<unix time>&signature=<HMAC>` */
  url(baseUrl: string, fileId: string, fileName: string, expires: number): string {
    const sig = this.signature(fileId, fileName, expires);
    return `${baseUrl}/files/${fileId}/${encodeURIComponent(fileName)}?expires=${expires}&signature=${sig}`;
  }

  /** 'valid', 'expired' (genuine but past its time) or 'invalid' (altered or forged). */
  check(fileId: string, fileName: string, expires: string | undefined, signature: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): 'valid' | 'expired' | 'invalid' {
    // Only the canonical decimal the signer writes (no leading zero, sign, space or exponent).
    if (!expires || !signature || !CANONICAL_EXPIRES.test(expires)) return 'invalid';
    const expected = this.signature(fileId, fileName, expires);
    if (!constantTimeEqual(expected, signature)) return 'invalid';
    return Number(expires) < nowSeconds ? 'expired' : 'valid';
  }
}
