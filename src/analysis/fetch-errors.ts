// The fetcher's 422: the URL was allowed but could not be fetched. `extra.phase` says where it
// stopped, so a caller (or an agent) can tell a typo'd name from a slow or oversized site.
import { ServiceError } from '../core/errors.ts';

export type FetchPhase = 'dns' | 'connect' | 'tls' | 'timeout' | 'size' | 'redirects' | 'http';

export function fetchFailed(phase: FetchPhase, message: string, url: string, cause?: unknown): ServiceError {
  return new ServiceError(422, 'fetch_failed', `Fetch failed (${phase}): ${message}`, {
    detail: message,
    extra: { phase, url },
    cause,
  });
}

/** Maps a socket or DNS error code to the phase it belongs to. */
export function phaseOfError(error: unknown, secure: boolean, connected: boolean, handshakeDone = false): FetchPhase {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'ENODATA') return 'dns';
  if (!connected) return 'connect';
  // Anything that breaks a TLS connection before its handshake completed is a TLS failure (EPROTO for a server that does not speak TLS).
  if (secure && (!handshakeDone || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS'))) return 'tls';
  return 'http';
}
