import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const API_KEY_PREFIX = 'uts_live_';
const KEY_PATTERN = /^uts_live_[A-Za-z0-9_-]{32}$/;

/** A new API key secret: the fixed prefix and 192 random bits. */
export function newApiKeySecret(): string {
  return API_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function looksLikeApiKey(secret: string): boolean {
  return KEY_PATTERN.test(secret);
}

/** SHA-256 is enough for a secret with 192 random bits: no dictionary to guess from. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, SCRYPT, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Passwords are people's secrets, so they get a slow, salted hash: scrypt (N=2^14, r=8, p=1). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(saltText, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}
