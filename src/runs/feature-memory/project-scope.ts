// The project scope groups an account's features: what recall_context reads back before an agent
// rebuilds something. An agent names its own scope (a repository, a product); when it does not,
// the page's origin is the scope, since a site is what the playbooks check. Local input (HTML or
// text passed inline, no URL) shares one scope, `local`.

export const MAX_SCOPE_CHARS = 200;
export const LOCAL_SCOPE = 'local';

/**
 * The scope for a record: the agent's own (trimmed), else the URL's origin in lower case
 * (`https://shop.example.com:8443`; default ports dropped by URL), else `local`.
 */
export function projectScopeFor(explicit: string | undefined | null, url?: string | undefined | null): string {
  const given = explicit?.trim();
  if (given) return given.slice(0, MAX_SCOPE_CHARS);
  if (url) {
    try {
      const origin = new URL(url).origin;
      // An opaque origin ("null": data:, file:) names no site.
      if (origin !== 'null') return origin.toLowerCase();
    } catch {
      // not a URL: fall through to the local scope
    }
  }
  return LOCAL_SCOPE;
}
