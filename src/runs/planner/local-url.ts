// Which URLs name the caller's own machine or private network (rule 4 of the meta-tools:
// localhost URLs are never accepted). Judged on the URL as written, with no DNS: a dev server on
// localhost:3000, 127.0.0.1, [::1], 10.x, *.localhost, *.local or a single-label intranet name
// can never be fetched by the service, so the answer is need_input `local_preview_required`
// before anything is billed. A public name that resolves to a private address is the fetcher's
// to refuse (url_not_allowed), as for every URL tool.
import { addressRefusal, checkUrl, EMPTY_POLICY } from '../../analysis/egress-policy.ts';
import { ServiceError } from '../../core/errors.ts';

export type UrlVerdict = { kind: 'public'; url: string } | { kind: 'local'; url: string; reason: string } | { kind: 'invalid'; reason: string };

/** Reads a caller's URL: an absolute public http(s) URL, a local one (with why), or not a URL at all. */
export function judgeUrl(value: unknown): UrlVerdict {
  if (typeof value !== 'string' || value.trim() === '') return { kind: 'invalid', reason: 'a URL is an absolute http or https URL, such as https://example.com/page' };
  const text = value.trim();
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return { kind: 'invalid', reason: `"${text.slice(0, 200)}" is not an absolute http or https URL` };
  if (text.length > 2048) return { kind: 'invalid', reason: 'a URL is at most 2,048 characters' };
  const url = new URL(text);
  let host: string;
  try {
    host = checkUrl(url, EMPTY_POLICY);
  } catch (error) {
    if (error instanceof ServiceError && ['local-name', 'metadata'].includes(String(error.extra.rule))) return { kind: 'local', url: url.href, reason: error.detail };
    return { kind: 'invalid', reason: error instanceof ServiceError ? error.detail : String(error) };
  }
  // checkUrl passes every IP literal to the address rules; those are read here without a connection.
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    const refusal = addressRefusal(host, EMPTY_POLICY, host);
    if (refusal !== null) return { kind: 'local', url: url.href, reason: refusal.message };
  }
  return { kind: 'public', url: url.href };
}
