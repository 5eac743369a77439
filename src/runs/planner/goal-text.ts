// The text side of goal matching: how a goal written by a person becomes comparable words. Pure
// and bounded: a goal is at most MAX_GOAL_CHARS, only its first MAX_GOAL_WORDS words are read, and
// edit distances are capped, so an absurd goal costs the same small amount as a normal one.

/** Longer goals are refused outright (invalid goal), never matched: nobody states one job in 2,000 characters. */
export const MAX_GOAL_CHARS = 2000;
/** Words past this are ignored; a goal that needs more than this to name a job is not naming one. */
export const MAX_GOAL_WORDS = 60;
/** Words longer than this are never typo-corrected (random strings, hashes, base64). */
const MAX_CORRECTABLE = 24;

/**
 * Words that say nothing about which job is meant ("can you please check my ..."). Applied to the
 * goal and to every name and alias alike, so "how much can I borrow" still meets its alias.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'the', 'to', 'of', 'for', 'in', 'on', 'is', 'it', 'its', 'my', 'our', 'with', 'be', 'or', 'by', 'at', 'as',
  'i', 'me', 'we', 'us', 'you', 'your', 'this', 'that', 'these', 'those', 'there', 'here', 'from', 'into', 'onto', 'up', 'out',
  'please', 'pls', 'plz', 'can', 'could', 'would', 'should', 'will', 'shall', 'may', 'might', 'must', 'want', 'wanna', 'need',
  'needs', 'like', 'help', 'how', 'what', 'which', 'why', 'when', 'where', 'who', 'are', 'am', 'was', 'were', 'do', 'does', 'did',
  'done', 'doing', 'get', 'got', 'make', 'let', 'lets', 'just', 'some', 'any', 'all', 'about', 'so', 'if', 'then', 'than', 'also',
  'quick', 'quickly', 'hey', 'hi', 'hello', 'thanks', 'thank', 'ok', 'okay', 'now', 'today', 'one', 'run', 'give', 'tell', 'show',
  'find', 'see', 'know', 'work', 'working', 'new', 'whole', 'again', 'very', 'really', 'much', 's', 't', 'd', 'll', 're', 've', 'm',
  'im', 'dont', 'isnt', 'doesnt', 'via', 'using', 'use', 'against', 'vs',
]);
// "much" is a stop word, so the alias "how much can i borrow" is {borrow}; "against"/"vs" carry
// meaning only as a comparison, which the synonym table reads before stop words are dropped.

/** STOP_WORDS and their stems: terms are stems, so "does" (stem "doe") must still read as a stop word. */
export const STOP_TERMS: ReadonlySet<string> = new Set([...STOP_WORDS].flatMap((w) => [w, stem(w)]));

/** Lower-case ASCII-ish text: accents folded ("café" -> "cafe"), apostrophes dropped ("site's" -> "sites" -> stem "site"). */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’`]s\b/g, '')
    .replace(/['’`]/g, '');
}

/** The raw words of a text, in order (numbers kept: "97", "h1", "404"). */
export function rawWords(text: string): string[] {
  return foldText(text).match(/[a-z0-9]+/g) ?? [];
}

/**
 * A light stemmer, the same on both sides: plurals, -ing, -ed and a final e go, so "headers",
 * "header"; "converting", "convert"; "released", "release" meet. No -er rule: it would make
 * "header" into "head" and collide with "head to head".
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let s = word;
  if (s.endsWith('ies') && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('ing') && s.length >= 7) s = s.slice(0, -3);
  else if (s.endsWith('ed') && s.length >= 6) s = s.slice(0, -2);
  if (/([b-df-hj-np-tv-z])\1$/.test(s) && !/(ll|ss|zz)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('e') && s.length > 4) s = s.slice(0, -1);
  return s;
}

/** Optimal-string-alignment (Damerau-Levenshtein with adjacent swaps) distance, capped at max + 1. */
export function typoDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (prev2[j - 2] ?? 0) + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

/** How many edits a word of this length may carry and still count as a typo of a known word. */
export function allowedTypos(length: number): number {
  if (length < 4 || length > MAX_CORRECTABLE) return 0;
  return length >= 8 ? 2 : 1;
}

// File extensions that look like top-level domains in "report.docx" or "index.html": never a site.
const FILE_EXTENSIONS = new Set([
  'doc', 'docx', 'pdf', 'html', 'htm', 'md', 'markdown', 'txt', 'csv', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf',
  'json', 'js', 'ts', 'css', 'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'zip', 'tar', 'gz', 'epub', 'mp3', 'mp4', 'wav', 'xml',
  'yml', 'yaml', 'exe', 'sh', 'py', 'log', 'ini', 'cfg', 'toml', 'lock', 'mov', 'avi',
]);

const SCHEME_URL = /\bhttps?:\/\/[^\s<>"'`]+/gi;
// A bare host a person types: "example.com/shop", "localhost:3000", "127.0.0.1:8080", "app.local".
const BARE_HOST = /(^|[\s(,;])((?:localhost|(?:\d{1,3}\.){3}\d{1,3}|(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,23})(?::\d{1,5})?(?:\/[^\s<>"'`]*)?)/gi;

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?)\]}>'"]+$/, '');
}

export interface ExtractedUrls {
  /** absolute URLs in the order written; bare hosts get https:// (http:// for localhost and IP literals) */
  urls: string[];
  /** the goal with every URL replaced by a space, for word matching */
  rest: string;
}

/** Takes the URLs out of a goal: they name the page, never the job, so they must not sway the match. */
export function extractUrls(goal: string): ExtractedUrls {
  const found: { at: number; url: string }[] = [];
  let rest = goal.replace(SCHEME_URL, (match, offset: number) => {
    found.push({ at: offset, url: trimUrl(match) });
    return ' '.repeat(match.length);
  });
  rest = rest.replace(BARE_HOST, (match, lead: string, host: string, offset: number) => {
    const trimmed = trimUrl(host);
    const name = (trimmed.split(/[:/]/)[0] ?? '').toLowerCase();
    const tld = name.split('.').pop() ?? '';
    const isIp = /^(\d{1,3}\.){3}\d{1,3}$/.test(name);
    if (name !== 'localhost' && !isIp && FILE_EXTENSIONS.has(tld)) return match;
    found.push({ at: offset + lead.length, url: `${name === 'localhost' || isIp ? 'http' : 'https'}://${trimmed}` });
    return lead + ' '.repeat(host.length);
  });
  found.sort((a, b) => a.at - b.at);
  return { urls: [...new Set(found.map((f) => f.url))], rest };
}
