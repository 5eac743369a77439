// The fields of a dashboard form post (form-urlencoded, parsed with repeated names kept as arrays).
import type { FastifyRequest } from 'fastify';

export type Fields = Record<string, string | string[] | undefined>;

export function fieldsOf(request: FastifyRequest): Fields {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Fields) : {};
}

/** A field sent once; '' when absent or repeated. */
export function text(fields: Fields, name: string): string {
  const value = fields[name];
  return typeof value === 'string' ? value : '';
}

/** A field that may be sent any number of times (checkboxes of one name). */
export function list(fields: Fields, name: string): string[] {
  const value = fields[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
