import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { textField } from './text-shared.ts';

export const urlCodec = defineTool({
  family: 'text-utilities',
  slug: 'url-codec',
  title: 'URL encode / decode',
  description:
    'Percent-encodes text for URLs or decodes it. scope "component" (default) encodes everything except A–Z a–z 0–9 - _ . ! ~ * \' ( ) ' +
    '(encodeURIComponent, for a query value or path segment); scope "uri" also keeps URL syntax characters such as : / ? # & = (encodeURI, ' +
    'for a whole URL). formEncoding uses + for spaces (application/x-www-form-urlencoded) when encoding, and turns + into a space when ' +
    'decoding. Malformed percent-escapes are a 400 naming `text`.',
  aliases: ['urlencode', 'urldecode', 'percent encoding', 'encodeURIComponent', 'decode url', 'escape url'],
  credits: 1,
  compute: poolAbove(),
  input: z.object({
    text: textField('The text to encode or decode'),
    mode: z.enum(['encode', 'decode']).default('encode').describe('Encode or decode'),
    scope: z.enum(['component', 'uri']).default('component').describe('Encode a URL component or a whole URL'),
    formEncoding: z.boolean().default(false).describe('Spaces as + (HTML form encoding)'),
  }),
  output: z.object({ result: z.string() }),
  examples: [
    { title: 'Encode a query value', input: { text: 'café & crème?' }, output: { result: 'caf%C3%A9%20%26%20cr%C3%A8me%3F' } },
    { title: 'Decode a form value', input: { text: 'a+b%3Dc%2Bd', mode: 'decode', formEncoding: true }, output: { result: 'a b=c+d' } },
  ],
  run({ text, mode, scope, formEncoding }) {
    try {
      if (mode === 'encode') {
        const encoded = scope === 'component' ? encodeURIComponent(text) : encodeURI(text);
        return { result: formEncoding ? encoded.replace(/%20/g, '+') : encoded };
      }
      const source = formEncoding ? text.replace(/\+/g, ' ') : text;
      return { result: scope === 'component' ? decodeURIComponent(source) : decodeURI(source) };
    } catch (error) {
      if (error instanceof URIError) {
        throw invalidInput(mode === 'encode' ? 'Text cannot be URL-encoded' : 'Malformed percent-encoding', [
          {
            field: 'text',
            message:
              mode === 'encode'
                ? 'contains a lone surrogate (half of a UTF-16 pair), which has no UTF-8 form'
                : 'has a % not followed by two hex digits, or escapes that are not valid UTF-8',
          },
        ]);
      }
      throw error;
    }
  },
});
