// A stateless MCP endpoint builds a server per request, and building the tools' zod schemas each
// time cost more than the call itself (about 0.6 ms a request). The configurations (names,
// descriptions, schemas, annotations) depend only on long-lived things (the catalog, the run
// services, the playbooks), so each is built once per such owner and reused by every request.
import { z } from 'zod';

const cache = new WeakMap<object, Map<string, unknown>>();

/** A raw shape becomes its object schema once here, not in every registerTool call. */
function asObjectSchemas<T>(config: T): T {
  const c = config as Record<string, unknown>;
  const out: Record<string, unknown> = { ...c };
  for (const key of ['inputSchema', 'outputSchema']) {
    const schema = c[key];
    if (schema !== undefined && !(schema instanceof z.ZodType)) out[key] = z.object(schema as z.ZodRawShape);
  }
  return out as T;
}

export function configOnce<T>(owner: object, name: string, make: () => T): T {
  let configs = cache.get(owner);
  if (!configs) {
    configs = new Map();
    cache.set(owner, configs);
  }
  if (!configs.has(name)) configs.set(name, asObjectSchemas(make()));
  return configs.get(name) as T;
}
