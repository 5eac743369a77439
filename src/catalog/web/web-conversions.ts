// The web family's conversions, one line each, built in (no engine): XML, JSON, YAML and CSV
// (web-converters.ts). The upload is read whole as UTF-8 text, so it is bounded below the upload
// limit. html-to-md is in documents, and CSV to JSON is convertors/csv-2-json: not repeated here.
// Each row's example holds a source text and the exact result text, checked by the examples
// suite (test/web/web-examples.test.ts).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool, type FileToolExample } from '../../core/define-tool.ts';
import { ServiceError } from '../../core/errors.ts';
import { outputName } from '../../files/file-pipeline.ts';
import { MAX_OUTPUT_CHARS } from './bounded-output.ts';
import { decodeUtf8, jsonToCsv, jsonToXml, jsonToYaml, MAX_DEPTH, MAX_YAML_ALIASES, xmlToJson, xmlToText, yamlToJson, type CsvOptions } from './web-converters.ts';

/** Web conversions parse the whole file in memory: 32 MB of text at most. */
export const WEB_MAX_INPUT_BYTES = 32 * 1024 * 1024;

type WebFormat = 'xml' | 'json' | 'yaml' | 'csv' | 'txt';

const OUT: Record<WebFormat, { label: string; extension: string; mimeType: string }> = {
  xml: { label: 'XML', extension: 'xml', mimeType: 'application/xml; charset=utf-8' },
  json: { label: 'JSON', extension: 'json', mimeType: 'application/json; charset=utf-8' },
  yaml: { label: 'YAML', extension: 'yaml', mimeType: 'application/yaml; charset=utf-8' },
  csv: { label: 'CSV', extension: 'csv', mimeType: 'text/csv; charset=utf-8' },
  txt: { label: 'plain text', extension: 'txt', mimeType: 'text/plain; charset=utf-8' },
};

export interface WebExampleFacts {
  /** the result's exact text */
  text: string;
}

interface WebRow {
  from: Exclude<WebFormat, 'txt' | 'csv'>;
  to: WebFormat;
  description: string;
  aliases?: readonly string[];
  options?: z.ZodRawShape;
  convert(text: string, options: Record<string, unknown>): string;
  example: { title: string; input?: Record<string, string>; source: string; result: string };
}

const XML_SAFETY = `XML is parsed with no DTD (a DOCTYPE is refused: no entity expansion, no billion laughs, no external references), only the five predefined entities and character references, and at most ${MAX_DEPTH} levels of nesting.`;
const JSON_SAFETY = `JSON nested more than ${MAX_DEPTH} levels deep is refused.`;

const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

const CATALOG_XML = '<?xml version="1.0" encoding="UTF-8"?>\n<catalog id="7">\n  <book lang="en">\n    <title>Dune</title>\n    <price>9.99</price>\n  </book>\n  <book>\n    <title>Emma &amp; Co</title>\n  </book>\n</catalog>\n';
const CATALOG_JSON = '{\n  "catalog": {\n    "@id": "7",\n    "book": [\n      {\n        "@lang": "en",\n        "title": "Dune",\n        "price": "9.99"\n      },\n      {\n        "title": "Emma & Co"\n      }\n    ]\n  }\n}\n';

const ROWS: readonly WebRow[] = [
  {
    from: 'xml',
    to: 'txt',
    description: `The text of every element in document order, one text node per line, whitespace collapsed; tags, attributes, comments and processing instructions are dropped. ${XML_SAFETY}`,
    aliases: ['extract text from xml', 'strip xml tags'],
    convert: (text) => xmlToText(text),
    example: { title: 'the text of a catalog', source: CATALOG_XML, result: 'Dune\n9.99\nEmma & Co\n' },
  },
  {
    from: 'xml',
    to: 'json',
    description: `The root element becomes the top key; attributes become "@name" keys, repeated elements arrays, an element's own text "#text" (or the value itself when it has no attributes or children). Values stay strings. ${XML_SAFETY}`,
    convert: (text) => xmlToJson(text),
    example: { title: 'a catalog as JSON', source: CATALOG_XML, result: CATALOG_JSON },
  },
  {
    from: 'json',
    to: 'xml',
    description: `The inverse of xml-to-json: an object with one key names the root element (otherwise <root>), "@name" keys are attributes, "#text" an element's text, arrays repeat their element (a top-level array's items are <item>); keys that are not XML names have other characters replaced by "_" (a colon too: no key makes a namespace prefix), and characters XML 1.0 does not allow become U+FFFD, so the output is always well-formed. ${JSON_SAFETY}`,
    convert: (text) => jsonToXml(text),
    example: { title: 'JSON back to the catalog', source: CATALOG_JSON, result: '<?xml version="1.0" encoding="UTF-8"?>\n<catalog id="7">\n  <book lang="en">\n    <title>Dune</title>\n    <price>9.99</price>\n  </book>\n  <book>\n    <title>Emma &amp; Co</title>\n  </book>\n</catalog>\n' },
  },
  {
    from: 'yaml',
    to: 'json',
    description: `YAML 1.2 (core schema) to pretty-printed JSON; a stream of several documents becomes an array. Custom and language tags (!!python/object and the like) are refused, and at most ${MAX_YAML_ALIASES} alias expansions are allowed (no billion laughs); duplicate keys are refused. !!binary scalars become base64 strings; a result over ${MAX_OUTPUT_CHARS} characters is refused (422 output_too_large) as soon as it passes that.`,
    aliases: ['yml to json'],
    convert: (text) => yamlToJson(text),
    example: { title: 'a service config', source: 'service: api\nreplicas: 3\nports:\n  - 80\n  - 443\nenv:\n  DEBUG: "false"\n  region: eu-west-1\n', result: '{\n  "service": "api",\n  "replicas": 3,\n  "ports": [\n    80,\n    443\n  ],\n  "env": {\n    "DEBUG": "false",\n    "region": "eu-west-1"\n  }\n}\n' },
  },
  {
    from: 'json',
    to: 'yaml',
    description: `Block-style YAML; strings that a YAML 1.1 or 1.2 reader would take for something else ("yes", "012", "true", dates) are quoted. ${JSON_SAFETY}`,
    aliases: ['json to yml'],
    convert: (text) => jsonToYaml(text),
    example: { title: 'a config as YAML', source: '{"service":"api","replicas":3,"ports":[80,443],"env":{"DEBUG":"false","answer":"yes"}}', result: 'service: api\nreplicas: 3\nports:\n  - 80\n  - 443\nenv:\n  DEBUG: "false"\n  answer: "yes"\n' },
  },
  {
    from: 'json',
    to: 'csv',
    description: `RFC 4180 CSV with CRLF line ends: an array of objects gives one column per key (in the order keys first appear) and a header row; an array of arrays gives its rows as they are; nested values are written as JSON in their cell. Cells a spreadsheet would run as formulas (starting with =, +, -, @ and not a number) get a leading ' unless escape_formulas is false. ${JSON_SAFETY}`,
    aliases: ['json array to csv', 'json to spreadsheet'],
    options: {
      delimiter: z.enum(['comma', 'semicolon', 'tab', 'pipe']).optional().describe('field separator (default comma)'),
      header: flag.optional().describe('write a header row of the keys (default true)'),
      escape_formulas: flag.optional().describe('prefix \' to cells starting with =, +, -, @ that are not numbers, so spreadsheets show them as text (default true)'),
    },
    convert: (text, options) =>
      jsonToCsv(text, {
        delimiter: ({ comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const)[(options['delimiter'] as 'comma' | undefined) ?? 'comma'],
        header: options['header'] !== false,
        escapeFormulas: options['escape_formulas'] !== false,
      } satisfies CsvOptions),
    example: { title: 'orders as CSV', input: { delimiter: 'semicolon' }, source: '[{"id":1,"item":"Tea; green","qty":2},{"id":2,"item":"=cmd()","note":"gift"}]', result: 'id;item;qty;note\r\n1;"Tea; green";2;\r\n2;\'=cmd();;gift\r\n' },
  },
];

export const webConversions: AnyTool[] = ROWS.map((row) => {
  const to = OUT[row.to];
  const from = OUT[row.from];
  const example: FileToolExample<Record<string, unknown>> = {
    title: row.example.title,
    input: row.example.input ?? {},
    sampleText: row.example.source,
    source: { text: row.example.source },
    expect: { mimeType: to.mimeType, extension: to.extension, contains: [], facts: { text: row.example.result } satisfies WebExampleFacts },
  };
  return defineFileTool({
    family: 'web',
    slug: `${row.from}-to-${row.to}`,
    title: `${from.label} to ${to.label}`,
    description: `Converts ${from.label} to ${to.label}. ${row.description} UTF-8 input up to ${WEB_MAX_INPUT_BYTES / 1024 / 1024} MB. Upload the file in the multipart field "file"; the answer holds a presigned downloadUrl valid 1 hour.`,
    aliases: [`${row.from} to ${row.to}`, `convert ${row.from} to ${row.to}`, `${from.label} to ${to.label}`, ...(row.aliases ?? [])],
    credits: 1,
    input: z.strictObject(row.options ?? {}),
    upload: { field: 'file', accept: [row.from] },
    conversion: { from: row.from, to: row.to },
    limits: { timeoutMs: 60_000 },
    // Parsing and writing cost as much as the document is large: on the compute pool, never the main thread.
    compute: 'pool',
    examples: [example],
    async run(input, ctx) {
      if (ctx.upload.sizeBytes > WEB_MAX_INPUT_BYTES) {
        throw new ServiceError(413, 'file_too_large', `The ${from.label} file is too large for this conversion`, {
          detail: `It has ${ctx.upload.sizeBytes} bytes; ${row.from}-to-${row.to} reads at most ${WEB_MAX_INPUT_BYTES} bytes`,
          extra: { maxBytes: WEB_MAX_INPUT_BYTES },
        });
      }
      const text = decodeUtf8(await readFile(ctx.upload.path), from.label);
      const outputPath = join(ctx.workDir, `result.${to.extension}`);
      await writeFile(outputPath, row.convert(text, input as Record<string, unknown>));
      return { path: outputPath, fileName: outputName(ctx.upload.originalName, to.extension), mimeType: to.mimeType };
    },
  });
});
