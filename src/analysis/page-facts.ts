// What the egress-safe fetcher records about one fetched URL, and all an analyzer may know of the
// network. Analyzers are pure functions of (HTML, these facts, URL), so they also run on HTML a
// caller passes in (facts then null) and their tests need no network.

/** One hop of a redirect chain, in the order followed. */
export interface RedirectHop {
  url: string;
  status: number;
  /** the Location header as sent (absolute or relative) */
  location: string;
  /** each Set-Cookie the hop sent, when it sent any: a browser keeps them, so the cookie rules read them */
  setCookies?: string[];
}

/** Every cookie the fetch was given, redirect hops first, as a browser's jar would hold them. */
export function allSetCookies(facts: Pick<PageFacts, 'redirects' | 'setCookies'>): string[] {
  return [...facts.redirects.flatMap((hop) => hop.setCookies ?? []), ...facts.setCookies];
}

/** Milliseconds of each phase of the final request; null when the phase did not happen (reused socket, plain http). */
export interface FetchTimings {
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  /** request sent to the first byte of the response */
  ttfbMs: number | null;
  /** the whole fetch, redirects included */
  totalMs: number;
}

export interface CertificateFacts {
  subject: string;
  issuer: string;
  /** ISO 8601 */
  validFrom: string;
  validTo: string;
  /** subjectAltName DNS names */
  altNames: string[];
}

export interface TlsFacts {
  /** e.g. 'TLSv1.3' */
  protocol: string | null;
  /** e.g. 'TLS_AES_256_GCM_SHA384' */
  cipher: string | null;
  /** the chain from the leaf up, as the server sent it */
  chain: CertificateFacts[];
  /** days until the leaf certificate expires (negative when expired) */
  daysLeft: number | null;
  /** whether the leaf certificate names the host */
  hostnameMatches: boolean;
  /** whether Node's trust store (plus NODE_EXTRA_CA_CERTS) accepted the chain */
  authorized: boolean;
  /** why not, when not (e.g. 'CERT_HAS_EXPIRED') */
  authorizationError: string | null;
}

export interface PageFacts {
  requestedUrl: string;
  /** the URL after redirects */
  finalUrl: string;
  redirects: RedirectHop[];
  status: number;
  /** response headers, names lower-cased; repeated headers joined with ', ' except set-cookie */
  headers: Record<string, string>;
  /** each Set-Cookie header as sent */
  setCookies: string[];
  /** the address actually connected to for the final request (after every check) */
  remoteAddress: string | null;
  timings: FetchTimings;
  /** null for plain http */
  tls: TlsFacts | null;
  /** the body as sent on the wire (before decompression), in bytes */
  transferBytes: number;
  /** the decoded body, bounded by the size cap */
  body: Buffer;
  /** content-encoding that was undone (gzip, br, deflate), or null */
  contentEncoding: string | null;
  /** media type without parameters, lower-cased, e.g. 'text/html' */
  mediaType: string | null;
  /** the charset the text was decoded with: declared in the header or <meta>, else sniffed */
  charset: string;
  /** the body decoded as text with that charset */
  text: string;
}
