// HTML an agent passes in (local mode) has no address of its own, so it is read under a
// placeholder: relative links resolve against it and nothing is ever fetched there. The placeholder
// must never reach a fix: "add href=\"https://local.invalid/\"" applied literally breaks the page.
// The report says where the page's real address goes instead, in words.

/** The address HTML passed in is analysed under (.invalid never resolves, RFC 2606). */
export const LOCAL_PAGE_URL = 'https://local.invalid/';

/** What a fix says where it would name the page's own address. */
export const PAGE_URL_WORDS = "<your page's public URL>";

/** What a fix says where it would name the page's host. */
export const PAGE_HOST_WORDS = "your site's own host";

const LOCAL_HOST = new URL(LOCAL_PAGE_URL).hostname;
const HOST_PATTERN = LOCAL_HOST.replaceAll('.', '\\.');
// The page itself (no path beyond "/"), or a resource on the page's site (its path kept).
const LOCAL_URL = new RegExp(`https?://${HOST_PATTERN}(?::\\d+)?(?![\\w.-])(/[^\\s"'<>\`)\\]]*)?`, 'gi');
// the host as a word of its own, not part of a longer host name or a path
const LOCAL_HOST_WORD = new RegExp(`(?<![\\w./-])${HOST_PATTERN}(?![\\w/-]|\\.\\w)`, 'gi');

export function isLocalPage(url: string): boolean {
  return URL.canParse(url) && new URL(url).hostname === LOCAL_HOST;
}

/**
 * The text with every mention of the placeholder replaced: the page's address by PAGE_URL_WORDS,
 * a resource on it by its path as the site serves it ("/img/a.png"), the bare host by words.
 */
export function withoutPlaceholderText(text: string): string {
  if (!text.toLowerCase().includes(LOCAL_HOST)) return text;
  return text
    .replace(LOCAL_URL, (_whole, path: string | undefined) => (path === undefined || path === '/' ? PAGE_URL_WORDS : path))
    .replace(LOCAL_HOST_WORD, PAGE_HOST_WORDS);
}

/** The same report (findings, fixes, evidence, notes, details) with no mention of the placeholder. */
export function withoutLocalPlaceholder<T>(value: T): T {
  return rewrite(value) as T;
}

function rewrite(value: unknown): unknown {
  if (typeof value === 'string') return withoutPlaceholderText(value);
  if (Array.isArray(value)) return value.map(rewrite);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rewrite(inner)]));
  }
  return value;
}
