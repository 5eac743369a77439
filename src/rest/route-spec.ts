import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';

export type RouteAuth = 'none' | 'apiKey' | 'apiKeyOrPassword';

/**
 * A non-tool route (accounts, keys, usage, catalog) described as data, so that the same
 * description registers the route and generates its OpenAPI entry: nothing hand-written twice.
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  auth: RouteAuth;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** false when the route answers its own shape rather than the success envelope. */
  envelope?: boolean;
  /** The success status and the schema of the envelope's `result` (or of the whole body without envelope). */
  success: { status: number; description: string; result: z.ZodType };
  /** Error statuses this route can answer besides the common ones. */
  errors: readonly number[];
  handler(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}
