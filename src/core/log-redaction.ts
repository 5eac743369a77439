// What never reaches a log line: API keys, download-link signatures, session ids, passwords,
// tokens and the credentials headers carry. Two layers. The access log writes a request's URL
// through redactUrl(), which keeps only the query parameters known to be harmless (an
// allow-list: a parameter added tomorrow is hidden until someone decides it is safe). And every
// line, whoever logged it and whatever field it put a secret in (an error message quoting a URL,
// a header object, a sessionId field), passes redactLine() in the log writer before it is
// written, which removes anything shaped like a secret (a deny-list, the net under the first).

const REDACTED = '[redacted]';

/** Query parameters whose values are shown in the access log: they select a behaviour, never a person. */
export const SAFE_QUERY_PARAMS: ReadonlySet<string> = new Set(['format', 'delivery', 'expand', 'page', 'limit', 'cursor', 'status', 'family', 'kind', 'q', 'lang']);

/** The path and query of a request URL with every query value not in SAFE_QUERY_PARAMS replaced. */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const hash = url.indexOf('#', question);
  const query = url.slice(question + 1, hash === -1 ? undefined : hash);
  const kept = query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    // A bare value (`?<token>`) is shown only when it is an allow-listed word.
    if (equals === -1) return SAFE_QUERY_PARAMS.has(pair.toLowerCase()) ? pair : REDACTED;
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // a malformed escape is not an allowed name either
    }
    return SAFE_QUERY_PARAMS.has(decoded.toLowerCase()) && !looksSecret(pair) ? pair : `${name.slice(0, 64)}=${REDACTED}`;
  });
  return `${url.slice(0, question)}?${kept.join('&')}`;
}

/** Secrets by their shape: this service's keys, and the common token formats of others. */
const SECRET_SHAPES = /\b(?:uts_live_[A-Za-z0-9_-]+|sk-[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,})/g;

function looksSecret(text: string): boolean {
  SECRET_SHAPES.lastIndex = 0;
  const found = SECRET_SHAPES.test(text);
  SECRET_SHAPES.lastIndex = 0;
  return found;
}

/** Names that hold a secret, as a JSON field (`"password":`, a header object's `"x-api-key":`). */
const SECRET_FIELDS = 'session_?id|mcp-session-id|sig|signature|token|access_token|refresh_token|id_token|api_?key|x-api-key|password|passwd|secret|client_secret|authorization|proxy-authorization|cookie|set-cookie';
/** The same as query parameters (`?sessionId=`), and `key` and `code`, which as JSON fields name harmless things. */
const SECRET_PARAMS = `${SECRET_FIELDS}|key|code`;

/** `name=value` in a URL or text, up to the next separator (JSON's quote and escapes included). */
const SECRET_PARAM = new RegExp(`([?&;\\s"]|\\\\u0026)(${SECRET_PARAMS})=([^&#\\s"\\\\]+)`, 'gi');
/** `"name": "value"` in a JSON line (a header object, a field), the value's escapes included. */
const SECRET_FIELD = new RegExp(`"(${SECRET_FIELDS})"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"`, 'gi');
/** `Bearer <token>` / `Basic <credentials>` wherever a header's value was written out. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;

/**
 * One cheap test gates the patterns: it looks for any fragment a secret the patterns catch must
 * hold (a key's prefix, a token's, `=`, an auth scheme, the end of a secret field's name). Most
 * lines (an access line without a query string) hold none, and one scan costs far less than four
 * patterns' replacements. A line that holds one is then rewritten by the patterns, which decide.
 */
const MAY_HOLD_SECRET = /=|uts_live_|sk-|_live_|_test_|gh[pousr]_|github_pat_|xox|AKIA|eyJ|Bearer|Basic|(?:ession_?id|essionId|essionid|ession-id|ig|ignature|oken|ey|assword|asswd|ecret|uthorization|ookie)"/;

/** Every secret-shaped part of a log line, replaced; a line without one is returned as it is. */
export function redactLine(line: string): string {
  if (!MAY_HOLD_SECRET.test(line)) return line;
  return line
    .replace(SECRET_SHAPES, (match) => (match.startsWith('uts_live_') ? `uts_live_${REDACTED}` : REDACTED))
    .replace(SECRET_FIELD, (_match, name: string) => `"${name}":"${REDACTED}"`)
    .replace(SECRET_PARAM, (_match, lead: string, name: string) => `${lead}${name}=${REDACTED}`)
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`);
}
