// The `fetch` the official provider clients are given (openai's `fetch` option, @google/genai's
// httpOptions.fetch), so nothing they send leaves the process except through the egress-safe
// fetcher: its address checks at every connect, its time and size limits, its abort. The policy
// of this path allows the configured provider host and nothing else: a request for any other
// host (an upload URL pointing elsewhere, a redirect) is refused before a socket is opened.
// Every answer the provider gave is remembered for the call, so a failure the client turns into
// its own error type can still be read as the provider sent it (its status and retry hint).
import { fetchPage } from '../analysis/fetcher.ts';
import { parseEgressAllow, type EgressPolicy } from '../analysis/egress-policy.ts';
import { ServiceError } from '../core/errors.ts';

/** What the provider answered last on this call: read when a client throws. */
export interface ProviderAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface ProviderFetchOptions {
  /** the configured base URL: its host is the only one reachable */
  baseUrl: string;
  /** EGRESS_RESOLVE pins still apply (an operator pinning the provider's name) */
  pins: EgressPolicy['pins'];
  signal: AbortSignal;
  /** a single request's limit; the call's own budget (the signal) usually ends first */
  timeoutMs: number;
  /** the largest body sent: a video inline or a chunk of an upload, or the frames */
  maxRequestBodyBytes: number;
  /** the largest answer read */
  maxResponseBytes: number;
}

export interface ProviderFetch {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** the last answer of 400 or more, if any */
  lastFailure(): ProviderAnswer | undefined;
  /** requests sent on this call */
  requests(): number;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function providerFetch(options: ProviderFetchOptions): ProviderFetch {
  const base = new URL(options.baseUrl);
  const allowed = parseEgressAllow(base.hostname);
  const policy: EgressPolicy = { ...allowed, pins: options.pins };
  const host = base.host.toLowerCase();
  let failure: ProviderAnswer | undefined;
  let sent = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.host.toLowerCase() !== host || url.protocol !== base.protocol) {
      throw new ServiceError(502, 'ai_provider_error', 'The AI provider client asked for a host other than the configured one', {
        detail: `Only ${base.protocol}//${host} is reachable from the provider path; the request for ${url.protocol}//${url.host} was not sent`,
      });
    }
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') {
      throw new ServiceError(502, 'ai_provider_error', `The AI provider client asked for a ${method} request, which this path does not send`);
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      // The fetcher frames the request itself (length, encoding, connection).
      if (!['content-length', 'accept-encoding', 'connection', 'host', 'transfer-encoding', 'keep-alive'].includes(name)) headers[name] = value;
    });
    const body = method === 'POST' ? Buffer.from(await request.arrayBuffer()) : undefined;
    const signal = init?.signal ? AbortSignal.any([options.signal, init.signal]) : options.signal;
    sent += 1;
    const facts = await fetchPage(url, {
      policy,
      method,
      headers,
      signal,
      limits: { totalTimeoutMs: options.timeoutMs, connectTimeoutMs: Math.min(10_000, options.timeoutMs), maxBytes: options.maxResponseBytes, maxRedirects: 0 },
      maxRequestBodyBytes: options.maxRequestBodyBytes,
      ...(body === undefined ? {} : { body: { data: body, contentType: headers['content-type'] ?? 'application/octet-stream' } }),
      userAgent: headers['user-agent'] ?? 'tool-service-ai/1.0',
    });
    if (facts.status >= 400) failure = { status: facts.status, headers: facts.headers, text: facts.body.toString('utf8').slice(0, 64 * 1024) };
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(facts.headers)) {
      // The body is handed over decoded and whole.
      if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') responseHeaders.set(name, value);
    }
    const status = facts.status >= 200 && facts.status <= 599 ? facts.status : 502;
    return new Response(NULL_BODY_STATUSES.has(status) ? null : new Uint8Array(facts.body), { status, headers: responseHeaders });
  };
  return { fetch, lastFailure: () => failure, requests: () => sent };
}
