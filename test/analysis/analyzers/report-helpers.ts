// Small readers over a report, so analyzer tests assert exact rule ids, severities and ids.
import assert from 'node:assert/strict';
import { reportSchema, type Evidence, type Finding, type Report } from '../../../src/analysis/findings.ts';
import type { PageFacts } from '../../../src/analysis/page-facts.ts';

/** The rules that produced findings, sorted, one entry per finding (so one per rule). */
export function firedRules(report: Report): string[] {
  return report.findings.map((f) => f.rule).sort();
}

export function findingsOf(report: Report, rule: string): Finding[] {
  return report.findings.filter((f) => f.rule === rule);
}

export function onlyFinding(report: Report, rule: string): Finding {
  const found = findingsOf(report, rule);
  assert.equal(found.length, 1, `exactly one ${rule} finding, got ${found.length}`);
  return found[0] as Finding;
}

/** The listed instances of a rule's one finding (a report holds one finding per rule). */
export function instancesOf(report: Report, rule: string): Evidence[] {
  return onlyFinding(report, rule).instances ?? [];
}

export function findingIds(report: Report): string[] {
  return report.findings.map((f) => f.findingId).sort();
}

export function checkResult(report: Report, rule: string): string | undefined {
  return report.checks.find((c) => c.rule === rule)?.result;
}

/** Every report an analyzer returns matches the published schema. */
export function assertValid(report: Report): void {
  assert.deepEqual(reportSchema.parse(report), report);
}

/** The response facts of a fetched page, as the fetcher records them, for the given headers. */
export function factsFor(
  url: string,
  options: {
    headers?: Record<string, string>;
    setCookies?: string[];
    requestedUrl?: string;
    redirects?: PageFacts['redirects'];
    status?: number;
  } = {},
): PageFacts {
  const https = url.startsWith('https:');
  return {
    requestedUrl: options.requestedUrl ?? url,
    finalUrl: url,
    redirects: options.redirects ?? [],
    status: options.status ?? 200,
    headers: { 'content-type': 'text/html; charset=utf-8', ...options.headers },
    setCookies: options.setCookies ?? [],
    remoteAddress: '127.0.0.1',
    timings: { dnsMs: 1, connectMs: 1, tlsMs: https ? 2 : null, ttfbMs: 5, totalMs: 10 },
    tls: https
      ? {
          protocol: 'TLSv1.3',
          cipher: 'TLS_AES_256_GCM_SHA384',
          chain: [],
          daysLeft: 60,
          hostnameMatches: true,
          authorized: true,
          authorizationError: null,
        }
      : null,
    transferBytes: 1000,
    body: Buffer.alloc(0),
    contentEncoding: null,
    mediaType: 'text/html',
    charset: 'utf-8',
    text: '',
  };
}
