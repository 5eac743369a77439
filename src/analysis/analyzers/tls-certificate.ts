// TLS and certificate: what the handshake of the final response shows (protocol, cipher, the chain
// as the server sent it, trust, hostname, validity dates) and whether that https response pins
// browsers to https with HSTS. Judged on the final response after redirects, because that is the
// connection a visitor ends on; a final response over plain http is its own finding and leaves the
// handshake rules not applicable. Pure: facts in, report out (`now` only for the validity dates).
import { makeFinding, type Evidence, type Finding, type Fix, type Report, type Severity } from '../findings.ts';
import { parseHtml, resolveUrl, type HtmlDocument } from '../html-document.ts';
import type { CertificateFacts, PageFacts, TlsFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, unknown, type Analyzer, type RuleDefinition } from '../scoring.ts';

const rule = (id: string, weight: number, severity: Severity, title: string): RuleDefinition => ({ id, category: 'tls', weight, severity, title });

export const TLS_RULES = {
  notHttps: rule('tls-not-https', 10, 'high', 'The page is not served over https'),
  protocol: rule('tls-protocol-outdated', 3, 'high', 'The connection uses a protocol older than TLS 1.2'),
  cipher: rule('tls-weak-cipher', 2, 'high', 'The connection uses a weak cipher suite'),
  untrusted: rule('tls-chain-untrusted', 4, 'high', 'The certificate chain is not trusted'),
  intermediate: rule('tls-missing-intermediate', 2, 'high', 'The server does not send its intermediate certificate'),
  hostname: rule('tls-hostname-mismatch', 4, 'high', 'The certificate does not name the host'),
  expired: rule('tls-certificate-expired', 4, 'high', 'The certificate has expired'),
  notYetValid: rule('tls-certificate-not-yet-valid', 2, 'high', 'The certificate is not valid yet'),
  expiring: rule('tls-certificate-expiring', 2, 'medium', 'The certificate expires soon'),
  hstsMissing: rule('tls-hsts-missing', 2, 'medium', 'The https response sends no Strict-Transport-Security'),
  hstsShort: rule('tls-hsts-short-max-age', 1, 'low', 'Strict-Transport-Security max-age is under six months'),
} as const;

export const rules: readonly RuleDefinition[] = Object.values(TLS_RULES);

/** Expiry within this many days is high severity, within EXPIRY_WARN_DAYS medium. */
export const EXPIRY_URGENT_DAYS = 14;
export const EXPIRY_WARN_DAYS = 30;
const SIX_MONTHS = 15_768_000;
const OUTDATED_PROTOCOLS = new Set(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1']);
// Broken or export-grade primitives, in OpenSSL and IANA spellings alike.
const WEAK_CIPHER = /RC4|3DES|DES[-_]CBC|(^|[-_])DES($|[-_])|(^|[-_])NULL($|[-_])|EXPORT|EXP[-_]|anon|ADH|AECDH|MD5/i;
// OpenSSL's verify errors that other rules name more precisely than "untrusted".
const DATE_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
const HOSTNAME_ERROR = 'ERR_TLS_CERT_ALTNAME_INVALID';

export interface TlsDetails {
  https: boolean;
  protocol: string | null;
  cipher: string | null;
  chain: CertificateFacts[];
  daysLeft: number | null;
  authorized: boolean | null;
  authorizationError: string | null;
  hsts: string | null;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(_doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  return analyzeTls(facts, url);
}

/** The report for the final response's connection; `now` dates the not-yet-valid check. */
export function analyzeTls(facts: PageFacts | null, url: string, now: number = Date.now()): Report {
  if (facts === null) {
    return buildReport({
      categories: ['tls'],
      checks: rules.map(unknown),
      findings: [],
      notes: ['TLS needs a fetch: HTML passed directly has no connection to judge'],
      details: { tls: null },
    });
  }
  const finalUrl = resolveUrl(facts.finalUrl || url, null);
  const https = finalUrl?.protocol === 'https:';
  const findings: Finding[] = [];
  const hsts = facts.headers['strict-transport-security'] ?? null;
  const details: TlsDetails = {
    https,
    protocol: facts.tls?.protocol ?? null,
    cipher: facts.tls?.cipher ?? null,
    chain: facts.tls?.chain ?? [],
    daysLeft: facts.tls?.daysLeft ?? null,
    authorized: facts.tls?.authorized ?? null,
    authorizationError: facts.tls?.authorizationError ?? null,
    hsts,
  };

  if (!https || facts.tls === null) {
    const host = finalUrl?.host ?? url;
    if (!https) {
      findings.push(
        finding(TLS_RULES.notHttps, 'high', 'document', `The final response (${facts.finalUrl}) came over plain http: anyone on the path can read and change the page.`, { url: facts.finalUrl }, {
          patchType: 'config',
          change: `Serve ${host} over https with a trusted certificate and redirect http://${host}/ to https://${host}/ with a 301.`,
          acceptance: 'The URL ends on an https response with a trusted certificate.',
          roleHint: 'config',
        }),
      );
    }
    const notes = https ? ['the https response carried no TLS facts, so the handshake could not be judged'] : [];
    return buildReport({
      categories: ['tls'],
      checks: rules.map((r) => (r === TLS_RULES.notHttps ? checkFrom(r, findings) : https ? unknown(r) : notApplicable(r))),
      findings,
      rules,
      notes,
      details: { tls: details },
    });
  }

  const tls = facts.tls;
  const host = finalUrl.hostname;
  const leaf = tls.chain[0];
  const certEvidence = (value?: string): Evidence => ({ url: facts.finalUrl, ...(value === undefined ? {} : { value }) });
  const serverFix = (change: string, acceptance: string): Fix => ({ patchType: 'config', change, acceptance, roleHint: 'config' });

  if (tls.protocol !== null && OUTDATED_PROTOCOLS.has(tls.protocol)) {
    findings.push(
      finding(TLS_RULES.protocol, 'high', 'tls:protocol', `The server negotiated ${tls.protocol}, which browsers no longer accept and which has known attacks.`, certEvidence(tls.protocol),
        serverFix('Enable TLS 1.2 and TLS 1.3 on the server and disable SSLv3, TLS 1.0 and TLS 1.1.', 'The handshake negotiates TLSv1.2 or TLSv1.3.'),
      ),
    );
  }
  if (tls.cipher !== null && WEAK_CIPHER.test(tls.cipher)) {
    findings.push(
      finding(TLS_RULES.cipher, 'high', 'tls:cipher', `The negotiated cipher ${tls.cipher} uses a broken or export-grade primitive (RC4, DES/3DES, NULL, anonymous or MD5).`, certEvidence(tls.cipher),
        serverFix('Offer only AEAD suites with forward secrecy (TLS 1.3 suites, ECDHE with AES-GCM or ChaCha20-Poly1305).', 'The handshake negotiates an AEAD cipher suite with forward secrecy.'),
      ),
    );
  }

  const error = tls.authorizationError;
  const missingIntermediate = error !== null && isMissingIntermediate(error, tls);
  if (missingIntermediate) {
    findings.push(
      finding(TLS_RULES.intermediate, 'high', 'tls:chain', `The server sent only its leaf certificate (issued by ${leaf?.issuer ?? 'an unknown issuer'}) and that issuer is not a trusted root: the intermediate certificate is missing from the chain (or the issuer is not a public CA). Browsers without the intermediate cached refuse the page.`, certEvidence(error),
        serverFix('Configure the server with the full chain file (leaf followed by the intermediates) from your CA.', 'The server sends the intermediate certificates and the chain verifies.'),
      ),
    );
  }
  if (error !== null && !missingIntermediate && !DATE_ERRORS.has(error) && error !== HOSTNAME_ERROR) {
    findings.push(
      finding(TLS_RULES.untrusted, 'high', 'tls:chain', `The chain does not lead to a trusted root (${error}); browsers show a certificate warning.`, certEvidence(error),
        serverFix('Install a certificate from a publicly trusted CA (for example Let\'s Encrypt) with its full chain.', 'The certificate chain verifies against the public roots.'),
      ),
    );
  }
  if (!tls.hostnameMatches) {
    const names = leaf?.altNames.join(', ') || leaf?.subject || 'no names';
    findings.push(
      finding(TLS_RULES.hostname, 'high', 'tls:hostname', `The certificate names ${names}, not ${host}; browsers refuse the connection.`, certEvidence(names),
        serverFix(`Issue a certificate whose subjectAltName includes ${host}.`, `The certificate's subjectAltName covers ${host}.`),
      ),
    );
  }
  const validFrom = leaf === undefined ? Number.NaN : Date.parse(leaf.validFrom);
  const expired = error === 'CERT_HAS_EXPIRED' || (tls.daysLeft !== null && tls.daysLeft < 0);
  if (expired) {
    findings.push(
      finding(TLS_RULES.expired, 'high', 'tls:validity', `The certificate expired on ${leaf?.validTo ?? 'an earlier date'}${tls.daysLeft === null ? '' : ` (${-tls.daysLeft} days ago)`}; browsers refuse the connection.`, certEvidence(leaf?.validTo),
        serverFix('Renew the certificate and automate renewal (ACME) well before expiry.', 'The certificate is within its validity period.'),
      ),
    );
  } else if (tls.daysLeft !== null && tls.daysLeft <= EXPIRY_WARN_DAYS) {
    const severity: Severity = tls.daysLeft <= EXPIRY_URGENT_DAYS ? 'high' : 'medium';
    findings.push(
      finding(TLS_RULES.expiring, severity, 'tls:validity', `The certificate expires on ${leaf?.validTo ?? 'a near date'}, in ${tls.daysLeft} days.`, certEvidence(leaf?.validTo),
        serverFix('Renew the certificate now and automate renewal (ACME renews 30 days ahead).', `The certificate has more than ${EXPIRY_WARN_DAYS} days left.`),
      ),
    );
  }
  if (error === 'CERT_NOT_YET_VALID' || (!Number.isNaN(validFrom) && validFrom > now)) {
    findings.push(
      finding(TLS_RULES.notYetValid, 'high', 'tls:validity', `The certificate is valid only from ${leaf?.validFrom ?? 'a later date'}; browsers refuse it until then (or the server clock is wrong).`, certEvidence(leaf?.validFrom),
        serverFix('Serve a certificate that is valid now, and check the clock of the machine that issued it.', 'The certificate is within its validity period.'),
      ),
    );
  }

  const hstsFix = serverFix(`Send Strict-Transport-Security: max-age=63072000; includeSubDomains on the https responses of ${host}.`, `The https response has Strict-Transport-Security with max-age of at least ${SIX_MONTHS}.`);
  const maxAge = hsts === null ? undefined : /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?\s*(?:;|$)/i.exec(hsts)?.[1];
  if (hsts === null || maxAge === undefined) {
    findings.push(
      finding(TLS_RULES.hstsMissing, 'medium', 'header:strict-transport-security', hsts === null
        ? 'The https response sends no Strict-Transport-Security, so a first visit or a typed http:// link can be downgraded to http.'
        : 'The Strict-Transport-Security header has no valid max-age, so browsers ignore it.', { header: 'strict-transport-security', ...(hsts === null ? {} : { value: hsts }) }, hstsFix),
    );
  } else if (Number(maxAge) < SIX_MONTHS) {
    findings.push(
      finding(TLS_RULES.hstsShort, 'low', 'header:strict-transport-security', `max-age is ${maxAge} seconds, under six months (${SIX_MONTHS}): browsers forget the https pin between visits.`, { header: 'strict-transport-security', value: hsts }, hstsFix),
    );
  }

  return buildReport({
    categories: ['tls'],
    checks: rules.map((r) => {
      if (r === TLS_RULES.protocol && tls.protocol === null) return unknown(r);
      if (r === TLS_RULES.cipher && tls.cipher === null) return unknown(r);
      if (r === TLS_RULES.expiring && expired) return notApplicable(r);
      if (r === TLS_RULES.hstsShort && (hsts === null || maxAge === undefined)) return notApplicable(r);
      return checkFrom(r, findings);
    }),
    findings,
    rules,
    details: { tls: details },
  });
}

/**
 * A leaf sent alone whose issuer cannot be found: OpenSSL's "unable to verify the first
 * certificate". Usually the missing intermediate; a self-signed leaf is a different problem.
 */
function isMissingIntermediate(error: string, tls: TlsFacts): boolean {
  const leaf = tls.chain[0];
  const sentAlone = tls.chain.length <= 1 && leaf !== undefined && leaf.subject !== leaf.issuer;
  return error === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || (error === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' && sentAlone);
}

function finding(r: RuleDefinition, severity: Severity, location: string, detail: string, evidence: Evidence, fix: Fix): Finding {
  const clean: Evidence = {};
  for (const [key, value] of Object.entries(evidence) as [keyof Evidence, string | number | undefined][]) {
    if (value !== undefined) (clean as Record<string, unknown>)[key] = value;
  }
  return makeFinding({ rule: r.id, category: 'tls', severity, location, title: r.title, detail, evidence: clean, fix });
}

export const tlsCertificateAnalyzer: Analyzer = {
  id: 'tls-certificate',
  categories: ['tls'],
  rules,
  analyze,
  analyzeDocument,
};
