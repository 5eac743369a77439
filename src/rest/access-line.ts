// The access line of every answered request, written the way pino writes it but without pino's
// generic path. Every request pays for this line, and through logger.info it was the largest
// single cost of a metered call beyond the framework itself (issue 24: the call measured 0.81x of
// a bare Fastify POST with its stock logger, 0.94x with the line left out). pino builds a line by
// walking the fields object, looking up a serializer and a stringifier for each key and
// type-switching its value; the access line's four fields are always the same, with known types,
// so here they are put together directly: the same bytes, in the same order, through the same
// stream (whose writer redacts every line, core/log-writer.ts).
//
// A logger set up with anything that changes how pino writes a line (a mixin, a log formatter, a
// nested key, a stream hook, redaction's stringifiers, a multistream wanting metadata) is not
// plain, and gets the line through logger.info as before.
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  lsCacheSym,
  messageKeySym,
  mixinSym,
  needsMetadataGsym,
  nestedKeySym,
  streamSym,
  stringifiersSym,
  timeSym,
} = pino.symbols;

/** pino's number for the info level. */
const INFO = 30;

/** A pino logger as this file reads it: `levelVal`, and what pino keeps under its symbols. */
type PinoInternals = { levelVal?: unknown } & Record<symbol, unknown>;
type Stream = { write?: unknown } & Record<symbol, unknown>;

/** The fields of one access line. */
export interface AccessFields {
  method: string;
  url: string;
  statusCode: number;
  ms: number;
}

/** True when pino would write this logger's info line as plain JSON: no option that changes it is set. */
function isPlain(log: PinoInternals): boolean {
  const stream = log[streamSym] as Stream | undefined;
  const stringifiers = log[stringifiersSym] as object | undefined;
  const formatters = log[formattersSym] as { log?: unknown } | undefined;
  const hooks = log[hooksSym] as { streamWrite?: unknown } | undefined;
  const levels = log[lsCacheSym] as Record<number, unknown> | undefined;
  return (
    typeof stream?.write === 'function' &&
    stream[needsMetadataGsym] !== true &&
    log[mixinSym] == null &&
    log[nestedKeySym] == null &&
    formatters?.log === undefined &&
    hooks?.streamWrite == null &&
    log[messageKeySym] === 'msg' &&
    typeof levels?.[INFO] === 'string' &&
    typeof log[timeSym] === 'function' &&
    typeof log[chindingsSym] === 'string' &&
    typeof log[endSym] === 'string' &&
    (stringifiers === undefined || Reflect.ownKeys(stringifiers).length === 0)
  );
}

/** pino's number form: a non-finite number is written as null. */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** Writes `{…, method, url, statusCode, ms, "msg":"request"}` at info, as `log.info(fields, 'request')` would. */
export function writeAccessLine(log: FastifyBaseLogger, fields: AccessFields): void {
  const pinoLog = log as unknown as PinoInternals;
  const level = pinoLog.levelVal;
  if (typeof level !== 'number' || !isPlain(pinoLog)) {
    log.info(fields, 'request');
    return;
  }
  if (level > INFO) return;
  const line =
    `${(pinoLog[lsCacheSym] as Record<number, string>)[INFO]}${(pinoLog[timeSym] as () => string).call(pinoLog)}${pinoLog[chindingsSym] as string}` +
    `,"method":${JSON.stringify(fields.method)},"url":${JSON.stringify(fields.url)}` +
    `,"statusCode":${jsonNumber(fields.statusCode)},"ms":${jsonNumber(fields.ms)},"msg":"request"${pinoLog[endSym] as string}`;
  (pinoLog[streamSym] as { write(line: string): unknown }).write(line);
}
