// A community pattern is read by every account, so what it carries must say how to build a
// feature, never whose it was: the text of its title, requirements and acceptance is stripped of
// URLs, e-mail addresses, host names, IP addresses and anything that looks like a key or token,
// and of the project's own name (its scope and the host it ran on), each replaced by a
// placeholder that keeps the sentence readable. This is redaction by pattern, so it errs towards
// removing: a long random-looking word is taken for a key.

export interface Redacted {
  text: string;
  /** how many pieces were replaced */
  redactions: number;
}

/**
 * File names look like host names (`sitemap.xml`, `robots.txt`) and are what requirements talk
 * about, so a dotted word ending in one of these is kept.
 */
const FILE_EXTENSIONS = new Set(
  ('html htm xhtml js mjs cjs ts tsx jsx json jsonld css scss md mdx txt xml svg png jpg jpeg gif webp avif ico ' +
    'pdf csv yml yaml toml lock map woff woff2 ttf otf zip gz tar sh py rb go rs java php sql env ini conf cfg log ' +
    'webmanifest wasm vue svelte astro').split(' '),
);

/** "fe80::1", "2001:db8:0:0:0:0:0:1", "::1"; not "std::string" (no hex on both sides) or a time "10:30:00". */
function looksLikeIpv6(match: string): boolean {
  const bare = match.replace(/^\[|\]$/g, '');
  if (bare === '::1') return true;
  const groups = bare.split(':');
  const filled = groups.filter((g) => g.length > 0).length;
  return bare.includes('::') ? filled >= 2 : groups.length >= 6 && filled === groups.length;
}

/** The sentence's own punctuation after a URL ("see https://x.test/a, then") is not part of it. */
function trailingPunctuation(url: string): string {
  return /[.,;:!?]+$/.exec(url)?.[0] ?? '';
}

interface Rule {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const KNOWN_KEY_PREFIXES =
  /\b(?:uts_live_[A-Za-z0-9_-]+|sk-[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,})/g;

const RULES: Rule[] = [
  // scheme://anything up to a space or a closing bracket or quote
  { pattern: /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s<>"'`)\]]+/gi, replace: (m) => `[url]${trailingPunctuation(m)}` },
  { pattern: /\bwww\.[^\s<>"'`)\]]+/gi, replace: (m) => `[url]${trailingPunctuation(m)}` },
  { pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, replace: () => '[email]' },
  { pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, replace: () => 'Bearer [key]' },
  { pattern: KNOWN_KEY_PREFIXES, replace: () => '[key]' },
  // key=value, token: value, "password": "value"
  {
    pattern: /\b((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pwd|client[_-]?secret|x-api-key)["']?\s*[:=]\s*["']?)([^\s"',;]+)/gi,
    // a value of plain lower-case words ("password: must be hashed") is prose, not a secret
    replace: (m, name: string, value: string) => (value.length >= 6 && /[0-9A-Z_\-+/=.]/.test(value) ? `${name}[key]` : m),
  },
  { pattern: /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, replace: () => '[ip]' },
  // IPv6: hex groups and colons with a "::" or at least five groups (a time like 10:30:00 has three)
  { pattern: /\[?(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\]?/gi, replace: (m) => (looksLikeIpv6(m) ? '[ip]' : m) },
  { pattern: /\blocalhost(?::\d{1,5})?\b/gi, replace: () => '[host]' },
  {
    pattern: /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z][a-z0-9-]{1,23})\b(?::\d{1,5})?/gi,
    replace: (m, last: string) => (FILE_EXTENSIONS.has(last.toLowerCase()) ? m : '[host]'),
  },
  // a long word mixing letters and digits is taken for a key or token
  {
    pattern: /[A-Za-z0-9_-]{20,}/g,
    replace: (m) => (/[A-Za-z]/.test(m) && (m.match(/[0-9]/g) ?? []).length >= 2 ? '[key]' : m),
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The project's own names: the host of its scope (and that host's first label, e.g. "acme" of
 * acme.io, when it is a name rather than "www"), or a scope the agent named itself.
 */
export function projectNames(projectScope: string, urls: readonly string[] = []): string[] {
  const names = new Set<string>();
  for (const candidate of [projectScope, ...urls]) {
    let host: string | undefined;
    try {
      const url = new URL(candidate);
      if (url.hostname) host = url.hostname.replace(/^\[|\]$/g, '');
    } catch {
      // a name the agent gave, not a URL
    }
    if (host) {
      names.add(host);
      const first = host.split('.')[0];
      if (first && first !== 'www' && first.length >= 3 && !/^\d+$/.test(first)) names.add(first);
    } else if (candidate !== 'local' && candidate.trim().length >= 3) {
      names.add(candidate.trim());
    }
  }
  // longest first, so "shop.acme.io" goes before "shop"
  return [...names].sort((a, b) => b.length - a.length);
}

export function redactText(input: string, names: readonly string[] = []): Redacted {
  let redactions = 0;
  let text = input;
  for (const rule of RULES) {
    text = text.replace(rule.pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      const groups = args.slice(1).filter((a): a is string => typeof a === 'string');
      const out = rule.replace(match, ...groups);
      if (out !== match) redactions++;
      return out;
    });
  }
  for (const name of names) {
    const pattern = new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(name)}(?![A-Za-z0-9])`, 'gi');
    text = text.replace(pattern, () => {
      redactions++;
      return '[project]';
    });
  }
  return { text: text.replace(/\s+/g, ' ').trim(), redactions };
}

/** Redacts every string of a list; answers the texts and the total replaced. */
export function redactList(items: readonly string[], names: readonly string[] = []): { items: string[]; redactions: number } {
  let redactions = 0;
  const out = items.map((item) => {
    const r = redactText(item, names);
    redactions += r.redactions;
    return r.text;
  });
  return { items: out, redactions };
}
