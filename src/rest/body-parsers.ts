import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../core/errors.ts';

/**
 * The service takes JSON bodies (and multipart uploads on file tools, registered there).
 *
 * - Fastify's stock text/plain parser goes: a text/plain body would reach the tools as a string
 *   and be told it "must be a JSON object", when what is wrong is the Content-Type. Without the
 *   parser it is a 415 that says to send application/json (see http-errors.ts).
 * - JSON keeps Fastify's own parser (secure-json-parse, which refuses `__proto__` and
 *   `constructor.prototype` keys), but a refusal of that kind is told as what it is: valid JSON
 *   holding a forbidden key, named with its path, not "not valid JSON".
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    // parseAs 'string' hands a string; the type allows a Buffer too.
    const body = typeof raw === 'string' ? raw : raw.toString('utf8');
    parse(request, body, (err, value) => {
      if (!err) return done(null, value);
      const forbidden = forbiddenKeyPath(body);
      if (forbidden === undefined) return done(err, undefined);
      done(
        new ServiceError(400, 'forbidden_key', `The body holds the forbidden key "${forbidden}"`, {
          detail: '"__proto__" and "constructor.prototype" are refused anywhere in a body (prototype pollution); rename or remove that key',
          extra: { issues: [{ field: forbidden, message: 'forbidden key' }] },
        }),
        undefined,
      );
    });
  });
}

/**
 * The path of the first `__proto__` or `constructor.prototype` key when `body` is valid JSON, else
 * undefined. Runs only after secure-json-parse refused a body, so never on the hot path. JSON.parse
 * makes `__proto__` an own data property, so walking own keys finds it.
 */
function forbiddenKeyPath(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const stack: { value: unknown; path: string }[] = [{ value: parsed, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      const childPath = path ? `${path}.${key}` : key;
      if (key === '__proto__') return childPath;
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return `${childPath}.prototype`;
      stack.push({ value: child, path: childPath });
    }
  }
  return undefined;
}
