// CSV as RFC 4180 says: fields separated by a delimiter, records by CRLF (or a bare LF or CR),
// a field in double quotes may hold the delimiter, line breaks and doubled quotes (""). Written
// here (about sixty lines) rather than taken from npm: one pass over a string, no options we do
// not offer, and the errors say where the file is malformed.

export class CsvError extends Error {}

export interface CsvLimits {
  maxRows: number;
  maxFields: number;
}

/** The records of `text`, each an array of fields. A trailing line break does not make an empty record. */
export function parseCsv(text: string, delimiter: string, limits: CsvLimits): string[][] {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') throw new CsvError('The delimiter must be one character other than a quote or a line break');
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const endField = () => {
    record.push(field);
    field = '';
    if (record.length > limits.maxFields) throw new CsvError(`Line ${line} has more than ${limits.maxFields} fields`);
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
    if (records.length > limits.maxRows) throw new CsvError(`The CSV has more than ${limits.maxRows} records`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field === '') {
      // A quoted field: up to the closing quote; "" is one quote.
      const start = line;
      i++;
      for (;;) {
        if (i >= text.length) throw new CsvError(`The quoted field opened on line ${start} is never closed`);
        const q = text[i]!;
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\n') line++;
        field += q;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r') throw new CsvError(`Line ${line}: a closing quote must end its field (found ${JSON.stringify(next)})`);
      // The quoted field's text is final; a lone empty field would otherwise look unquoted.
      if (next === undefined) break;
      continue;
    }
    if (c === delimiter) {
      endField();
      i++;
    } else if (c === '\r' || c === '\n') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || record.length > 0 || (text.length > 0 && text.endsWith('"'))) endRecord();
  return records;
}

/** The most frequent of , ; tab | outside quotes in the first line: what most CSV exports use. */
export function sniffDelimiter(text: string): string {
  const first = text.slice(0, 64 * 1024).split(/\r?\n/, 1)[0] ?? '';
  const unquoted = first.replace(/"[^"]*"/g, '');
  let best = ',';
  let count = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const n = unquoted.split(candidate).length - 1;
    if (n > count) {
      best = candidate;
      count = n;
    }
  }
  return best;
}
