// Webhook signatures in the manner of Standard Webhooks (standardwebhooks.com): the secret is
// `whsec_` + base64 of random bytes; the signed content is `${id}.${timestamp}.${body}`; the
// signature is HMAC-SHA256 under the decoded secret bytes, sent as `webhook-signature: v1,<base64>`
// beside `webhook-id` (the event id, the same on every retry) and `webhook-timestamp` (Unix
// seconds of the attempt). A receiver checks the signature and that the timestamp is recent,
// which stops a captured delivery from being replayed later.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How far a timestamp may lie from the receiver's clock before verifyWebhookSignature refuses it. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret: 256 random bits. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one delivery attempt. */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, id, timestampSeconds, body),
  };
}

export interface VerifyInput {
  secret: string;
  /** the request's headers (names in any case; a repeated header's first value counts) */
  headers: Record<string, string | string[] | undefined>;
  /** the raw body exactly as received */
  body: string | Buffer;
  toleranceSeconds?: number;
  /** the receiver's clock, Unix seconds (default now) */
  nowSeconds?: number;
}

function headerValue(headers: VerifyInput['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * True when the delivery carries a valid v1 signature of its id, timestamp and body under the
 * secret, and its timestamp lies within the tolerance of the clock. The signature header may
 * hold several space-separated signatures (during a secret rotation); one match is enough.
 */
export function verifyWebhookSignature(input: VerifyInput): boolean {
  const id = headerValue(input.headers, 'webhook-id');
  const timestampText = headerValue(input.headers, 'webhook-timestamp');
  const signatures = headerValue(input.headers, 'webhook-signature');
  if (id === undefined || timestampText === undefined || signatures === undefined || !/^\d{1,15}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const body = typeof input.body === 'string' ? input.body : input.body.toString('utf8');
  let expected: Buffer;
  try {
    expected = Buffer.from(signWebhook(input.secret, id, timestamp, body).slice(3), 'base64');
  } catch {
    return false;
  }
  return signatures.split(' ').some((entry) => {
    if (!entry.startsWith('v1,')) return false;
    const given = Buffer.from(entry.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * Seals webhook secrets for storage: AES-256-GCM under a key derived (HKDF-SHA256) from the
 * service's own signing secret, so a copy of the database alone does not let anyone forge
 * deliveries. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(serviceSecret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', serviceSecret, Buffer.alloc(0), 'webhook-signing-secrets', 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
