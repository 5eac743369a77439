// The egress-safe fetcher: the only way the service fetches a URL. Every hop of a redirect chain
// is checked by the address rules (egress-policy.ts) three times: the URL's own host before
// anything is opened, every address DNS returns when the socket connects (a `lookup` hook, so a
// name that rebinds between the check and the connect is still caught), and the address the
// socket actually reached (Node skips the lookup hook for literal IP hosts). Redirects are
// followed by hand; the time limits, the size cap on the wire bytes and the same cap on the
// decompressed bytes keep one fetch within bounds. The result is PageFacts (page-facts.ts).
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { rootCertificates, type TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { isServiceError } from '../core/errors.ts';
import { decodeBody } from './charset.ts';
import { fetchFailed, phaseOfError } from './fetch-errors.ts';
import { addressRefusal, assertAddressAllowed, checkUrl, parseTargetUrl, refused, type EgressPolicy } from './egress-policy.ts';
import type { FetchTimings, PageFacts, RedirectHop, TlsFacts } from './page-facts.ts';
import { readTlsFacts } from './tls-facts.ts';

export interface FetchLimits {
  /** cap on the body, on the wire and again after decompression */
  maxBytes: number;
  /** TCP connect plus TLS handshake, per hop */
  connectTimeoutMs: number;
  /** the whole fetch, redirects and body included */
  totalTimeoutMs: number;
  /** redirects followed; one more is refused */
  maxRedirects: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 5 * 1024 * 1024, connectTimeoutMs: 5000, totalTimeoutMs: 15_000, maxRedirects: 10 };

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Answers every address of a name; injected by tests (a rebinding resolver), else the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface FetcherOptions {
  policy: EgressPolicy;
  limits?: Partial<FetchLimits>;
  resolver?: Resolver;
  /**
   * Extra trusted CA certificates (PEM), added to Node's roots for this fetcher only. Tests use it;
   * operators set NODE_EXTRA_CA_CERTS at process start instead, which the default trust store reads.
   */
  extraCa?: string[];
  userAgent?: string;
  /** GET (default), HEAD or OPTIONS, on every hop; POST (with `body`) is sent once and its redirect is not followed */
  method?: 'GET' | 'HEAD' | 'OPTIONS' | 'POST';
  /** the request body of a POST, at most MAX_REQUEST_BODY_BYTES (a webhook's JSON) unless maxRequestBodyBytes says more */
  body?: RequestBody;
  /**
   * A larger cap on the POST body, for the one host an operator configured to receive uploads: the
   * AI model provider (src/ai/), sent a video or its frames. Never for a host a caller names.
   */
  maxRequestBodyBytes?: number;
  /** extra request headers (an Origin for a CORS check); see FORBIDDEN_HEADERS */
  headers?: Record<string, string>;
  /** aborts the fetch (the caller left) */
  signal?: AbortSignal;
}

export interface RequestBody {
  data: Buffer | string;
  contentType: string;
}

/** A POST body is a small document (a webhook event), never an upload relayed to a caller's host. */
export const MAX_REQUEST_BODY_BYTES = 256 * 1024;

/** The body bytes to send, checked: only with POST, within the cap, with a sane content type. */
function bodyBytes(options: FetcherOptions): Buffer | null {
  if (options.body === undefined) {
    if (options.method === 'POST') throw new Error('a POST needs a body');
    return null;
  }
  if (options.method !== 'POST') throw new Error(`the fetcher sends a body only with POST, not ${options.method ?? 'GET'}`);
  const data = typeof options.body.data === 'string' ? Buffer.from(options.body.data) : options.body.data;
  const cap = options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  if (data.byteLength > cap) throw new Error(`a request body of ${data.byteLength} bytes is over the ${cap}-byte cap`);
  if (!/^[\x20-\x7e]{1,200}$/.test(options.body.contentType)) throw new Error('the request body needs a content type');
  return data;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers a tool may not set: they would change how the fetch itself is framed, routed or decoded. */
const FORBIDDEN_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding', 'te', 'upgrade', 'keep-alive', 'proxy-authorization', 'expect']);

function requestHeaders(options: FetcherOptions, body: Buffer | null): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT, accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || !/^[a-z0-9-]{1,64}$/.test(lower) || /[\r\n\0]/.test(value)) throw new Error(`the fetcher does not send a ${name} header`);
    headers[lower] = value;
  }
  if (body !== null && options.body !== undefined) {
    headers['content-type'] = options.body.contentType;
    headers['content-length'] = String(body.byteLength);
  }
  return headers;
}
const DEFAULT_USER_AGENT = 'tool-service-analyzer/1.0 (+egress-safe fetcher)';

interface HopResult {
  status: number;
  headers: Record<string, string>;
  setCookies: string[];
  location: string | null;
  remoteAddress: string | null;
  timings: Omit<FetchTimings, 'totalMs'>;
  tls: TlsFacts | null;
  transferBytes: number;
  body: Buffer;
  contentEncoding: string | null;
}

function collectHeaders(response: IncomingMessage): { headers: Record<string, string>; setCookies: string[] } {
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    if (name === 'set-cookie') setCookies.push(value);
    // Set-Cookie values may hold commas (Expires=Mon, 01 ...), so they are joined by newlines.
    const separator = name === 'set-cookie' ? '\n' : ', ';
    headers[name] = headers[name] === undefined ? value : `${headers[name]}${separator}${value}`;
  }
  return { headers, setCookies };
}

function decompressorFor(encoding: string | undefined): { name: string; stream: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress } | null {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === 'gzip' || name === 'x-gzip') return { name: 'gzip', stream: zlib.createGunzip() };
  if (name === 'deflate') return { name, stream: zlib.createInflate() };
  if (name === 'br') return { name, stream: zlib.createBrotliDecompress() };
  return null;
}

/** Addresses of a host as the connect-time check sees them: a pin, or every address DNS gives, each checked. */
async function connectAddresses(host: string, url: URL, options: FetcherOptions, resolver: Resolver): Promise<ResolvedAddress[]> {
  const pinned = options.policy.pins.get(host);
  const addresses = pinned !== undefined ? [{ address: pinned, family: isIP(pinned) }] : await resolver(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) assertAddressAllowed(address, options.policy, host, url.href);
  return addresses;
}

/** One request, one hop: connects under the checks, records timings and TLS, reads the body within the caps. */
function requestOnce(url: URL, host: string, options: FetcherOptions, limits: FetchLimits, deadline: number, resolver: Resolver, body: Buffer | null): Promise<HopResult> {
  const secure = url.protocol === 'https:';
  const literal = isIP(host) !== 0;
  return new Promise<HopResult>((resolve, reject) => {
    const t0 = performance.now();
    let lookupAt: number | null = null;
    let connectAt: number | null = null;
    let secureAt: number | null = null;
    let remoteAddress: string | null = null;
    let tls: TlsFacts | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (error: unknown, result?: HopResult): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) reject(error);
      else if (result !== undefined) resolve(result);
    };
    const fail = (error: unknown): void => {
      finish(error);
      request.destroy();
    };

    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      connectAddresses(host, url, options, resolver).then(
        (addresses) => {
          lookupAt = performance.now();
          if (lookupOptions.all) callback(null, addresses);
          else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
      );
    };

    const request = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: options.method ?? 'GET',
      headers: requestHeaders(options, body),
      agent: false,
      lookup,
      ...(secure
        ? {
            rejectUnauthorized: false,
            ...(literal ? {} : { servername: host }),
            ...(options.extraCa !== undefined ? { ca: [...rootCertificates, ...options.extraCa] } : {}),
          }
        : {}),
    });

    const onAbort = (): void => fail(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    timers.push(setTimeout(() => fail(fetchFailed('timeout', `no complete answer within ${limits.totalTimeoutMs} ms`, url.href)), Math.max(0, deadline - performance.now())));
    timers.push(
      setTimeout(() => {
        if (secure ? secureAt === null : connectAt === null) {
          const phase = connectAt === null ? 'connect' : 'tls';
          fail(fetchFailed(phase, `${phase === 'connect' ? 'no connection' : 'no TLS handshake'} within ${limits.connectTimeoutMs} ms`, url.href));
        }
      }, limits.connectTimeoutMs),
    );

    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        connectAt = performance.now();
        remoteAddress = socket.remoteAddress ?? null;
        // The address actually reached: a literal IP host never went through the lookup hook.
        const refusal = remoteAddress === null ? { message: 'the connected address is unknown', rule: 'address' } : addressRefusal(remoteAddress, options.policy, host);
        if (refusal !== null) fail(refused(refusal.message, refusal.rule, url.href));
      });
      if (secure) {
        socket.once('secureConnect', () => {
          secureAt = performance.now();
          tls = readTlsFacts(socket as TLSSocket, host);
        });
      }
    });

    request.on('error', (error: unknown) => {
      if (isServiceError(error)) return fail(error);
      const phase = phaseOfError(error, secure, connectAt !== null, secureAt !== null);
      const message = error instanceof Error ? error.message : String(error);
      fail(fetchFailed(phase, `${phase === 'dns' ? `the name ${host} did not resolve` : message}`, url.href, error));
    });

    request.on('response', (response) => {
      const respondedAt = performance.now();
      const { headers, setCookies } = collectHeaders(response);
      const timings: Omit<FetchTimings, 'totalMs'> = {
        dnsMs: lookupAt === null || options.policy.pins.has(host) ? null : lookupAt - t0,
        connectMs: connectAt === null ? null : connectAt - (lookupAt ?? t0),
        tlsMs: secureAt === null || connectAt === null ? null : secureAt - connectAt,
        ttfbMs: respondedAt - (secureAt ?? connectAt ?? t0),
      };
      const status = response.statusCode ?? 0;
      const location = REDIRECT_STATUSES.has(status) ? (response.headers.location ?? null) : null;
      const base = { status, headers, setCookies, location, remoteAddress, timings, tls };
      if (location !== null) {
        response.destroy();
        return finish(undefined, { ...base, transferBytes: 0, body: Buffer.alloc(0), contentEncoding: null });
      }
      const declared = Number(response.headers['content-length']);
      // A HEAD answer declares the size of a body it does not send.
      if (options.method !== 'HEAD' && Number.isFinite(declared) && declared > limits.maxBytes) {
        return fail(fetchFailed('size', `the response declares ${declared} bytes, over the ${limits.maxBytes}-byte cap`, url.href));
      }
      const decompressor = decompressorFor(response.headers['content-encoding']);
      const chunks: Buffer[] = [];
      let wire = 0;
      let decoded = 0;
      const overCap = (what: string): void =>
        fail(fetchFailed('size', `the ${what} is over the ${limits.maxBytes}-byte cap`, url.href));
      const take = (chunk: Buffer): void => {
        decoded += chunk.length;
        if (decoded > limits.maxBytes) return overCap(decompressor === null ? 'response' : `${decompressor.name}-decoded response`);
        chunks.push(chunk);
      };
      const done = (): void =>
        finish(undefined, { ...base, transferBytes: wire, body: Buffer.concat(chunks), contentEncoding: decompressor?.name ?? null });
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        wire += chunk.length;
        if (wire > limits.maxBytes) return overCap('response');
        if (decompressor === null) take(chunk);
        else decompressor.stream.write(chunk);
      });
      response.on('error', (error) => fail(fetchFailed('http', `the response broke off: ${error.message}`, url.href, error)));
      if (decompressor === null) {
        response.on('end', done);
      } else {
        decompressor.stream.on('data', (chunk: Buffer) => {
          if (!settled) take(chunk);
        });
        decompressor.stream.on('error', (error) => fail(fetchFailed('http', `the ${decompressor.name} body is corrupt: ${error.message}`, url.href, error)));
        decompressor.stream.on('end', done);
        response.on('end', () => decompressor.stream.end());
        // A fetch that ends early (cap, timeout) must not leave the decompressor holding memory.
        request.on('close', () => {
          if (settled) decompressor.stream.destroy();
        });
      }
    });
    request.end(body ?? undefined);
  });
}

/** Fetches a URL under the egress rules and limits; throws url_not_allowed (400), invalid_url (400) or fetch_failed (422). */
export async function fetchPage(input: string | URL, options: FetcherOptions): Promise<PageFacts> {
  const limits: FetchLimits = { ...DEFAULT_FETCH_LIMITS, ...options.limits };
  const resolver = options.resolver ?? systemResolver;
  const started = performance.now();
  const deadline = started + limits.totalTimeoutMs;
  const requestedUrl = input instanceof URL ? input : parseTargetUrl(input);
  const body = bodyBytes(options);
  const redirects: RedirectHop[] = [];
  let url = requestedUrl;
  for (;;) {
    const host = checkUrl(url, options.policy);
    // Checked before anything is opened, so a refused URL never reaches a socket.
    if (isIP(host) !== 0) assertAddressAllowed(host, options.policy, undefined, url.href);
    else await preflight(host, url, options, resolver, deadline, limits);
    const hop = await requestOnce(url, host, options, limits, deadline, resolver, body);
    // A POST is not repeated at another address: its redirect is the answer.
    if (hop.location === null || options.method === 'POST') {
      const contentType = hop.headers['content-type'];
      const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() || null;
      const { charset, text } = decodeBody(hop.body, contentType, mediaType === null || mediaType.includes('html'));
      return {
        requestedUrl: requestedUrl.href,
        finalUrl: url.href,
        redirects,
        status: hop.status,
        headers: hop.headers,
        setCookies: hop.setCookies,
        remoteAddress: hop.remoteAddress,
        timings: { ...hop.timings, totalMs: performance.now() - started },
        tls: hop.tls,
        transferBytes: hop.transferBytes,
        body: hop.body,
        contentEncoding: hop.contentEncoding,
        mediaType,
        charset,
        text,
      };
    }
    redirects.push({ url: url.href, status: hop.status, location: hop.location, ...(hop.setCookies.length > 0 ? { setCookies: hop.setCookies } : {}) });
    if (redirects.length > limits.maxRedirects) {
      throw fetchFailed('redirects', `more than ${limits.maxRedirects} redirects (stopped at ${url.href})`, requestedUrl.href);
    }
    if (!URL.canParse(hop.location, url.href)) throw fetchFailed('redirects', `the redirect from ${url.href} points to an invalid URL "${hop.location.slice(0, 200)}"`, url.href);
    url = new URL(hop.location, url);
  }
}

/** The first check of a name's addresses, for a clear error before any socket exists; bounded by the fetch's deadline. */
async function preflight(host: string, url: URL, options: FetcherOptions, resolver: Resolver, deadline: number, limits: FetchLimits): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(fetchFailed('timeout', `no complete answer within ${limits.totalTimeoutMs} ms (resolving ${host})`, url.href)), Math.max(0, deadline - performance.now()));
  });
  try {
    await Promise.race([connectAddresses(host, url, options, resolver), expired]);
  } catch (error) {
    if (isServiceError(error)) throw error;
    throw fetchFailed('dns', `the name ${host} did not resolve`, url.href, error);
  } finally {
    clearTimeout(timer);
  }
}
