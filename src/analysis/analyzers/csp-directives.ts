// What the CSP evaluator knows about directives and hosts: the directive names of CSP Level 3
// (and the deprecated ones browsers still parse), and a short list of hosts that serve JSONP
// endpoints or AngularJS, whose presence in a script allowlist lets an attacker run code anyway.

/** Every directive a browser recognises, current or deprecated. */
export const CSP_DIRECTIVES: ReadonlySet<string> = new Set([
  'default-src', 'script-src', 'script-src-elem', 'script-src-attr', 'style-src', 'style-src-elem', 'style-src-attr',
  'img-src', 'font-src', 'connect-src', 'media-src', 'object-src', 'frame-src', 'child-src', 'worker-src', 'manifest-src',
  'fenced-frame-src', 'base-uri', 'form-action', 'frame-ancestors', 'sandbox', 'report-uri', 'report-to',
  'upgrade-insecure-requests', 'require-trusted-types-for', 'trusted-types', 'webrtc',
  // deprecated, below
  'block-all-mixed-content', 'plugin-types', 'prefetch-src', 'navigate-to', 'referrer', 'reflected-xss', 'disown-opener', 'require-sri-for',
]);

export interface Deprecation {
  why: string;
  change: string;
  acceptance: string;
}

/** Deprecated directives: why, and what to do instead. report-uri only when report-to is absent. */
export const DEPRECATED_DIRECTIVES: ReadonlyMap<string, Deprecation> = new Map([
  ['report-uri', { why: 'CSP3 replaces it with report-to; keep it only beside report-to, for browsers without the Reporting API.', change: 'Add report-to with a Reporting-Endpoints header, keeping report-uri beside it.', acceptance: 'The policy has report-to.' }],
  ['plugin-types', { why: 'browsers dropped it with plugin support.', change: "Remove plugin-types; use object-src 'none'.", acceptance: 'The policy has no plugin-types.' }],
  ['block-all-mixed-content', { why: 'browsers now upgrade or block mixed content by themselves.', change: 'Remove block-all-mixed-content (use upgrade-insecure-requests if http references remain).', acceptance: 'The policy has no block-all-mixed-content.' }],
  ['prefetch-src', { why: 'it was removed from the specification and browsers ignore it.', change: 'Remove prefetch-src.', acceptance: 'The policy has no prefetch-src.' }],
  ['navigate-to', { why: 'it was removed from the specification and no browser enforces it.', change: 'Remove navigate-to.', acceptance: 'The policy has no navigate-to.' }],
  ['referrer', { why: 'it was removed; the Referrer-Policy header does this.', change: 'Remove referrer and send a Referrer-Policy header.', acceptance: 'The policy has no referrer directive.' }],
  ['reflected-xss', { why: 'it was removed and is ignored.', change: 'Remove reflected-xss.', acceptance: 'The policy has no reflected-xss.' }],
  ['disown-opener', { why: 'it was removed; Cross-Origin-Opener-Policy does this.', change: 'Remove disown-opener and send Cross-Origin-Opener-Policy: same-origin.', acceptance: 'The policy has no disown-opener.' }],
  ['require-sri-for', { why: 'it was removed and no browser enforces it.', change: 'Remove require-sri-for; put integrity attributes on the tags.', acceptance: 'The policy has no require-sri-for.' }],
]);

export interface GadgetHost {
  host: string;
  why: string;
}

/**
 * Hosts that make a script allowlist bypassable (after Google's CSP Evaluator's lists, kept short
 * on purpose): JSONP endpoints run a caller-chosen callback, AngularJS runs template expressions
 * from the page, and open CDNs serve any package, including those two.
 */
export const SCRIPT_GADGET_HOSTS: readonly GadgetHost[] = [
  { host: 'ajax.googleapis.com', why: 'serves AngularJS and other old libraries' },
  { host: 'www.google.com', why: 'has JSONP endpoints' },
  { host: 'accounts.google.com', why: 'has JSONP endpoints' },
  { host: 'www.googleapis.com', why: 'has JSONP endpoints' },
  { host: 'maps.googleapis.com', why: 'has JSONP endpoints' },
  { host: 'cdnjs.cloudflare.com', why: 'serves AngularJS' },
  { host: 'code.angularjs.org', why: 'serves AngularJS' },
  { host: 'cdn.jsdelivr.net', why: 'serves any npm package or GitHub file, AngularJS included' },
  { host: 'unpkg.com', why: 'serves any npm package, AngularJS included' },
  { host: 'api.twitter.com', why: 'has JSONP endpoints' },
  { host: 'graph.facebook.com', why: 'has JSONP endpoints' },
];

/** The listed host a source allows (exactly or through a *. wildcard), if any. */
export function gadgetHostFor(source: string): GadgetHost | undefined {
  const match = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/:]+)(?::[0-9*]+)?(?:\/.*)?$/i.exec(source);
  const host = match?.[1]?.toLowerCase();
  if (host === undefined || host.startsWith("'")) return undefined;
  if (host.startsWith('*.')) {
    const suffix = host.slice(1);
    return SCRIPT_GADGET_HOSTS.find((g) => g.host.endsWith(suffix));
  }
  return SCRIPT_GADGET_HOSTS.find((g) => g.host === host);
}

/** The known directive within two edits of a misspelt one, for "did you mean". */
export function closestDirective(name: string): string | undefined {
  if (name.length > 40) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of CSP_DIRECTIVES) {
    const d = editDistance(name, known);
    if (d < bestDistance) {
      bestDistance = d;
      best = known;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
