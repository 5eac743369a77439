// A small JSON-Schema-to-TypeScript emitter for the SDK generator. It covers what zod's
// toJSONSchema and the MCP SDK write for this catalog (objects, enums, const, arrays, tuples,
// anyOf/oneOf/allOf, records, nullable type arrays, local $refs) and falls back to `unknown`
// for anything else, so a schema it cannot read yields a looser type, never a wrong one. The
// output is a pure function of the schema: key order is the schema's own (a zod object's
// declaration order), so regenerating from the same catalog writes the same text.

export type JsonSchema = { readonly [key: string]: unknown };

interface Emitted {
  ts: string;
  /** A top-level union or intersection: it needs parentheses inside `T[]`. */
  compound: boolean;
}

interface Context {
  root: JsonSchema;
  /** $refs being expanded: a recursive reference becomes `unknown` instead of looping. */
  expanding: Set<string>;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string as a single-quoted TypeScript literal, the codebase's quote style. */
export function quote(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${escaped}'`;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return 'unknown';
}

export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name);
}

/** A `/** ... *\/` block from a schema's description, unit and default, or '' when it has none. */
export function docComment(schema: unknown, indent: string): string {
  if (!isSchema(schema)) return '';
  const parts: string[] = [];
  const description = typeof schema['description'] === 'string' ? schema['description'].trim() : '';
  // zod metadata `unit` (OpenAPI writes it as x-unit): what a number is counted in matters to a caller.
  const unit = schema['unit'] ?? schema['x-unit'];
  const unitNote = typeof unit === 'string' ? (description === '' ? `Unit: ${unit}` : ` (unit: ${unit})`) : '';
  if (description !== '' || unitNote !== '') parts.push(`${description}${unitNote}`);
  if (schema['default'] !== undefined) {
    const shown = JSON.stringify(schema['default']);
    if (shown !== undefined && shown.length <= 80) parts.push(`@default ${shown}`);
  }
  if (parts.length === 0) return '';
  const lines = parts.join('\n').replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

function union(members: readonly Emitted[]): Emitted {
  const seen: string[] = [];
  for (const member of members) if (!seen.includes(member.ts)) seen.push(member.ts);
  if (seen.includes('unknown')) return { ts: 'unknown', compound: false };
  if (seen.length === 0) return { ts: 'never', compound: false };
  if (seen.length === 1) return members.find((m) => m.ts === seen[0]) ?? { ts: 'never', compound: false };
  return { ts: seen.join(' | '), compound: true };
}

function simple(ts: string): Emitted {
  return { ts, compound: false };
}

function arrayOf(item: Emitted): Emitted {
  return simple(item.compound ? `(${item.ts})[]` : `${item.ts}[]`);
}

function resolveRef(ref: string, ctx: Context): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (ref === '#') return ctx.root;
  if (!match) return undefined;
  const defs = ctx.root[match[1] ?? ''];
  const name = (match[2] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
  return isSchema(defs) && isSchema(defs[name]) ? defs[name] : undefined;
}

function emit(schema: unknown, indent: string, ctx: Context): Emitted {
  if (schema === false) return simple('never');
  if (!isSchema(schema)) return simple('unknown');
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    const target = resolveRef(ref, ctx);
    if (!target || ctx.expanding.has(ref)) return simple('unknown');
    ctx.expanding.add(ref);
    try {
      return emit(target, indent, ctx);
    } finally {
      ctx.expanding.delete(ref);
    }
  }
  if ('const' in schema) return simple(literal(schema['const']));
  if (Array.isArray(schema['enum'])) return union(schema['enum'].map((value) => simple(literal(value))));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) {
      // Keywords beside anyOf (a description, a default) do not change the type.
      return union(members.map((member) => emit(member, indent, ctx)));
    }
  }
  if (Array.isArray(schema['allOf'])) {
    const parts = schema['allOf'].map((member) => emit(member, indent, ctx)).filter((part) => part.ts !== 'unknown');
    if (parts.length === 0) return simple('unknown');
    if (parts.length === 1) return parts[0] ?? simple('unknown');
    return { ts: parts.map((p) => (p.compound ? `(${p.ts})` : p.ts)).join(' & '), compound: true };
  }
  const type = schema['type'];
  if (Array.isArray(type)) return union(type.map((one) => emit({ ...schema, type: one }, indent, ctx)));
  switch (type) {
    case 'string':
      return simple('string');
    case 'number':
    case 'integer':
      return simple('number');
    case 'boolean':
      return simple('boolean');
    case 'null':
      return simple('null');
    case 'array':
      return emitArray(schema, indent, ctx);
    case 'object':
      return emitObject(schema, indent, ctx);
    case undefined:
      return isSchema(schema['properties']) || schema['additionalProperties'] !== undefined ? emitObject(schema, indent, ctx) : simple('unknown');
    default:
      return simple('unknown');
  }
}

function emitArray(schema: JsonSchema, indent: string, ctx: Context): Emitted {
  const prefix = schema['prefixItems'];
  if (Array.isArray(prefix)) {
    const items = prefix.map((item) => emit(item, indent, ctx).ts);
    // items: false closes the tuple; otherwise more elements of `items` may follow.
    const rest = schema['items'];
    if (rest !== false && rest !== undefined) items.push(`...${arrayOf(emit(rest, indent, ctx)).ts}`);
    return simple(`[${items.join(', ')}]`);
  }
  return arrayOf(emit(schema['items'], indent, ctx));
}

function emitObject(schema: JsonSchema, indent: string, ctx: Context): Emitted {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
  const additional = schema['additionalProperties'];
  const fields = Object.keys(properties);
  if (fields.length === 0) {
    // An object that must be empty (a strict object with no fields): `{}`-like, so it still
    // combines with other fields (`{ file } & Input`) and accepts `{}`.
    if (additional === false) return simple('Record<never, never>');
    const value = isSchema(additional) ? emit(additional, indent, ctx).ts : 'unknown';
    const names = isSchema(schema['propertyNames']) && Array.isArray(schema['propertyNames']['enum']) ? schema['propertyNames']['enum'] : undefined;
    if (names === undefined) return simple(`Record<string, ${value}>`);
    const keys = union(names.map((k) => simple(literal(k)))).ts;
    // A record over an enum names its keys; it is partial unless every key is required.
    const allKeys = names.every((k) => typeof k === 'string' && required.has(k));
    return simple(allKeys ? `Record<${keys}, ${value}>` : `Partial<Record<${keys}, ${value}>>`);
  }
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const name of fields) {
    const property = properties[name];
    const optional = required.has(name) ? '' : '?';
    lines.push(`${docComment(property, inner)}${inner}${propertyKey(name)}${optional}: ${emit(property, inner, ctx).ts};`);
  }
  // Extra keys beside named fields: an index signature must admit every field's type, so `unknown`.
  if (additional === true || isSchema(additional)) lines.push(`${inner}[key: string]: unknown;`);
  return simple(`{\n${lines.join('\n')}\n${indent}}`);
}

/** The TypeScript type of `schema`, laid out for a declaration at `indent`. */
export function schemaToTs(schema: unknown, indent = ''): string {
  const root = isSchema(schema) ? schema : {};
  return emit(schema, indent, { root, expanding: new Set() }).ts;
}
