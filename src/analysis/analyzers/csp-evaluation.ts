// A Content-Security-Policy judged on its own text, the way Google's CSP Evaluator does: what an
// injected script could still get through (missing directives, 'unsafe-inline', wildcards, broad
// schemes, allowlisted hosts that serve JSONP or AngularJS), plus the policy's hygiene (deprecated
// and unknown directives, keywords without quotes, short nonces). Pure: text in, report out.
import { makeFinding, type Finding, type Report, type Severity } from '../findings.ts';
import { buildReport, checkFrom, type RuleDefinition } from '../scoring.ts';
import { evaluateCsp, parseCsp } from './csp-policy.ts';
import { CSP_DIRECTIVES, DEPRECATED_DIRECTIVES, SCRIPT_GADGET_HOSTS, closestDirective, gadgetHostFor } from './csp-directives.ts';

export const CSP_RULES = {
  missingScriptSrc: { id: 'csp-missing-script-src', category: 'security-headers', weight: 3, severity: 'high', title: 'No script-src or default-src: scripts are unrestricted' },
  missingObjectSrc: { id: 'csp-missing-object-src', category: 'security-headers', weight: 2, severity: 'high', title: 'No object-src or default-src: plugins are unrestricted' },
  missingBaseUri: { id: 'csp-missing-base-uri', category: 'security-headers', weight: 1, severity: 'medium', title: 'No base-uri: an injected <base> can redirect relative URLs' },
  unsafeInline: { id: 'csp-unsafe-inline', category: 'security-headers', weight: 3, severity: 'high', title: "script-src allows 'unsafe-inline'" },
  unsafeEval: { id: 'csp-unsafe-eval', category: 'security-headers', weight: 2, severity: 'medium', title: "script-src allows 'unsafe-eval'" },
  wildcard: { id: 'csp-wildcard-source', category: 'security-headers', weight: 3, severity: 'high', title: 'A wildcard source allows scripts or plugins from any host' },
  broadScheme: { id: 'csp-broad-scheme', category: 'security-headers', weight: 3, severity: 'high', title: 'A scheme source (http:, https:, data:) allows scripts or plugins from anywhere' },
  insecureSource: { id: 'csp-insecure-source', category: 'security-headers', weight: 2, severity: 'medium', title: 'Scripts or plugins allowed over plain http' },
  gadgetHost: { id: 'csp-bypassable-host', category: 'security-headers', weight: 2, severity: 'high', title: 'An allowlisted host serves JSONP or AngularJS, which bypass the allowlist' },
  missingFrameAncestors: { id: 'csp-missing-frame-ancestors', category: 'security-headers', weight: 1, severity: 'medium', title: 'No frame-ancestors: any site may frame the page' },
  reportOnly: { id: 'csp-report-only', category: 'security-headers', weight: 2, severity: 'medium', title: 'The policy is report-only: nothing is enforced' },
  noReporting: { id: 'csp-no-reporting', category: 'security-headers', weight: 0, severity: 'info', title: 'Violations are not reported anywhere' },
  deprecated: { id: 'csp-deprecated-directive', category: 'security-headers', weight: 1, severity: 'low', title: 'A deprecated directive' },
  unknown: { id: 'csp-unknown-directive', category: 'security-headers', weight: 1, severity: 'medium', title: 'An unknown directive, ignored by browsers' },
  duplicate: { id: 'csp-duplicate-directive', category: 'security-headers', weight: 1, severity: 'low', title: 'A directive given twice: browsers ignore the second' },
  missingQuotes: { id: 'csp-keyword-without-quotes', category: 'security-headers', weight: 1, severity: 'medium', title: 'A keyword without its single quotes is read as a host name' },
  shortNonce: { id: 'csp-short-nonce', category: 'security-headers', weight: 1, severity: 'medium', title: 'A nonce shorter than 16 characters' },
} as const satisfies Record<string, RuleDefinition>;

export const cspEvaluationRules: readonly RuleDefinition[] = Object.values(CSP_RULES);

export const MAX_CSP_LENGTH = 16 * 1024;
const MAX_VALUE = 200;
const MIN_NONCE_LENGTH = 16;
const KEYWORDS = ['self', 'none', 'unsafe-inline', 'unsafe-eval', 'strict-dynamic', 'unsafe-hashes', 'report-sample', 'wasm-unsafe-eval', 'unsafe-allow-redirects'];

export interface CspEvaluationOptions {
  /** the page the policy protects, when known: 'self' on an http page is an http source */
  pageUrl?: string | null;
  /** the policy came in Content-Security-Policy-Report-Only */
  reportOnly?: boolean;
}

interface Directive {
  name: string;
  /** sources as written (case kept, for nonces and evidence) */
  values: string[];
  text: string;
}

/** The first policy's directives in order, as written; later policies are noted, not merged. */
function parseDirectives(csp: string): { directives: Directive[]; policies: number } {
  const policies = csp.split(',').filter((p) => p.trim() !== '');
  const directives: Directive[] = [];
  for (const part of (policies[0] ?? '').split(';')) {
    const tokens = part.trim().split(/\s+/).filter((t) => t !== '');
    const [name, ...values] = tokens;
    if (name === undefined) continue;
    directives.push({ name: name.toLowerCase(), values, text: tokens.join(' ') });
  }
  return { directives, policies: policies.length };
}

export function evaluateCspPolicy(csp: string, options: CspEvaluationOptions = {}): Report {
  const header = options.reportOnly ? 'content-security-policy-report-only' : 'content-security-policy';
  const { directives, policies } = parseDirectives(csp.slice(0, MAX_CSP_LENGTH));
  const notes: string[] = [];
  if (csp.length > MAX_CSP_LENGTH) notes.push(`The policy is ${csp.length} characters; only the first ${MAX_CSP_LENGTH} were read.`);
  if (policies > 1) notes.push(`${policies} policies were given (separated by commas); browsers enforce each, and this report judges the first.`);

  const findings: Finding[] = [];
  const add = (rule: RuleDefinition, location: string, detail: string, evidence: { snippet?: string; value?: string }, change: string, acceptance: string, severity: Severity = rule.severity) =>
    findings.push(
      makeFinding({
        rule: rule.id,
        category: 'security-headers',
        severity,
        location: `${header}:${location}`,
        title: rule.title,
        detail,
        evidence: { header, ...evidence, ...(evidence.value ? { value: evidence.value.slice(0, MAX_VALUE) } : {}) },
        fix: { patchType: 'http-header', change, acceptance, roleHint: 'config' },
      }),
    );

  const policy = new Map<string, Directive>();
  for (const d of directives) {
    if (policy.has(d.name)) {
      add(CSP_RULES.duplicate, `duplicate:${d.name}`, `${d.name} appears more than once; browsers use the first and ignore "${d.text.slice(0, MAX_VALUE)}".`, { value: d.text },
        `Merge the sources of every ${d.name} into the first one and remove the others.`, `${d.name} appears once in the policy.`);
      continue;
    }
    policy.set(d.name, d);
    if (!CSP_DIRECTIVES.has(d.name)) {
      const suggestion = closestDirective(d.name);
      add(CSP_RULES.unknown, `unknown:${d.name}`, `"${d.name.slice(0, 60)}" is not a CSP directive, so browsers ignore it${suggestion ? `; did you mean ${suggestion}?` : '.'}`, { value: d.text },
        suggestion ? `Rename ${d.name} to ${suggestion}.` : `Remove ${d.name}, or replace it with the directive you meant.`, `The policy has no ${d.name} directive.`);
    }
    const replacement = DEPRECATED_DIRECTIVES.get(d.name);
    if (replacement !== undefined && !(d.name === 'report-uri' && directives.some((x) => x.name === 'report-to'))) {
      add(CSP_RULES.deprecated, `deprecated:${d.name}`, `${d.name} is deprecated: ${replacement.why}`, { value: d.text }, replacement.change, replacement.acceptance);
    }
    for (const value of d.values) {
      const bare = value.toLowerCase();
      if (KEYWORDS.includes(bare) || /^(nonce|sha256|sha384|sha512)-/.test(bare)) {
        add(CSP_RULES.missingQuotes, `quotes:${d.name}:${bare.slice(0, 60)}`, `${d.name} lists ${value} without single quotes, so browsers read it as a host named "${value}", not the keyword.`, { snippet: value, value: d.text },
          `In ${d.name}, write '${value}' (with single quotes).`, `${d.name} holds no unquoted keyword.`);
      }
      const nonce = /^'nonce-(.*)'$/i.exec(value)?.[1];
      if (nonce !== undefined && nonce.length < MIN_NONCE_LENGTH) {
        add(CSP_RULES.shortNonce, `nonce:${d.name}`, `The nonce in ${d.name} is ${nonce.length} characters; a guessable nonce lets injected scripts run. Use at least 128 bits of randomness (e.g. 16 random bytes in base64, 22+ characters), new for every response.`,
          { snippet: value, value: d.text }, `Generate a fresh random nonce of at least 16 bytes for every response, base64-encoded, in ${d.name} and on each script tag.`, `Every nonce in the policy is at least ${MIN_NONCE_LENGTH} characters.`);
      }
    }
  }

  const lower = (d: Directive | undefined) => d?.values.map((v) => v.toLowerCase());
  const defaultSrc = policy.get('default-src');
  const scriptDirective = policy.get('script-src') ?? defaultSrc;
  const objectDirective = policy.get('object-src') ?? defaultSrc;
  const script = lower(scriptDirective);
  const object = lower(objectDirective);
  const hasNonceOrHash = script?.some((s) => /^'(nonce-|sha256-|sha384-|sha512-)/.test(s)) ?? false;
  const strictDynamic = (script?.includes("'strict-dynamic'") ?? false);
  // With 'strict-dynamic' (and a nonce or hash), CSP3 browsers ignore host and scheme sources.
  const allowlistIgnored = strictDynamic && hasNonceOrHash;

  if (script === undefined) {
    add(CSP_RULES.missingScriptSrc, 'script-src', 'Without script-src or default-src the policy does not restrict scripts, so an injected <script> runs.', {},
      "Add script-src 'nonce-{random}' 'strict-dynamic' (a fresh nonce per response on each script tag), or script-src 'self' if every script is a file on this origin.", 'The policy has a script-src (or default-src) directive.');
  }
  if (object === undefined) {
    add(CSP_RULES.missingObjectSrc, 'object-src', "Without object-src or default-src, <object> and <embed> can load plugin content that runs script.", {},
      "Add object-src 'none'.", "The policy has object-src 'none' (or a default-src).");
  }
  if (!policy.has('base-uri')) {
    add(CSP_RULES.missingBaseUri, 'base-uri', `base-uri does not fall back to default-src: an injected <base href> changes where relative URLs point${hasNonceOrHash ? ', and relative nonced scripts then load from the attacker' : ''}.`, {},
      "Add base-uri 'none' (or 'self' if the site uses <base>).", 'The policy has a base-uri directive.', hasNonceOrHash ? 'high' : 'medium');
  }
  if (scriptDirective && script?.includes("'unsafe-inline'") && !hasNonceOrHash && !strictDynamic) {
    add(CSP_RULES.unsafeInline, `${scriptDirective.name}:unsafe-inline`, `${scriptDirective.name} allows 'unsafe-inline' with no nonce or hash, so inline scripts and event handlers injected into the page run: the policy does not stop XSS.`,
      { snippet: "'unsafe-inline'", value: scriptDirective.text },
      `Remove 'unsafe-inline' from ${scriptDirective.name}; give inline scripts a per-response nonce ('nonce-{random}') or a hash ('sha256-…'), and move event handlers into script files.`, `${scriptDirective.name} has no 'unsafe-inline', or has it beside a nonce or hash.`);
  }
  if (scriptDirective && script?.includes("'unsafe-eval'")) {
    add(CSP_RULES.unsafeEval, `${scriptDirective.name}:unsafe-eval`, `${scriptDirective.name} allows 'unsafe-eval': eval(), new Function() and string timers turn injected strings into code.`,
      { snippet: "'unsafe-eval'", value: scriptDirective.text }, `Remove 'unsafe-eval' from ${scriptDirective.name} and replace eval-style code (or use 'wasm-unsafe-eval' if only WebAssembly needs it).`, `${scriptDirective.name} has no 'unsafe-eval'.`);
  }

  const pageHttp = options.pageUrl?.startsWith('http:') ?? false;
  const judged = [
    { directive: scriptDirective, sources: scriptDirective?.values ?? [], what: 'scripts', ignored: allowlistIgnored },
    ...(objectDirective && objectDirective !== scriptDirective ? [{ directive: objectDirective, sources: objectDirective.values, what: 'plugins', ignored: false }] : []),
  ];
  for (const { directive, sources, what, ignored } of judged) {
    if (!directive || ignored) continue;
    const name = directive.name;
    for (const source of sources) {
      const s = source.toLowerCase();
      if (/^(https?:\/\/)?\*(:\*)?$/.test(s)) {
        add(CSP_RULES.wildcard, `${name}:wildcard:${s}`, `${name} allows ${source}: ${what} from any host load, so an attacker hosts theirs anywhere.`, { snippet: source, value: directive.text },
          `Remove ${source} from ${name}; use a nonce or hash with 'strict-dynamic' for scripts, and object-src 'none' for plugins.`, `${name} has no wildcard source.`);
      } else if (s === 'http:' || s === 'https:' || s === 'data:') {
        add(CSP_RULES.broadScheme, `${name}:scheme:${s}`, `${name} allows ${s}: ${s === 'data:' ? `${what} written inline as data: URLs` : `${what} from any ${s.slice(0, -1)} host`} load, so the allowlist stops nothing.`, { snippet: source, value: directive.text },
          `Remove ${s} from ${name}; list the exact hosts, or use a nonce or hash with 'strict-dynamic'.`, `${name} has no ${s} source.`);
      }
      if (s.startsWith('http://') || (s === "'self'" && pageHttp)) {
        const served = s === "'self'" ? `'self' on this http page is ${originOf(options.pageUrl ?? '')}, so` : `${source} is plain http, so`;
        add(CSP_RULES.insecureSource, `${name}:http:${s}`, `${served} ${what} travel unencrypted and anyone on the network path can replace them.`, { snippet: source, value: directive.text },
          s === "'self'" ? 'Serve the page over https (and redirect http to it).' : `Change ${source} to its https:// form.`, `${name} allows ${what} only over https.`);
      }
      const gadget = what === 'scripts' ? gadgetHostFor(s) : undefined;
      if (gadget !== undefined) {
        add(CSP_RULES.gadgetHost, `${name}:gadget:${s}`, `${name} allows ${source}, and ${gadget.host} ${gadget.why}: an attacker loads that script from the allowlisted host and runs their own code.`, { snippet: source, value: directive.text },
          `Remove ${source} from ${name}; load what you need from it with a nonce ('nonce-{random}' 'strict-dynamic') instead of a host allowlist.`, `${name} allows no host from the JSONP/AngularJS list (${SCRIPT_GADGET_HOSTS.length} hosts), or the policy uses 'strict-dynamic' with a nonce.`);
      }
    }
  }

  if (!policy.has('frame-ancestors')) {
    add(CSP_RULES.missingFrameAncestors, 'frame-ancestors', 'frame-ancestors does not fall back to default-src: without it (or X-Frame-Options) any site can frame the page for clickjacking.', {},
      "Add frame-ancestors 'none' (or 'self' if the site frames itself).", 'The policy has a frame-ancestors directive.');
  }
  const reports = policy.has('report-uri') || policy.has('report-to');
  if (options.reportOnly) {
    add(CSP_RULES.reportOnly, 'report-only', `The policy is sent as Content-Security-Policy-Report-Only: browsers ${reports ? 'report' : 'would report'} violations but block nothing${policy.has('frame-ancestors') ? ', and ignore frame-ancestors there' : ''}.`, {},
      'Once the reports are clean, send the same policy as Content-Security-Policy.', 'The policy is sent as Content-Security-Policy.');
  }
  if (!reports) {
    add(CSP_RULES.noReporting, 'reporting', `The policy has neither report-to nor report-uri, so violations${options.reportOnly ? ' (the only thing a report-only policy produces)' : ''} are seen by no one.`, {},
      'Add report-to with a Reporting-Endpoints header (and report-uri beside it for older browsers).', 'The policy has report-to or report-uri.', options.reportOnly ? 'medium' : 'info');
  }

  const observatory = evaluateCsp(parseCsp(csp.slice(0, MAX_CSP_LENGTH)), !pageHttp);
  return buildReport({
    categories: ['security-headers'],
    checks: cspEvaluationRules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules: cspEvaluationRules,
    notes,
    details: {
      directives: [...policy.values()].map((d) => ({ name: d.name, sources: d.values.slice(0, 100) })),
      header,
      observatory: { result: observatory.result, modifier: observatory.modifier, description: observatory.description },
    },
  });
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url.slice(0, MAX_VALUE);
  }
}
