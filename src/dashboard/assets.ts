import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The dashboard's static files, read once at start and served under a name holding a hash of
 * their content, with `Cache-Control: public, max-age=31536000, immutable`: a browser fetches
 * the stylesheet once per release and never revalidates, and a changed file gets a new name, so
 * no one sees a stale one. (An ETag with no-cache would cost a round trip per page view.) An old
 * name after a release answers 404, which is harmless for a stylesheet the new pages no longer
 * link. Checked in as source: no build step.
 */
export interface Asset {
  /** the path pages link, e.g. /dashboard/assets/dashboard.3f2a9c1b0d4e.css */
  path: string;
  type: string;
  body: Buffer;
}

function asset(file: string, type: string): Asset {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return { path: `/dashboard/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}`, type, body };
}

export const STYLESHEET = asset('dashboard.css', 'text/css; charset=utf-8');

/** The product's mark (the docs page shows the same), so a browser does not ask for /favicon.ico. */
export const ICON = asset('icon.svg', 'image/svg+xml');

/**
 * The secret page's copy button, the dashboard's only script: an ES module (deferred, strict, no
 * globals), loaded by `script-src 'self'`, never inline. Without it the button stays hidden and
 * the secret sits in a read-only field to select by hand.
 */
export const COPY_SCRIPT = asset('copy-secret.js', 'text/javascript; charset=utf-8');

export const ASSETS: readonly Asset[] = [STYLESHEET, ICON, COPY_SCRIPT];

export const IMMUTABLE = 'public, max-age=31536000, immutable';
