import type { FastifyReply } from 'fastify';

/**
 * No inline script or style anywhere (so an injected <script> or style attribute does nothing),
 * only our own origin's files, no framing, and forms that post only to us.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The headers of every dashboard response and of the HTML front page.
 *
 * Referrer-Policy is strict-origin-when-cross-origin, not no-referrer: under no-referrer a browser
 * sends `Origin: null` on the dashboard's own form posts (the Fetch standard serialises the
 * origin as null for that policy), and the CSRF check (csrf.ts) needs the real origin. Other
 * sites still see only our origin, never a dashboard path.
 *
 * Strict-Transport-Security only when the public URL is https: over plain http a browser ignores
 * it, and a local http deployment must not be told to insist on https.
 */
export function securityHeaders(publicBaseUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  };
  if (isHttps(publicBaseUrl)) headers['Strict-Transport-Security'] = 'max-age=31536000';
  return headers;
}

export function isHttps(publicBaseUrl: string): boolean {
  return publicBaseUrl.toLowerCase().startsWith('https://');
}

/** Pages that show account data are never stored by a browser or a proxy (a shared computer's back button). */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store');
}
