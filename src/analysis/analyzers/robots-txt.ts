// robots.txt read the RFC 9309 way, with Google's documented behaviour where the RFC leaves room:
// groups of user-agent lines and their rules, the most specific group for a crawler, the longest
// matching rule, allow winning a tie, `*` any run of characters and `$` the end of the path only as
// a pattern's last character (elsewhere a literal `$`, as Google's open-source matcher reads it).

export const ROBOTS_MAX_BYTES = 512 * 1024;
/** Steps the rule matcher may take over all rules, so a robots.txt of adversarial `*` patterns stays bounded. */
export const MATCH_BUDGET = 5_000_000;
// Fields Google and others read without RFC 9309 naming them: not errors, just not rules.
// content-signal: Cloudflare's managed robots.txt declares AI use with it (Lighthouse reads it too).
const TOLERATED = new Set(['crawl-delay', 'host', 'clean-param', 'request-rate', 'visit-time', 'content-signal']);

export interface RobotsRule {
  allow: boolean;
  pattern: string;
  line: number;
}
export interface RobotsGroup {
  userAgents: string[];
  rules: RobotsRule[];
  line: number;
}
export interface RobotsProblem {
  line: number;
  text: string;
  reason: string;
}
export interface ParsedRobots {
  groups: RobotsGroup[];
  sitemaps: { url: string; line: number }[];
  problems: RobotsProblem[];
}

export function parseRobots(text: string): ParsedRobots {
  const parsed: ParsedRobots = { groups: [], sitemaps: [], problems: [] };
  let group: RobotsGroup | null = null;
  const lines = text.slice(0, ROBOTS_MAX_BYTES).replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const content = raw.replace(/#.*$/, '').trim();
    if (content === '') return;
    const problem = (reason: string) => parsed.problems.push({ line, text: raw.trim().slice(0, 200), reason });
    const colon = content.indexOf(':');
    if (colon < 0) return problem('no colon: not a "field: value" line');
    const key = content.slice(0, colon).trim().toLowerCase();
    const value = content.slice(colon + 1).trim();
    if (key === 'user-agent') {
      // Consecutive user-agent lines share one group; a user-agent after rules starts the next.
      if (group === null || group.rules.length > 0) {
        group = { userAgents: [], rules: [], line };
        parsed.groups.push(group);
      }
      // an empty product token names no crawler: the group's rules reach nobody (Lighthouse's robots-txt fails it too)
      if (value === '') problem('a user-agent line with no crawler name');
      group.userAgents.push(value);
    } else if (key === 'allow' || key === 'disallow') {
      if (group === null) return problem(`${key} before any user-agent line: no crawler reads it`);
      if (value === '') return; // an empty rule matches nothing (RFC 9309 2.2.2)
      if (!value.startsWith('/') && !value.startsWith('*')) return problem(`the path "${value.slice(0, 100)}" does not start with / or *, so it matches nothing`);
      // Google reads an inner $ as a literal character, others as the end of the URL: crawlers
      // disagree on the line, so it is reported (as Lighthouse's robots-txt does) and matched as Google does.
      const dollar = value.indexOf('$');
      if (dollar >= 0 && dollar < value.length - 1) problem(`"$" inside the pattern "${value.slice(0, 100)}": Google reads it as a literal $, other crawlers as the end of the URL; write it only at the end (or as %24)`);
      group.rules.push({ allow: key === 'allow', pattern: normalizePath(value), line });
    } else if (key === 'sitemap') {
      parsed.sitemaps.push({ url: value, line });
    } else if (key === 'noindex') {
      problem('noindex in robots.txt is ignored by Google since 2019');
    } else if (!TOLERATED.has(key)) {
      problem(`unknown field "${key.slice(0, 60)}"`);
    }
  });
  return parsed;
}

/** Percent-encodes what a URL path would (non-ASCII, spaces) and upper-cases escapes, so patterns and paths compare alike. */
function normalizePath(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (code > 0x20 && code < 0x7f) out += ch;
    else {
      try {
        out += encodeURIComponent(ch);
      } catch {
        out += '%EF%BF%BD';
      }
    }
  }
  return out.replace(/%[0-9a-f]{2}/gi, (m) => m.toUpperCase());
}

/** The rules a crawler obeys: every group naming its product token, else every `*` group (RFC 9309 2.2.1). */
export function rulesFor(robots: ParsedRobots, crawler: string): RobotsRule[] {
  const token = crawler.toLowerCase();
  const named = (g: RobotsGroup) => g.userAgents.some((ua) => (/^[a-z_-]+/i.exec(ua)?.[0] ?? '').toLowerCase() === token);
  const specific = token === '*' ? [] : robots.groups.filter(named);
  const groups = specific.length > 0 ? specific : robots.groups.filter((g) => g.userAgents.some((ua) => ua === '*'));
  return groups.flatMap((g) => g.rules);
}

export interface RobotsVerdict {
  allowed: boolean;
  /** the deciding rule; null when none matched */
  rule: RobotsRule | null;
}

interface Budget {
  steps: number;
}

/** Longest match wins, allow wins a tie; /robots.txt itself is always allowed. Throws 'budget' past MATCH_BUDGET steps. */
export function verdictFor(rules: readonly RobotsRule[], pathAndQuery: string, budget: Budget = { steps: 0 }): RobotsVerdict {
  const path = normalizePath(pathAndQuery);
  if (path === '/robots.txt') return { allowed: true, rule: null };
  let best: RobotsRule | null = null;
  for (const rule of rules) {
    if (best && rule.pattern.length < best.pattern.length) continue;
    if (!patternMatches(rule.pattern, path, budget)) continue;
    if (!best || rule.pattern.length > best.pattern.length || (rule.allow && !best.allow)) best = rule;
  }
  return { allowed: best?.allow ?? true, rule: best };
}

/** `*` any run of characters, a final `$` the end (an inner `$` is a literal), otherwise a prefix match; the two-pointer glob match. */
function patternMatches(pattern: string, path: string, budget: Budget): boolean {
  const anchored = pattern.endsWith('$');
  const p = anchored ? pattern.slice(0, -1) : `${pattern}*`;
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < path.length) {
    if (++budget.steps > MATCH_BUDGET) throw new Error('budget');
    if (i < p.length && p[i] === '*') {
      star = i++;
      mark = j;
    } else if (i < p.length && p[i] === path[j]) {
      i++;
      j++;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}
