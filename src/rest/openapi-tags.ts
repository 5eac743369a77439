// The document's tags in the order a newcomer needs them: the account calls first (who you are,
// your keys, what you used, what tools exist), then the tool families, then webhooks and MCP.
// Each carries a description, so the docs page says what a group is before listing it.

const GETTING_STARTED: readonly { name: string; description: string }[] = [
  { name: 'accounts', description: 'Sign up, verify the e-mail, and read the account: start here.' },
  { name: 'api-keys', description: 'Create, list, rotate and revoke API keys. Every tool call carries one in `X-Api-Key`.' },
  { name: 'usage', description: "This month's credits, used and left, per tool and per key." },
  { name: 'catalog', description: 'The tools there are (search, details, supported conversions): free calls.' },
];

const FAMILIES: Readonly<Record<string, string>> = {
  'ai-models': 'A video read by an AI model (Gemini, or an OpenAI-compatible endpoint with image input): ask about it in words. Not on the free plan.',
  archive: 'Archives with 7-Zip: convert between zip, 7z, tar and its compressions; list an archive.',
  audio: 'Audio conversions with ffmpeg (mp3, wav, ogg, flac, aac, m4a, opus).',
  calculators: 'Finance and everyday calculators (EMI, SIP, compound interest, GST, BMI, age, ...): JSON in, JSON out.',
  convertors: 'Images with libvips: convert, resize, compress, rotate, strip metadata; Base64, image metadata, CSV to JSON.',
  documents: 'Documents: PDF tools and conversions on LibreOffice, Poppler and qpdf.',
  ebook: 'E-books with calibre: EPUB, MOBI, AZW3, FB2 and PDF.',
  office: 'Office documents with LibreOffice: Word, Excel, PowerPoint and OpenDocument to and from PDF.',
  'security-apis': "A site's security as a browser sees it: headers graded the Observatory's way, TLS, cookies, CORS, CSP; JWT and password checks.",
  'seo-apis': 'A page as a search engine reads it: meta tags, headings and links, images, structured data, canonical and hreflang, robots, speed.',
  'text-utilities': 'Text: counts, case, diff, slugs, encodings, search and replace.',
  'unit-conversions': 'Units: length, mass, temperature, data sizes and more.',
  'video-tools': 'Video with ffmpeg: convert, trim, extract audio, thumbnails.',
  web: 'Web formats: HTML, Markdown, XML, JSON and YAML, converted and checked.',
};

const LAST: readonly { name: string; description: string }[] = [
  { name: 'webhooks', description: 'Endpoints that receive signed events (run finished, job finished).' },
  { name: 'mcp', description: 'The MCP server: the same tools for AI agents, with the plan, run and verify meta-tools.' },
];

export function openApiTags(families: readonly string[]): { name: string; description: string }[] {
  return [
    ...GETTING_STARTED,
    ...families.map((name) => ({ name, description: FAMILIES[name] ?? `The ${name} tools.` })),
    ...LAST,
  ];
}

const TAG = /<\/?[A-Za-z!][^<>]*>/g;
// TAG is global (for replace), so test() would carry lastIndex from one call to the next.
const HAS_TAG = /<\/?[A-Za-z!][^<>]*>/;
const entities = (tag: string): string => tag.replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * Raw HTML in a description (`<img>`, `<script src>`) is read by the docs page as markup and eats
 * the text after it, and a literal `<script` is unsafe Markdown to every linter, even inside a code
 * span. So a tag is written with entities, which Markdown shows as the tag's text; a code span
 * holding a tag loses its backticks, since entities inside one would show as `&lt;`.
 */
export function escapeDescriptionHtml(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(TAG, entities);
      return HAS_TAG.test(part) ? part.slice(1, -1).replace(TAG, entities) : part;
    })
    .join('');
}
