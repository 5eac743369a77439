import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { textField } from './text-shared.ts';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
const BASE64URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$/;

export const base64Codec = defineTool({
  family: 'text-utilities',
  slug: 'base64-codec',
  title: 'Base64 encode / decode',
  description:
    'Encodes text as Base64 (of its UTF-8 bytes) or decodes Base64 back to text. urlSafe uses the URL alphabet (- and _ instead of + and /) ' +
    'and encodes without = padding. Decoding ignores whitespace and accepts missing padding; anything else outside the alphabet is a 400 ' +
    'naming `text`, as are decoded bytes that are not valid UTF-8 text.',
  aliases: ['base64 encoder', 'base64 decoder', 'btoa', 'atob', 'base64url', 'encode base64'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to encode, or the Base64 to decode'),
    mode: z.enum(['encode', 'decode']).default('encode').describe('Encode text or decode Base64'),
    urlSafe: z.boolean().default(false).describe('Use the base64url alphabet (RFC 4648 §5)'),
  }),
  output: z.object({
    result: z.string(),
    bytes: z.number().int().describe('Size of the UTF-8 text in bytes'),
  }),
  examples: [
    { title: 'Encode', input: { text: 'Hello, wörld!' }, output: { result: 'SGVsbG8sIHfDtnJsZCE=', bytes: 14 } },
    { title: 'Decode', input: { text: 'SGVsbG8sIHfDtnJsZCE=', mode: 'decode' }, output: { result: 'Hello, wörld!', bytes: 14 } },
  ],
  run({ text, mode, urlSafe }) {
    if (mode === 'encode') {
      const buf = Buffer.from(text, 'utf8');
      return { result: buf.toString(urlSafe ? 'base64url' : 'base64'), bytes: buf.length };
    }
    const compact = text.replace(/\s+/g, '');
    if (!(urlSafe ? BASE64URL : BASE64).test(compact)) {
      throw invalidInput('Not valid Base64', [
        { field: 'text', message: `is not ${urlSafe ? 'base64url' : 'Base64'}: only ${urlSafe ? 'A–Z a–z 0–9 - _' : 'A–Z a–z 0–9 + /'} and = padding are allowed, in groups of 4` },
      ]);
    }
    const buf = Buffer.from(compact, urlSafe ? 'base64url' : 'base64');
    let result: string;
    try {
      result = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw invalidInput('The decoded bytes are not UTF-8 text', [
        { field: 'text', message: `decodes to ${buf.length} bytes that are not valid UTF-8 text (binary data?)` },
      ]);
    }
    return { result, bytes: buf.length };
  },
});
