import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../accounts/secrets.ts';

/**
 * Cross-site request forgery, refused twice over for every state-changing dashboard request:
 *
 * 1. Origin: a browser names the page that sent a request in `Origin` (every POST from a
 *    current browser carries it; `Referer` is the fallback for an older one). It must be the
 *    service's own origin: PUBLIC_BASE_URL's, or the request's own Host when that is a loopback
 *    name (a local service reached as 127.0.0.1:port while PUBLIC_BASE_URL says localhost). A
 *    page elsewhere cannot make a browser send a loopback Host for its own name (DNS rebinding
 *    would send the attacker's name as Host), so trusting a loopback Host adds nothing to forge.
 * 2. Token: a `_csrf` form field (or `x-csrf-token` header) equal to the session's token, which
 *    only our own pages know. Sign-in has no session yet, so it relies on the Origin check.
 */
export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type CsrfRefusal = 'origin_missing' | 'origin_mismatch' | 'token_missing' | 'token_mismatch';

/** What a refusal tells the person (the 403 page names the reason). */
export const REFUSAL_TEXT: Record<CsrfRefusal, string> = {
  origin_missing: 'The request did not say which page sent it (no Origin or Referer header).',
  origin_mismatch: 'The request came from a page on another site.',
  token_missing: 'The form carried no security token. Reload the page and try again.',
  token_mismatch: 'The form’s security token does not match your session. Reload the page and try again.',
};

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const LOOPBACK_HOST = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/** The origins this request may come from. */
export function allowedOrigins(request: FastifyRequest, publicBaseUrl: string): string[] {
  const origins = [new URL(publicBaseUrl).origin];
  const host = header(request, 'host');
  if (host && LOOPBACK_HOST.test(host)) origins.push(new URL(`${request.protocol}://${host}`).origin);
  return origins;
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/** Undefined when the request comes from our own origin, else why not. */
export function checkOrigin(request: FastifyRequest, publicBaseUrl: string): CsrfRefusal | undefined {
  const origin = header(request, 'origin');
  const referer = header(request, 'referer');
  // `Origin: null` (a sandboxed frame, a privacy mode) proves nothing: treated as a foreign origin.
  const claimed = origin !== undefined ? (origin === 'null' ? 'null' : originOf(origin)) : referer !== undefined ? originOf(referer) : undefined;
  if (origin === undefined && referer === undefined) return 'origin_missing';
  if (claimed === undefined || !allowedOrigins(request, publicBaseUrl).includes(claimed)) return 'origin_mismatch';
  return undefined;
}

/** Undefined when the request carries the session's token, else why not. Compared in constant time. */
export function checkToken(request: FastifyRequest, sessionToken: string): CsrfRefusal | undefined {
  const body = request.body;
  const field = body && typeof body === 'object' ? (body as Record<string, unknown>)['_csrf'] : undefined;
  return checkTokenValue(typeof field === 'string' && field !== '' ? field : header(request, 'x-csrf-token'), sessionToken);
}

/**
 * The same check on a token read by the handler itself: a multipart form's `_csrf` field, which
 * is streamed with the upload rather than parsed before the preHandler (playground-upload.ts).
 */
export function checkTokenValue(given: string | undefined, sessionToken: string): CsrfRefusal | undefined {
  if (given === undefined || given === '') return 'token_missing';
  return constantTimeEqual(given, sessionToken) ? undefined : 'token_mismatch';
}
