// Decodes a JWT (JWS compact form) to read what it says, and never verifies it: the tool takes no
// key or secret on purpose, so no one pastes a production signing secret into a web service.
// Everything it answers is a function of the token, except expired/notYetValid, which compare
// with the clock at the call.
import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';

export const MAX_TOKEN_LENGTH = 16 * 1024;

export const NOT_VERIFIED =
  'The signature was NOT verified: this tool never takes a key or secret. Verify the token in your own code with the ' +
  "issuer's key, and pin the algorithms you accept, before trusting any claim.";

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const PART_NAMES = ['header (part 1)', 'payload (part 2)', 'signature (part 3)'] as const;
// Latest date JavaScript can represent (±8.64e15 ms).
const MAX_EPOCH_SECONDS = 8.64e12;

type AlgorithmFamily = 'none' | 'hmac' | 'rsa' | 'rsa-pss' | 'ecdsa' | 'eddsa' | 'unknown';

function familyOf(alg: string): AlgorithmFamily {
  if (alg.toLowerCase() === 'none') return 'none';
  if (/^HS(256|384|512)$/.test(alg)) return 'hmac';
  if (/^RS(256|384|512)$/.test(alg)) return 'rsa';
  if (/^PS(256|384|512)$/.test(alg)) return 'rsa-pss';
  if (/^ES(256|384|512|256K)$/.test(alg)) return 'ecdsa';
  if (alg === 'EdDSA' || alg === 'Ed25519' || alg === 'Ed448') return 'eddsa';
  return 'unknown';
}

// Signature sizes fixed by the algorithm (RSA's follows the key, so it has none).
const SIGNATURE_BYTES: Record<string, number> = {
  HS256: 32, HS384: 48, HS512: 64,
  ES256: 64, ES256K: 64, ES384: 96, ES512: 132,
  EdDSA: 64, Ed25519: 64, Ed448: 114,
};

const noteSchema = z.object({
  level: z.enum(['danger', 'warning', 'info']),
  code: z.string().describe('Stable id of the note'),
  message: z.string(),
});
type Note = z.infer<typeof noteSchema>;

const timeClaimSchema = z
  .object({ seconds: z.number().describe('The claim as sent: seconds since 1970-01-01T00:00:00Z'), iso: z.string().describe('The same as an ISO 8601 date') })
  .nullable();

const outputSchema = z.object({
  verified: z.literal(false).describe('Always false: the signature is decoded, never checked'),
  verification: z.string().describe('Why the claims cannot be trusted from this answer alone'),
  header: z.record(z.string(), z.unknown()).describe('The decoded JOSE header'),
  payload: z.record(z.string(), z.unknown()).describe('The decoded claims'),
  algorithm: z.object({
    alg: z.string().describe('The header\'s "alg"'),
    family: z.enum(['none', 'hmac', 'rsa', 'rsa-pss', 'ecdsa', 'eddsa', 'unknown']),
    symmetric: z.boolean().describe('true for HMAC: whoever can verify the token can also mint one'),
  }),
  times: z.object({
    exp: timeClaimSchema.describe('Expiry; null when absent or not a number'),
    nbf: timeClaimSchema.describe('Not before; null when absent or not a number'),
    iat: timeClaimSchema.describe('Issued at; null when absent or not a number'),
    expired: z.boolean().nullable().describe('exp is in the past at the time of the call; null without exp'),
    notYetValid: z.boolean().nullable().describe('nbf is in the future at the time of the call; null without nbf'),
  }),
  signature: z.object({
    bytes: z.number().int().describe('Length of the decoded signature'),
    expectedBytes: z.number().int().nullable().describe('The length the algorithm produces; null when it depends on the key (RSA) or the algorithm is unknown'),
  }),
  notes: z.array(noteSchema).describe('What deserves attention, worst first'),
});
export type JwtDecodeResult = z.infer<typeof outputSchema>;

function partError(index: number, message: string) {
  const part = PART_NAMES[index] ?? `part ${index + 1}`;
  return invalidInput(`The token's ${part} ${message}`, [{ field: 'token', message: `the ${part} ${message}` }]);
}

function decodePart(part: string, index: number): Buffer {
  if (!BASE64URL.test(part)) {
    const bad = part.match(/[^A-Za-z0-9_-]/)?.[0] ?? '';
    const hint = bad === '=' ? ' (JWTs use base64url without = padding)' : '';
    throw partError(index, `is not base64url: it holds ${JSON.stringify(bad)}${hint}`);
  }
  if (part.length % 4 === 1) throw partError(index, 'is not base64url: its length leaves a single dangling character');
  return Buffer.from(part, 'base64url');
}

function decodeJsonObject(part: string, index: number): Record<string, unknown> {
  if (part === '') throw partError(index, 'is empty');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(decodePart(part, index));
  } catch (err) {
    if (err instanceof TypeError) throw partError(index, 'does not decode to UTF-8 text');
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw partError(index, 'is base64url but not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw partError(index, 'is JSON but not a JSON object');
  return value as Record<string, unknown>;
}

function timeClaim(payload: Record<string, unknown>, name: string, notes: Note[]): { seconds: number; iso: string } | null {
  const value = payload[name];
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_EPOCH_SECONDS) {
    notes.push({ level: 'warning', code: `${name}-not-numeric`, message: `"${name}" is not a NumericDate (seconds since 1970); most libraries will reject or ignore it.` });
    return null;
  }
  return { seconds: value, iso: new Date(value * 1000).toISOString() };
}

export function decodeJwt(rawToken: string, nowMs: number): JwtDecodeResult {
  // Tokens are often copied with their Authorization scheme and surrounding whitespace.
  const token = rawToken.trim().replace(/^Bearer\s+/i, '');
  const parts = token.split('.');
  if (parts.length === 5) {
    throw invalidInput('The token is an encrypted JWT (JWE)', [
      { field: 'token', message: 'has 5 parts: it is an encrypted JWT (JWE), whose payload cannot be read without the key' },
    ]);
  }
  if (parts.length !== 3) {
    throw invalidInput('The token is not a JWT', [
      { field: 'token', message: `has ${parts.length} part${parts.length === 1 ? '' : 's'} separated by '.'; a JWT has 3: header.payload.signature` },
    ]);
  }
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const header = decodeJsonObject(headerPart, 0);
  const payload = decodeJsonObject(payloadPart, 1);
  const signature = decodePart(signaturePart, 2);
  const alg = header['alg'];
  if (typeof alg !== 'string' || alg === '') throw partError(0, 'has no "alg" string naming the signing algorithm');

  const family = familyOf(alg);
  const notes: Note[] = [];
  if (family === 'none') {
    notes.push({ level: 'danger', code: 'alg-none', message: 'alg is "none": the token is unsigned, so anyone can forge it. Verifiers must reject it.' });
    if (signature.length > 0) notes.push({ level: 'warning', code: 'none-with-signature', message: 'alg is "none" but the token carries a signature.' });
  } else if (signature.length === 0) {
    notes.push({ level: 'danger', code: 'signature-missing', message: `alg is ${alg} but the signature part is empty.` });
  }
  if (family === 'hmac') {
    notes.push({
      level: 'warning',
      code: 'alg-symmetric',
      message: `${alg} is a shared-secret algorithm: every service that verifies the token can also mint one, and a short or guessable secret can be brute-forced offline from this token. Use a random secret of at least ${Number(alg.slice(2)) / 8} bytes, or an asymmetric algorithm (ES256, EdDSA, RS256) when third parties verify.`,
    });
  }
  if (family === 'unknown') notes.push({ level: 'warning', code: 'alg-unknown', message: `alg "${alg}" is not a JWS algorithm this tool knows (RFC 7518 / RFC 8037).` });
  for (const key of ['jku', 'x5u', 'jwk'] as const) {
    if (header[key] !== undefined) {
      notes.push({ level: 'warning', code: `header-${key}`, message: `The header names its own key ("${key}"): a verifier must never fetch or trust a key the token points to, or an attacker signs with theirs.` });
    }
  }
  if (header['crit'] !== undefined) notes.push({ level: 'info', code: 'header-crit', message: 'The header has "crit": verifiers must understand every extension it lists or reject the token.' });

  const exp = timeClaim(payload, 'exp', notes);
  const nbf = timeClaim(payload, 'nbf', notes);
  const iat = timeClaim(payload, 'iat', notes);
  const expired = exp === null ? null : exp.seconds * 1000 <= nowMs;
  const notYetValid = nbf === null ? null : nbf.seconds * 1000 > nowMs;
  if (payload['exp'] === undefined) notes.push({ level: 'info', code: 'exp-missing', message: 'There is no "exp": the token never expires unless the verifier limits its age.' });
  if (expired) notes.push({ level: 'info', code: 'expired', message: `The token expired at ${exp?.iso}.` });
  if (notYetValid) notes.push({ level: 'info', code: 'not-yet-valid', message: `The token is not valid before ${nbf?.iso}.` });
  if (exp !== null && iat !== null && exp.seconds <= iat.seconds) notes.push({ level: 'warning', code: 'exp-before-iat', message: '"exp" is not after "iat": the token was expired when issued.' });

  const order = { danger: 0, warning: 1, info: 2 } as const;
  notes.sort((a, b) => order[a.level] - order[b.level]);
  return {
    verified: false,
    verification: NOT_VERIFIED,
    header,
    payload,
    algorithm: { alg, family, symmetric: family === 'hmac' },
    times: { exp, nbf, iat, expired, notYetValid },
    signature: { bytes: signature.length, expectedBytes: SIGNATURE_BYTES[alg] ?? (family === 'none' ? 0 : null) },
    notes,
  };
}

export const jwtDecoder = defineTool({
  family: 'security-apis',
  slug: 'jwt-decoder',
  title: 'JWT decoder',
  description:
    'Decodes a JSON Web Token (header.payload.signature, base64url JSON) without verifying it: it takes no key or secret and says ' +
    'so in every answer. Reports the algorithm (alg "none" as danger, HMAC HS256/384/512 as a shared-secret warning, jku/x5u/jwk ' +
    'headers), exp/nbf/iat as ISO dates with expired and notYetValid judged at the time of the call, and the signature length ' +
    'against the one the algorithm produces. A token that is not three parts, not base64url or not JSON is a 400 naming the part.',
  aliases: ['jwt decode', 'jwt parser', 'json web token decoder', 'jwt inspector', 'decode bearer token'],
  credits: 1,
  input: z.object({
    token: z
      .string()
      .min(1)
      .max(MAX_TOKEN_LENGTH)
      .describe(`The JWT in compact form (a leading "Bearer " is ignored), up to ${MAX_TOKEN_LENGTH} characters; never verified`),
  }),
  output: outputSchema,
  // Exact outputs: exp in 2000 is expired and exp in 2100 is not, whenever the examples run.
  examples: [
    {
      title: 'An expired HS256 token',
      input: {
        token:
          'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIiwiaWF0Ijo5NDY2ODQ4MDAsImV4cCI6OTQ2Njg4NDAwfQ.HesBxapySqe6khLRm5_M6XqFIX3TlZIoBuO0D0B-giw',
      },
      output: {
        verified: false,
        verification: NOT_VERIFIED,
        header: { alg: 'HS256', typ: 'JWT' },
        payload: { sub: '1234567890', name: 'Jane Doe', iat: 946684800, exp: 946688400 },
        algorithm: { alg: 'HS256', family: 'hmac', symmetric: true },
        times: {
          exp: { seconds: 946688400, iso: '2000-01-01T01:00:00.000Z' },
          nbf: null,
          iat: { seconds: 946684800, iso: '2000-01-01T00:00:00.000Z' },
          expired: true,
          notYetValid: null,
        },
        signature: { bytes: 32, expectedBytes: 32 },
        notes: [
          {
            level: 'warning',
            code: 'alg-symmetric',
            message:
              'HS256 is a shared-secret algorithm: every service that verifies the token can also mint one, and a short or guessable secret can be brute-forced offline from this token. Use a random secret of at least 32 bytes, or an asymmetric algorithm (ES256, EdDSA, RS256) when third parties verify.',
          },
          { level: 'info', code: 'expired', message: 'The token expired at 2000-01-01T01:00:00.000Z.' },
        ],
      },
    },
    {
      title: 'An ES256 token valid until 2100',
      input: {
        token:
          'Bearer eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImtleS0yMDI0In0.eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20iLCJzdWIiOiJ1c2VyLTQyIiwiYXVkIjoiYXBpIiwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsImV4cCI6NDEwMjQ0NDgwMH0.mWvSOd-PswIl7E8_TDT4a4X8-nvgJ2E-YRbEI5p1fLtU8kJcYOK7jAWGexUWmPo-omfTg9P6NUHFfTJSfqcRAA',
      },
      output: {
        verified: false,
        verification: NOT_VERIFIED,
        header: { alg: 'ES256', typ: 'JWT', kid: 'key-2024' },
        payload: { iss: 'https://auth.example.com', sub: 'user-42', aud: 'api', iat: 1700000000, nbf: 1700000000, exp: 4102444800 },
        algorithm: { alg: 'ES256', family: 'ecdsa', symmetric: false },
        times: {
          exp: { seconds: 4102444800, iso: '2100-01-01T00:00:00.000Z' },
          nbf: { seconds: 1700000000, iso: '2023-11-14T22:13:20.000Z' },
          iat: { seconds: 1700000000, iso: '2023-11-14T22:13:20.000Z' },
          expired: false,
          notYetValid: false,
        },
        signature: { bytes: 64, expectedBytes: 64 },
        notes: [],
      },
    },
    {
      title: 'An unsigned token (alg none)',
      input: { token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsImFkbWluIjp0cnVlfQ.' },
      output: {
        verified: false,
        verification: NOT_VERIFIED,
        header: { alg: 'none' },
        payload: { sub: 'admin', admin: true },
        algorithm: { alg: 'none', family: 'none', symmetric: false },
        times: { exp: null, nbf: null, iat: null, expired: null, notYetValid: null },
        signature: { bytes: 0, expectedBytes: 0 },
        notes: [
          { level: 'danger', code: 'alg-none', message: 'alg is "none": the token is unsigned, so anyone can forge it. Verifiers must reject it.' },
          { level: 'info', code: 'exp-missing', message: 'There is no "exp": the token never expires unless the verifier limits its age.' },
        ],
      },
    },
  ],
  run: ({ token }) => decodeJwt(token, Date.now()),
});
