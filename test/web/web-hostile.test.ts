// Issue 16 §1: one upload must not freeze the service. Each hostile input is generated here, at
// the size that froze the service (or the worst the limits allow), and sent by account A while
// account B calls a calculator and GET /healthz over and over: every answer B gets comes within
// 1 s (the freezes were 200-300 s), A's call ends in a clear 4xx or a correct result, never a 5xx,
// and the service stays up. The jobs run on the compute pool; B is timed from the moment A's job
// has started on a worker (the pool's own event), for as long as A's call lasts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { json, upload, downloadResult } from '../support/http.ts';
import { startFileApp, workFolders, type FileApp } from '../support/file-app.ts';
import { parseXml, type XmlElement } from '../../src/catalog/web/xml-parser.ts';

const CALCULATOR = '/api/v1/calculators/simple-interest-calculator';
/** How long another account may wait for an answer while a hostile job runs (the freeze was 200-300 s). */
const ANSWER_WITHIN_MS = 1000;

let app: FileApp | undefined;
let other: { apiKey: string } | undefined;

before(async () => {
  // One compute worker: the hostile job has the whole pool, the worst case for everyone else.
  app = await startFileApp({ env: { COMPUTE_WORKERS: '1' } });
  other = await app.t.account({ plan: 'business', quota: 100_000 });
});
after(() => app?.t.close());

interface Outcome {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** B's slowest answer while A's call lasted, and how many B made */
  slowestMs: number;
  calls: number;
}

/** Sends A's upload and keeps timing B's calls from the moment A's job starts until A is answered. */
async function whileHostile(tool: string, file: { name: string; content: Buffer | string }, fields: Record<string, string> = {}): Promise<Outcome> {
  const { base, apiKey } = app!;
  const pool = app!.t.services.compute;
  let stopListening = (): void => {};
  const started = new Promise<void>((resolve) => {
    stopListening = pool.onJobStart((job) => job.operationId === `web_${tool.replace(/-/g, '_')}` && resolve());
  });
  let answered = false;
  const call = upload(base, `/api/v1/web/${tool}`, apiKey, file, fields).then(async (res) => {
    answered = true;
    return { status: res.status, body: await json(res) };
  });
  // A refusal before the pool (too large, not the right kind) never starts a job: then A's answer ends the wait.
  await Promise.race([started, call]);
  stopListening();
  let slowestMs = 0;
  let calls = 0;
  do {
    const t0 = performance.now();
    const [calc, health] = await Promise.all([
      fetch(`${base}${CALCULATOR}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': other!.apiKey }, body: JSON.stringify({ principal: 1000, rate: 5, timeYears: 2 }) }),
      fetch(`${base}/healthz`),
    ]);
    slowestMs = Math.max(slowestMs, performance.now() - t0);
    calls++;
    assert.equal(calc.status, 200);
    assert.equal((await json(calc)).result.interest, 100);
    assert.equal(health.status, 200);
    // A short pause between rounds: B samples the service throughout A's job without taking the
    // CPU A's worker needs on a two-core machine.
    if (!answered) await new Promise((resolve) => setTimeout(resolve, 25));
  } while (!answered);
  const { status, body } = await call;
  return { status, body, slowestMs, calls };
}

function assertServed(outcome: Outcome, label: string): void {
  assert.ok(outcome.slowestMs < ANSWER_WITHIN_MS, `${label}: another account waited ${outcome.slowestMs.toFixed(0)} ms (over ${outcome.calls} calls)`);
  assert.ok(outcome.status < 500, `${label}: a 5xx: ${JSON.stringify(outcome.body)}`);
}

function assertRefused(outcome: Outcome, label: string, status: number, error: string): void {
  assertServed(outcome, label);
  assert.deepEqual([outcome.status, outcome.body.error], [status, error], `${label}: ${JSON.stringify(outcome.body)}`);
  assert.match(outcome.body.detail, /\S/);
}

describe('hostile web documents run on the pool while others are served (issue 16 §1)', () => {
  it('an XML element with 100,000 attributes is converted, in linear time', async () => {
    const attributes = Array.from({ length: 100_000 }, (_, i) => ` a${i}="${i}"`).join('');
    const xml = `<?xml version="1.0"?>\n<r${attributes}/>\n`;
    assert.ok(xml.length > 1_200_000);
    const outcome = await whileHostile('xml-to-json', { name: 'attrs.xml', content: xml });
    assertServed(outcome, '100,000 attributes');
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const result = JSON.parse((await downloadResult(app!.base, outcome.body)).toString('utf8')) as { r: Record<string, string> };
    assert.equal(Object.keys(result.r).length, 100_000);
    assert.equal(result.r['@a99999'], '99999');
    // The same element with its first attribute repeated at the end: found by the same linear check.
    const twice = await whileHostile('xml-to-json', { name: 'twice.xml', content: `<r${attributes} a0="again"/>` });
    assertRefused(twice, 'a repeated attribute', 422, 'corrupt_document');
    assert.match(twice.body.detail, /attribute a0 twice/);
  });

  it('20,000 objects with one distinct key each, as CSV: refused before the 20,000 x 20,000 table is written', async () => {
    const rows = `[${Array.from({ length: 20_000 }, (_, i) => `{"k${i}":${i}}`).join(',')}]`;
    const outcome = await whileHostile('json-to-csv', { name: 'sparse.json', content: rows });
    assertRefused(outcome, 'sparse rows', 422, 'output_too_large');
    assert.match(outcome.body.detail, /20000 rows with 20000 distinct keys/);
  });

  it('the same at the 32 MB input limit: a clear 422, the service up', async () => {
    // 32 MB of one-key objects: about two million distinct keys.
    const parts: string[] = [];
    let size = 2;
    for (let i = 0; size < 32 * 1024 * 1024 - 32; i++) {
      const part = `{"k${i}":0}`;
      parts.push(part);
      size += part.length + 1;
    }
    const outcome = await whileHostile('json-to-csv', { name: 'sparse-32mb.json', content: `[${parts.join(',')}]` });
    assertServed(outcome, 'sparse rows at 32 MB');
    assert.equal(outcome.status, 422, JSON.stringify(outcome.body));
    assert.ok(['output_too_large', 'document_too_complex'].includes(outcome.body.error), outcome.body.error);
  });

  it('a 20 MB !!binary scalar becomes a base64 string, without growing the output past the input', async () => {
    const bytes = Buffer.alloc(15 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
    const base64 = bytes.toString('base64');
    const lines = base64.match(/.{1,76}/g)!.join('\n  ');
    const yaml = `data: !!binary |\n  ${lines}\n`;
    assert.ok(yaml.length > 20 * 1024 * 1024);
    const outcome = await whileHostile('yaml-to-json', { name: 'binary.yaml', content: yaml });
    assertServed(outcome, '!!binary');
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const text = (await downloadResult(app!.base, outcome.body)).toString('utf8');
    assert.ok(text.length < yaml.length, `the JSON has ${text.length} characters`);
    assert.equal((JSON.parse(text) as { data: string }).data, base64);
  });

  it('aliases repeating a 1 MB string 100 times: refused as the output passes its bound', async () => {
    const yaml = `big: &big "${'x'.repeat(1024 * 1024)}"\nrepeats:\n${Array.from({ length: 99 }, () => '  - *big').join('\n')}\n`;
    const outcome = await whileHostile('yaml-to-json', { name: 'aliases.yaml', content: yaml });
    assertRefused(outcome, '100 aliases of 1 MB', 422, 'output_too_large');
  });

  it('deep documents whose indentation would grow them 40-fold: refused before writing', async () => {
    // 255 levels of {"a": ...} repeated: 3 MB of JSON, hundreds of MB of indented YAML.
    const chain = `${'{"a":'.repeat(254)}1${'}'.repeat(254)}`;
    const doc = `[${Array.from({ length: 2000 }, () => chain).join(',')}]`;
    const yaml = await whileHostile('json-to-yaml', { name: 'deep.json', content: doc });
    assertRefused(yaml, 'deep JSON to YAML', 422, 'output_too_large');
    const xml = await whileHostile('json-to-xml', { name: 'deep.json', content: doc });
    assertRefused(xml, 'deep JSON to XML', 422, 'output_too_large');
  });

  it('a YAML mapping with 100,000 keys converts (the duplicate check is linear: quadratic took a minute for 50,000), and a repeat at its end is refused', async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const outcome = await whileHostile('yaml-to-json', { name: 'wide.yaml', content: `${keys}\n` });
    assertServed(outcome, '100,000 keys');
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const result = JSON.parse((await downloadResult(app!.base, outcome.body)).toString('utf8')) as Record<string, number>;
    assert.equal(Object.keys(result).length, 100_000);
    assert.equal(result['k99999'], 99_999);
    const repeated = await whileHostile('yaml-to-json', { name: 'repeat.yaml', content: `${keys}\nk0: again\n` });
    assertRefused(repeated, 'a repeated key', 422, 'corrupt_document');
  });

  it('a wide document (200,000 siblings) converts, and nothing is left behind', async () => {
    const xml = `<list>${'<i>1</i>'.repeat(200_000)}</list>`;
    const outcome = await whileHostile('xml-to-txt', { name: 'wide.xml', content: xml });
    assertServed(outcome, '200,000 siblings');
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    assert.equal((await downloadResult(app!.base, outcome.body)).toString('utf8'), '1\n'.repeat(200_000));
    assert.deepEqual(await workFolders(app!.t), []);
  });
});

/** Characters XML 1.0 allows (anything else makes a document not well-formed). */
const XML_CHARS = /^[\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

function names(element: XmlElement): string[] {
  const all: string[] = [];
  const pending: XmlElement[] = [element];
  while (pending.length > 0) {
    const current = pending.pop()!;
    all.push(current.name, ...current.attributes.map(([name]) => name));
    for (const child of current.children) if (typeof child !== 'string') pending.push(child);
  }
  return all;
}

describe('json-to-xml output is always well-formed XML 1.0 (issue 16 §1)', () => {
  it('hostile keys and control characters', async () => {
    const value = {
      'ns:x:y': { '@xmlns:foo': 'u', '@a:b': 1, '@a_b': 2, 'xml-stylesheet': 'x', '#text': 'lead' },
      '1st': 'digit first',
      '': 'empty key',
      'a b\u0000c': 'nul in a key',
      '\uD800lone': 'lone surrogate in a key',
      'ctrl': 'bell \u0007 nul \u0000 esc \u001b fffe \uFFFE lone \uDC00 end ]]> & < > "\r\n',
      'emoji 😀': 'astral 😀 kept',
      '__proto__': { '@x': 'y' },
      '-dash': { '@1': 'attribute starting with a digit', '@:': 'colon only' },
    };
    const outcome = await whileHostile('json-to-xml', { name: 'hostile.json', content: JSON.stringify(value) });
    assertServed(outcome, 'hostile keys');
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const xml = (await downloadResult(app!.base, outcome.body)).toString('utf8');
    assert.match(xml, XML_CHARS, 'only characters XML 1.0 allows');
    // Our strict parser: matching tags, one root, quoted unique attributes, known entities only.
    const root = parseXml(xml);
    for (const name of names(root)) {
      assert.doesNotMatch(name, /:/, `${name}: a colon would be an undeclared namespace prefix`);
      assert.doesNotMatch(name, /^xml/i, `${name}: names starting with xml are reserved`);
    }
    const ctrl = root.children.find((child): child is XmlElement => typeof child !== 'string' && child.name === 'ctrl');
    assert.equal(ctrl?.children.join(''), 'bell \uFFFD nul \uFFFD esc \uFFFD fffe \uFFFD lone \uFFFD end ]]> & < > "\r\n');
    const emoji = root.children.find((child): child is XmlElement => typeof child !== 'string' && child.name.startsWith('emoji'));
    assert.equal(emoji?.children.join(''), 'astral 😀 kept');
  });
});
