/** The shapes of the agreement corpus: pages on test host names, and what each host serves beside them. */

export interface PageSpec {
  /** a short name printed in the bench's tables */
  id: string;
  host: string;
  path: string;
  /** https pages are served on :443 with the bench's test CA (mixed content needs one) */
  scheme?: 'http' | 'https';
  status?: number;
  headers?: Record<string, string>;
  /** time before the first byte of the HTML (a slow server) */
  delayMs?: number;
  html: string;
  /** which figures the page counts in: SEO, performance, or both */
  kind: 'seo' | 'perf' | 'both';
  /** what the page is modelled on and what it shows */
  about: string;
}

export type AssetSpec =
  | { type: string; body: string; headers?: Record<string, string> }
  /** made once when the site starts (a 1.6 MB JPEG is not written out in source) */
  | { type: string; generate: () => Promise<Buffer>; headers?: Record<string, string> };

export interface HostSpec {
  /** robots.txt as served; null answers 404 */
  robots: string | null;
  /** robots.txt's status when it is not 200 (500, ...) */
  robotsStatus?: number;
  assets?: Record<string, AssetSpec>;
}

export const pageUrl = (p: Pick<PageSpec, 'host' | 'path' | 'scheme'>): string => `${p.scheme ?? 'http'}://${p.host}${p.path}`;
