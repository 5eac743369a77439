// Content-Security-Policy parsing and the MDN HTTP Observatory's CSP test result, on its own so
// the CSP evaluator tool can reuse it on a policy a caller sends.

export type CspPolicy = Map<string, string[]>;

export interface CspOutcome {
  result: string;
  modifier: number;
  description: string;
}

const DIRECTIVE_NAME = /^[a-z][a-z0-9-]*$/;
const BROAD = new Set(['*', 'http:', 'https:', 'data:', 'blob:']);

/**
 * Parses one or more serialised policies (several headers arrive joined with ', '). For each
 * directive the first policy that names it wins, as the first occurrence does within a policy.
 * Returns null when a policy holds a directive name that is not a directive name.
 */
export function parseCsp(value: string): CspPolicy | null {
  const policy: CspPolicy = new Map();
  let directives = 0;
  for (const serialised of value.split(',')) {
    for (const part of serialised.split(';')) {
      const tokens = part.trim().split(/\s+/).filter((t) => t !== '');
      const name = tokens[0]?.toLowerCase();
      if (name === undefined) continue;
      if (!DIRECTIVE_NAME.test(name)) return null;
      directives++;
      if (!policy.has(name)) policy.set(name, tokens.slice(1).map((t) => t.toLowerCase()));
    }
  }
  return directives === 0 ? null : policy;
}

/** The sources a fetch directive falls back to: itself, else default-src, else none given. */
export function sourcesFor(policy: CspPolicy, directive: string): string[] | null {
  return policy.get(directive) ?? policy.get('default-src') ?? null;
}

function isInsecureScheme(source: string): boolean {
  return source === 'http:' || source.startsWith('http://');
}

/** Observatory's CSP result, checked from worst to best. */
export function evaluateCsp(policy: CspPolicy | null, pageIsHttps: boolean): CspOutcome {
  if (policy === null) {
    return { result: 'csp-header-invalid', modifier: -25, description: 'The Content-Security-Policy cannot be parsed.' };
  }
  const script = sourcesFor(policy, 'script-src');
  const object = sourcesFor(policy, 'object-src');
  const style = sourcesFor(policy, 'style-src');
  // A nonce or hash makes browsers ignore 'unsafe-inline' in the same list.
  const strictScript = script?.some((s) => s.startsWith("'nonce-") || s.startsWith("'sha")) ?? false;
  const unsafeScript =
    script === null ||
    script.some((s) => BROAD.has(s) && s !== 'blob:') ||
    (script.includes("'unsafe-inline'") && !strictScript);
  const unsafeObject = object === null || object.some((s) => BROAD.has(s));
  if (unsafeScript || unsafeObject) {
    return {
      result: 'csp-implemented-with-unsafe-inline',
      modifier: -20,
      description:
        "The policy lets scripts or plugins run from anywhere: 'unsafe-inline', data: or a broad source in script-src or object-src, or one of them unrestricted.",
    };
  }
  if (script.includes("'unsafe-eval'")) {
    return { result: 'csp-implemented-with-unsafe-eval', modifier: -10, description: "The policy allows 'unsafe-eval' in script-src." };
  }
  if (pageIsHttps) {
    const active = ['default-src', 'script-src', 'object-src', 'style-src', 'frame-src', 'connect-src', 'font-src', 'worker-src'];
    if (active.some((d) => policy.get(d)?.some(isInsecureScheme))) {
      return { result: 'csp-implemented-with-insecure-scheme', modifier: -20, description: 'The policy allows active resources over http.' };
    }
    if (['img-src', 'media-src'].some((d) => policy.get(d)?.some(isInsecureScheme))) {
      return {
        result: 'csp-implemented-with-insecure-scheme-in-passive-content-only',
        modifier: -10,
        description: 'The policy allows images or media over http.',
      };
    }
  }
  if (style === null || style.includes("'unsafe-inline'") || style.some((s) => BROAD.has(s))) {
    return {
      result: 'csp-implemented-with-unsafe-inline-in-style-src-only',
      modifier: 0,
      description: "The policy is safe for scripts but allows 'unsafe-inline' or broad sources for styles.",
    };
  }
  const formAction = policy.get('form-action');
  const defaultNone = policy.get('default-src')?.length === 1 && policy.get('default-src')?.[0] === "'none'";
  if (defaultNone && formAction !== undefined && formAction.every((s) => s === "'none'" || s === "'self'")) {
    return {
      result: 'csp-implemented-with-no-unsafe-default-src-none',
      modifier: 10,
      description: "The policy starts from default-src 'none', has no unsafe sources and restricts form-action.",
    };
  }
  return { result: 'csp-implemented-with-no-unsafe', modifier: 5, description: "The policy has no 'unsafe-inline' or 'unsafe-eval'." };
}
