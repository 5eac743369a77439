// CORS as an untrusted site sees it: three answers of the same URL, to a GET with a probe Origin
// (an origin the site has no reason to trust), to a GET with Origin: null (sandboxed frames, file:
// pages and some redirects send it) and to an OPTIONS preflight asking for PUT with an
// Authorization header. Reflecting any origin, allowing null, a wildcard with credentials, a
// preflight that grants everything, and a per-origin answer without Vary: Origin are the findings.
// Category 'security-headers': every one is a response-header fix. Pure: answers in, report out.
import { makeFinding, type Finding, type Fix, type Report, type Severity } from '../findings.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, unknown, type RuleDefinition } from '../scoring.ts';

const rule = (id: string, weight: number, severity: Severity, title: string): RuleDefinition => ({ id, category: 'security-headers', weight, severity, title });

export const CORS_RULES = {
  reflects: rule('cors-reflects-origin', 4, 'high', 'Any origin is allowed by reflection'),
  wildcardCredentials: rule('cors-wildcard-with-credentials', 2, 'medium', 'A wildcard origin with credentials'),
  nullOrigin: rule('cors-null-origin-allowed', 3, 'high', 'The null origin is allowed'),
  preflight: rule('cors-preflight-permissive', 3, 'high', 'The preflight grants an untrusted origin everything it asks'),
  vary: rule('cors-vary-origin-missing', 1, 'medium', 'A per-origin answer without Vary: Origin'),
} as const;

export const rules: readonly RuleDefinition[] = Object.values(CORS_RULES);

/** What the preflight asks for: a method and a header no simple request may use. */
export const PREFLIGHT_METHOD = 'PUT';
export const PREFLIGHT_HEADERS = 'authorization';

/** The CORS headers of one answer, as received (null when absent). */
export interface CorsAnswer {
  request: 'origin' | 'null-origin' | 'preflight';
  method: 'GET' | 'OPTIONS';
  /** the request headers the probe sent */
  sent: Record<string, string>;
  status: number | null;
  allowOrigin: string | null;
  allowCredentials: string | null;
  allowMethods: string | null;
  allowHeaders: string | null;
  exposeHeaders: string | null;
  maxAge: string | null;
  vary: string | null;
  /** why there is no answer (the fetch failed), else null */
  error: string | null;
}

export interface CorsProbe {
  url: string;
  /** the untrusted origin sent */
  origin: string;
  /** the GET with the probe Origin: always there (its failure fails the tool) */
  simple: PageFacts;
  /** the GET with Origin: null, or why it could not be had */
  nullOrigin: PageFacts | string;
  /** the OPTIONS preflight, or why it could not be had */
  preflight: PageFacts | string;
}

export function corsAnswer(request: CorsAnswer['request'], sent: Record<string, string>, facts: PageFacts | string): CorsAnswer {
  const method = request === 'preflight' ? 'OPTIONS' : 'GET';
  if (typeof facts === 'string') {
    return { request, method, sent, status: null, allowOrigin: null, allowCredentials: null, allowMethods: null, allowHeaders: null, exposeHeaders: null, maxAge: null, vary: null, error: facts };
  }
  const h = (name: string) => facts.headers[name]?.trim() ?? null;
  return {
    request,
    method,
    sent,
    status: facts.status,
    allowOrigin: h('access-control-allow-origin'),
    allowCredentials: h('access-control-allow-credentials'),
    allowMethods: h('access-control-allow-methods'),
    allowHeaders: h('access-control-allow-headers'),
    exposeHeaders: h('access-control-expose-headers'),
    maxAge: h('access-control-max-age'),
    vary: h('vary'),
    error: null,
  };
}

export function probeHeaders(origin: string): { origin: Record<string, string>; nullOrigin: Record<string, string>; preflight: Record<string, string> } {
  return {
    origin: { origin },
    nullOrigin: { origin: 'null' },
    preflight: { origin, 'access-control-request-method': PREFLIGHT_METHOD, 'access-control-request-headers': PREFLIGHT_HEADERS },
  };
}

const credentialed = (a: CorsAnswer) => a.allowCredentials?.toLowerCase() === 'true';
const listHas = (list: string | null, item: string) => (list ?? '').split(',').some((v) => v.trim().toLowerCase() === item.toLowerCase());

export function analyzeCors(probe: CorsProbe): Report {
  const sent = probeHeaders(probe.origin);
  const simple = corsAnswer('origin', sent.origin, probe.simple);
  const nullOrigin = corsAnswer('null-origin', sent.nullOrigin, probe.nullOrigin);
  const preflight = corsAnswer('preflight', sent.preflight, probe.preflight);
  const answers = [simple, nullOrigin, preflight];
  const origin = probe.origin.toLowerCase();
  const findings: Finding[] = [];
  const notes: string[] = [];
  for (const a of [nullOrigin, preflight]) if (a.error !== null) notes.push(`the ${a.request} request could not be made (${a.error}): the rules that need it are unknown`);

  const add = (r: RuleDefinition, severity: Severity, location: string, answer: CorsAnswer, header: string, value: string | null, detail: string, fix: Fix): void => {
    findings.push(
      makeFinding({
        rule: r.id,
        category: 'security-headers',
        severity,
        location,
        title: r.title,
        detail,
        evidence: { header, ...(value === null ? {} : { value }), url: probe.simple.finalUrl },
        fix,
      }),
    );
  };
  const headerFix = (change: string, acceptance: string): Fix => ({ patchType: 'http-header', change, acceptance, roleHint: 'config' });
  const allowListFix = headerFix(
    'Compare the request Origin with a fixed list of trusted origins and send Access-Control-Allow-Origin only for those (never echo the Origin header unchecked).',
    `A request with Origin: ${probe.origin} gets no Access-Control-Allow-Origin.`,
  );

  const reflecting = [simple, preflight].find((a) => a.allowOrigin?.toLowerCase() === origin);
  if (reflecting !== undefined) {
    const withCredentials = credentialed(reflecting);
    add(CORS_RULES.reflects, withCredentials ? 'high' : 'medium', 'cors:origin', reflecting, 'access-control-allow-origin', reflecting.allowOrigin,
      `Sent Origin: ${probe.origin}, the ${reflecting.request === 'preflight' ? 'preflight' : 'GET'} answered Access-Control-Allow-Origin: ${reflecting.allowOrigin}` +
        (withCredentials
          ? ' with Access-Control-Allow-Credentials: true: any site can read this URL with the visitor\'s cookies (account data theft).'
          : ': any site can read this URL\'s response from a visitor\'s browser.'),
      allowListFix);
  }
  const wildcard = [simple, preflight].find((a) => a.allowOrigin === '*' && credentialed(a));
  if (wildcard !== undefined) {
    add(CORS_RULES.wildcardCredentials, 'medium', 'cors:wildcard', wildcard, 'access-control-allow-credentials', wildcard.allowCredentials,
      'Access-Control-Allow-Origin: * together with Access-Control-Allow-Credentials: true is invalid: browsers refuse credentialed reads, so the setup either breaks a feature or was meant to open the URL to every site with cookies.',
      headerFix('Either drop Access-Control-Allow-Credentials, or answer named trusted origins instead of *.', 'No answer combines Access-Control-Allow-Origin: * with Access-Control-Allow-Credentials: true.'));
  }
  if (nullOrigin.allowOrigin === 'null') {
    const withCredentials = credentialed(nullOrigin);
    add(CORS_RULES.nullOrigin, withCredentials ? 'high' : 'medium', 'cors:null', nullOrigin, 'access-control-allow-origin', 'null',
      `Sent Origin: null, the GET answered Access-Control-Allow-Origin: null${withCredentials ? ' with credentials' : ''}: any site can send a null origin from a sandboxed iframe and read the response.`,
      headerFix('Never allow the origin null; allow only named trusted origins.', 'A request with Origin: null gets no Access-Control-Allow-Origin.'));
  }
  const grantsOrigin = preflight.allowOrigin !== null && (preflight.allowOrigin.toLowerCase() === origin || preflight.allowOrigin === '*');
  const allowsMethod = preflight.allowMethods === '*' || listHas(preflight.allowMethods, PREFLIGHT_METHOD);
  const allowsHeaders = preflight.allowHeaders === '*' || listHas(preflight.allowHeaders, PREFLIGHT_HEADERS);
  if (preflight.error === null && grantsOrigin && allowsMethod && allowsHeaders) {
    const withCredentials = credentialed(preflight);
    add(CORS_RULES.preflight, withCredentials ? 'high' : 'medium', 'cors:preflight', preflight, 'access-control-allow-methods', `${preflight.allowMethods ?? ''} / ${preflight.allowHeaders ?? ''}`,
      `The preflight from ${probe.origin} asking for ${PREFLIGHT_METHOD} with an Authorization header was granted (Allow-Origin ${preflight.allowOrigin}, Allow-Methods ${preflight.allowMethods}, Allow-Headers ${preflight.allowHeaders}${withCredentials ? ', credentials true' : ''}): an untrusted site may send state-changing requests${withCredentials ? ' with the visitor\'s cookies' : ''}.`,
      headerFix('Answer preflights only for trusted origins, listing the methods and headers each endpoint needs (no * and no echo of Access-Control-Request-Headers).', `A preflight from ${probe.origin} for ${PREFLIGHT_METHOD} with Authorization is not granted.`));
  }
  // An answer that depends on the Origin must say so, or a shared cache serves one origin's grant to another.
  const dynamic = simple.allowOrigin !== null && simple.allowOrigin !== '*' &&
    (simple.allowOrigin.toLowerCase() === origin || (nullOrigin.error === null && nullOrigin.allowOrigin !== simple.allowOrigin));
  const varies = listHas(simple.vary, 'origin') || simple.vary?.trim() === '*';
  if (dynamic && !varies) {
    add(CORS_RULES.vary, 'medium', 'header:vary', simple, 'vary', simple.vary,
      `Access-Control-Allow-Origin changes with the request Origin (${simple.allowOrigin} for ${probe.origin}) but Vary does not name Origin${simple.vary === null ? ' (no Vary header)' : ` (Vary: ${simple.vary})`}: a cache can hand one origin's answer to another.`,
      headerFix('Send Vary: Origin on every response whose CORS headers depend on the Origin.', 'Responses with a per-origin Access-Control-Allow-Origin carry Vary: Origin.'));
  }

  return buildReport({
    categories: ['security-headers'],
    checks: rules.map((r) => {
      if ((r === CORS_RULES.nullOrigin || r === CORS_RULES.vary) && nullOrigin.error !== null && !findings.some((f) => f.rule === r.id)) return unknown(r);
      if (r === CORS_RULES.preflight && preflight.error !== null) return unknown(r);
      return checkFrom(r, findings);
    }),
    findings,
    rules,
    notes,
    details: { origin: probe.origin, answers },
  });
}
