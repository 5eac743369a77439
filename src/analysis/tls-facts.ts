// What a TLS handshake tells an analyzer: protocol, cipher, the chain as the server sent it,
// the leaf's expiry and whether it names the host. The fetcher connects with
// rejectUnauthorized false so that a bad certificate is reported, never silently trusted: the
// verdict is recorded here as `authorized` (chain trusted AND hostname matching).
import { checkServerIdentity, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import type { CertificateFacts, TlsFacts } from './page-facts.ts';

const DAY_MS = 86_400_000;

function distinguishedName(name: Record<string, string | string[]> | undefined): string {
  if (name === undefined) return '';
  return Object.entries(name)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
}

function isoDate(text: string): string {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function certificateFacts(cert: DetailedPeerCertificate): CertificateFacts {
  const altNames = (cert.subjectaltname ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
  return {
    subject: distinguishedName(cert.subject as unknown as Record<string, string | string[]>),
    issuer: distinguishedName(cert.issuer as unknown as Record<string, string | string[]>),
    validFrom: isoDate(cert.valid_from),
    validTo: isoDate(cert.valid_to),
    altNames,
  };
}

function errorCode(error: unknown): string | null {
  if (error === null || error === undefined) return null;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** Reads the facts of a connected TLS socket; `host` is the name the URL asked for. */
export function readTlsFacts(socket: TLSSocket, host: string, now: number = Date.now()): TlsFacts {
  const leaf = socket.getPeerCertificate(true);
  const chain: CertificateFacts[] = [];
  const seen = new Set<string>();
  // The chain is linked through issuerCertificate; a self-signed root points at itself.
  for (let cert: DetailedPeerCertificate | undefined = leaf; cert !== undefined && cert.raw !== undefined; cert = cert.issuerCertificate) {
    if (seen.has(cert.fingerprint256)) break;
    seen.add(cert.fingerprint256);
    chain.push(certificateFacts(cert));
  }
  const hasLeaf = leaf.raw !== undefined;
  const hostnameMatches = hasLeaf && checkServerIdentity(host, leaf) === undefined;
  const chainTrusted = socket.authorized;
  const validTo = hasLeaf ? new Date(leaf.valid_to).getTime() : Number.NaN;
  return {
    protocol: socket.getProtocol(),
    cipher: socket.getCipher()?.standardName ?? socket.getCipher()?.name ?? null,
    chain,
    daysLeft: Number.isNaN(validTo) ? null : Math.floor((validTo - now) / DAY_MS),
    hostnameMatches,
    authorized: chainTrusted && hostnameMatches,
    authorizationError: chainTrusted ? (hostnameMatches ? null : 'ERR_TLS_CERT_ALTNAME_INVALID') : (errorCode(socket.authorizationError) ?? 'UNTRUSTED'),
  };
}
