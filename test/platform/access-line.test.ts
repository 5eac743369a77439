// The access line written without pino's generic path (src/rest/access-line.ts) is the very line
// pino writes for the same fields: the same bytes in the same order, the request id of the
// child logger, the level respected; a logger with an option that changes pino's output gets
// pino's own line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { pino, type LoggerOptions } from 'pino';
import { writeAccessLine, type AccessFields } from '../../src/rest/access-line.ts';

/** A pino logger writing to an array, and its request child (as Fastify makes one per request). */
function capture(options: LoggerOptions = {}): { lines: string[]; log: FastifyBaseLogger } {
  const lines: string[] = [];
  const root = pino({ level: 'info', ...options }, { write: (line: string) => void lines.push(line) });
  return { lines, log: root.child({ reqId: '0c5a-req' }) as unknown as FastifyBaseLogger };
}

/** The same line with its time set to 0, so two lines written a millisecond apart compare. */
const timeless = (line: string): string => line.replace(/"time":\d+/, '"time":0');

const FIELDS: AccessFields[] = [
  { method: 'POST', url: '/api/v1/calculators/simple-interest-calculator', statusCode: 200, ms: 1.23 },
  { method: 'GET', url: '/api/v1/files/f1?sig=[redacted]&name="quoted" \\ back\nline\u0001 ünï €', statusCode: 404, ms: 0 },
  { method: 'DELETE', url: '/' + 'x'.repeat(2000), statusCode: 499, ms: 60000.5 },
  { method: 'PUT', url: '/nan', statusCode: 500, ms: Number.NaN },
];

describe('the access line', () => {
  for (const fields of FIELDS) {
    it(`is pino's own line for ${fields.method} ${fields.url.slice(0, 40)}`, () => {
      const { lines, log } = capture();
      writeAccessLine(log, fields);
      log.info(fields, 'request');
      assert.equal(lines.length, 2);
      assert.equal(timeless(lines[0]!), timeless(lines[1]!));
      const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
      assert.equal(parsed['reqId'], '0c5a-req');
      assert.equal(parsed['url'], fields.url);
      assert.equal(parsed['msg'], 'request');
      assert.equal(parsed['level'], 30);
      assert.equal(typeof parsed['time'], 'number');
      assert.ok(lines[0]!.endsWith('}\n'));
    });
  }

  it('writes nothing when the logger is above info', () => {
    const { lines, log } = capture({ level: 'warn' });
    writeAccessLine(log, FIELDS[0]!);
    assert.deepEqual(lines, []);
  });

  it("leaves a logger with a mixin, a formatter, a nested key or redaction to pino's own line", () => {
    const options: LoggerOptions[] = [
      { mixin: () => ({ node: 'n1' }) },
      { formatters: { log: (object) => ({ ...object, formatted: true }) } },
      { nestedKey: 'payload' },
      { redact: ['url'] },
      { messageKey: 'message' },
    ];
    for (const option of options) {
      const { lines, log } = capture(option);
      writeAccessLine(log, FIELDS[0]!);
      log.info(FIELDS[0]!, 'request');
      assert.equal(lines.length, 2, JSON.stringify(Object.keys(option)));
      assert.equal(timeless(lines[0]!), timeless(lines[1]!), JSON.stringify(Object.keys(option)));
    }
    const redacted = capture({ redact: ['url'] });
    writeAccessLine(redacted.log, FIELDS[0]!);
    assert.match(redacted.lines[0]!, /"url":"\[Redacted\]"/);
  });
});
