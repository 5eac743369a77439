import type { FastifyRequest } from 'fastify';
import { isHttps } from './security-headers.ts';

/**
 * The session cookie. Over https it is `__Host-session`: the prefix makes the browser refuse it
 * unless it is Secure, for Path=/ and with no Domain, so a sibling subdomain cannot plant or
 * shadow it. Over plain http (a local service) the prefix cannot be used, so it is `session`.
 * Always HttpOnly (no script reads it) and SameSite=Lax (not sent on cross-site posts).
 */
export interface SessionCookie {
  name: string;
  secure: boolean;
}

export function sessionCookieFor(publicBaseUrl: string): SessionCookie {
  const secure = isHttps(publicBaseUrl);
  return { name: secure ? '__Host-session' : 'session', secure };
}

/** The session id the request carries, if any (the first cookie of that name). */
export function readSessionId(request: FastifyRequest, cookie: SessionCookie): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== cookie.name) continue;
    const value = part.slice(eq + 1).trim();
    // Our ids are base64url; anything else is not ours and is treated as no cookie.
    return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
  }
  return undefined;
}

function attributes(cookie: SessionCookie): string {
  return `Path=/; HttpOnly; SameSite=Lax${cookie.secure ? '; Secure' : ''}`;
}

/** Set-Cookie for a new session; it lasts no longer than the session's absolute limit. */
export function setSessionCookie(cookie: SessionCookie, id: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${id}; ${attributes(cookie)}; Max-Age=${Math.floor(maxAgeSeconds)}`;
}

export function clearSessionCookie(cookie: SessionCookie): string {
  return `${cookie.name}=; ${attributes(cookie)}; Max-Age=0`;
}
