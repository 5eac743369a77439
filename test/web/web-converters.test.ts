// The web family's converters as functions: exact outputs, and every refusal with its code
// (DTDs, entities, billion laughs in XML and YAML, custom tags, depth, malformed input).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isServiceError } from '../../src/core/errors.ts';
import { decodeUtf8, jsonToCsv, jsonToXml, jsonToYaml, xmlToJson, xmlToText, yamlToJson } from '../../src/catalog/web/web-converters.ts';

function refusal(run: () => unknown): { status: number; error: string; detail: string } {
  try {
    run();
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return { status: error.status, error: error.error, detail: error.detail };
  }
  assert.fail('accepted');
}

const CATALOG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment -->
<catalog id="7">
  <book lang="en"><title>Dune</title><price>9.99</price></book>
  <book><title>Emma &amp; Co &#x263A;</title></book>
  <note>hi<![CDATA[ <raw> ]]></note>
  <empty/>
</catalog>
`;

describe('XML', () => {
  test('xml-to-json: attributes as @, repeated names as arrays, text trimmed, values kept as strings', () => {
    assert.deepEqual(JSON.parse(xmlToJson(CATALOG)), {
      catalog: {
        '@id': '7',
        book: [{ '@lang': 'en', title: 'Dune', price: '9.99' }, { title: 'Emma & Co ☺' }],
        note: 'hi <raw>',
        empty: '',
      },
    });
  });

  test('json-to-xml is the inverse of xml-to-json', () => {
    assert.equal(
      jsonToXml(xmlToJson(CATALOG)),
      '<?xml version="1.0" encoding="UTF-8"?>\n<catalog id="7">\n  <book lang="en">\n    <title>Dune</title>\n    <price>9.99</price>\n  </book>\n  <book>\n    <title>Emma &amp; Co ☺</title>\n  </book>\n  <note>hi &lt;raw&gt;</note>\n  <empty/>\n</catalog>\n',
    );
  });

  test('json-to-xml: arrays, several keys, odd names, numbers and null', () => {
    assert.equal(
      jsonToXml('[{"a b": 1, "2x": true, "xmlns": null}, "text & <more>"]'),
      '<?xml version="1.0" encoding="UTF-8"?>\n<root>\n  <item>\n    <a_b>1</a_b>\n    <_2x>true</_2x>\n    <_xmlns/>\n  </item>\n  <item>text &amp; &lt;more&gt;</item>\n</root>\n',
    );
    assert.equal(jsonToXml('{"a": 1, "b": {"@k": "v\\"q", "#text": "t"}}'), '<?xml version="1.0" encoding="UTF-8"?>\n<root>\n  <a>1</a>\n  <b k="v&quot;q">t</b>\n</root>\n');
  });

  test('xml-to-txt: every text node in order, whitespace collapsed, one per line', () => {
    assert.equal(xmlToText(CATALOG), 'Dune\n9.99\nEmma & Co ☺\nhi <raw>\n');
    assert.equal(xmlToText('<a>  Hello\n  world <b>bold</b> tail<!-- skipped --><?pi skipped?></a>'), 'Hello world\nbold\ntail\n');
  });

  test('billion laughs: the DTD is refused before any entity', () => {
    const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<lolz>&lol2;</lolz>`;
    const r = refusal(() => xmlToText(lol));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
    assert.match(r.detail, /^line 2: "<!DOCTYPE lolz \[/);
  });

  test('an external entity (XXE) is refused: the DTD, and the entity without one', () => {
    const r = refusal(() => xmlToJson('<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>'));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
    const bare = refusal(() => xmlToJson('<x>&xxe;</x>'));
    assert.deepEqual([bare.status, bare.error, bare.detail], [422, 'unsafe_document', "line 1: &xxe; is not one of XML's predefined entities (lt, gt, amp, apos, quot); DTDs and the entities they declare are refused"]);
  });

  test('depth is bounded (iteratively: 100 000 levels do not overflow the stack)', () => {
    const r = refusal(() => xmlToText('<a>'.repeat(100_000) + '</a>'.repeat(100_000)));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'document_too_complex', 'elements nest more than 256 deep']);
  });

  for (const [name, xml, detail] of [
    ['mismatched tags', '<a><b></a></b>', 'line 1: </a> does not close <b>'],
    ['a truncated document', '<a><b>text</b>', 'line 1: <a> is never closed (is the file cut short?)'],
    ['two roots', '<a/><b/>', 'line 1: a second root element <b>'],
    ['a bare ampersand', '<a>fish & chips</a>', 'line 1: a bare "&" (write &amp;)'],
    ['a duplicate attribute', '<a x="1" x="2"/>', 'line 1: attribute x twice on <a>'],
    ['an unquoted attribute', '<a x=1/>', 'line 1: a malformed start tag <a'],
    ['no root', '<!-- nothing -->', 'line 1: no root element'],
  ] as const) {
    test(`malformed: ${name}`, () => {
      assert.deepEqual(refusal(() => xmlToJson(xml)), { status: 422, error: 'corrupt_document', detail });
    });
  }
});

describe('YAML and JSON', () => {
  test('yaml-to-json (1.2 core schema: no dates, no yes/no booleans)', () => {
    assert.equal(
      yamlToJson('name: demo\ncount: 3\nratio: 0.5\non: yes\nwhen: 2001-12-14\nhex: 0x1F\nlist:\n  - a\n  - {b: null}\n'),
      '{\n  "name": "demo",\n  "count": 3,\n  "ratio": 0.5,\n  "on": "yes",\n  "when": "2001-12-14",\n  "hex": 31,\n  "list": [\n    "a",\n    {\n      "b": null\n    }\n  ]\n}\n',
    );
  });

  test('a YAML stream of several documents becomes an array', () => {
    assert.deepEqual(JSON.parse(yamlToJson('---\na: 1\n---\nb: 2\n')), [{ a: 1 }, { b: 2 }]);
  });

  test('YAML billion laughs: aliases past the count are refused', () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f'], ['h', 'g'], ['i', 'h']]) {
      rows.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const r = refusal(() => yamlToJson(`${rows.join('\n')}\n`));
    assert.deepEqual([r.status, r.error], [422, 'document_bomb']);
    assert.match(r.detail, /at most 100 alias expansions are allowed$/);
  });

  test('YAML custom and language tags are refused', () => {
    const r = refusal(() => yamlToJson('run: !!python/object/apply:os.system ["id"]\n'));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
    assert.match(r.detail, /^Unresolved tag: tag:yaml\.org,2002:python\/object\/apply:os\.system/);
    assert.equal(refusal(() => yamlToJson('x: !js/function "function(){}"\n')).error, 'unsafe_document');
  });

  test('YAML: duplicate keys, bad indentation and deep nesting', () => {
    assert.deepEqual(refusal(() => yamlToJson('a: 1\na: 2\n')), { status: 422, error: 'corrupt_document', detail: 'Map keys must be unique' });
    assert.equal(refusal(() => yamlToJson('a:\n  b: 1\n c: 2\n')).error, 'corrupt_document');
    assert.equal(refusal(() => yamlToJson(`${'['.repeat(5000)}${']'.repeat(5000)}`)).error, 'document_too_complex');
  });

  test('json-to-yaml keeps strings that look like YAML quoted', () => {
    assert.equal(jsonToYaml('{"a":[1,2,{"b":"c: d"}],"e":"multi\\nline","f":"yes","g":null}'), 'a:\n  - 1\n  - 2\n  - b: "c: d"\ne: |-\n  multi\n  line\nf: "yes"\ng: null\n');
    assert.equal(jsonToYaml('{"n":"012","on":"2001-12-14","t":"true","h":1.5}'), '"n": "012"\n"on": "2001-12-14"\nt: "true"\nh: 1.5\n');
    assert.deepEqual(JSON.parse(yamlToJson(jsonToYaml('{"f":"yes","n":"012","t":"true"}'))), { f: 'yes', n: '012', t: 'true' });
  });

  test('JSON: invalid, too deep, not UTF-8', () => {
    assert.equal(refusal(() => jsonToYaml('{"a": }')).error, 'corrupt_document');
    assert.deepEqual(refusal(() => jsonToYaml(`${'['.repeat(300)}${']'.repeat(300)}`)), { status: 422, error: 'document_too_complex', detail: 'values nest more than 256 deep' });
    assert.deepEqual(refusal(() => decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d]), 'JSON')), { status: 422, error: 'corrupt_document', detail: 'the file is not UTF-8 text' });
  });
});

describe('json-to-csv', () => {
  const options = { delimiter: ',' as const, header: true, escapeFormulas: true };

  test('objects: one column per key in first-seen order, RFC 4180 quoting, CRLF', () => {
    assert.equal(
      jsonToCsv('[{"id":1,"name":"Ann, Jr."},{"name":"Bo \\"B\\"","tags":["x","y"]},{"id":-3,"note":"two\\nlines"}]', options),
      'id,name,tags,note\r\n1,"Ann, Jr.",,\r\n,"Bo ""B""","[""x"",""y""]",\r\n-3,,,"two\nlines"\r\n',
    );
  });

  test('formula cells are escaped, numbers are not; the option turns it off', () => {
    const json = '[{"a":"=HYPERLINK(\\"http://x\\")","b":"+1","c":"@SUM(A1)","d":"-2.5"}]';
    assert.equal(jsonToCsv(json, options), 'a,b,c,d\r\n"\'=HYPERLINK(""http://x"")",+1,\'@SUM(A1),-2.5\r\n');
    assert.equal(jsonToCsv(json, { ...options, escapeFormulas: false }), 'a,b,c,d\r\n"=HYPERLINK(""http://x"")",+1,@SUM(A1),-2.5\r\n');
  });

  test('arrays of arrays, values, a single object, other delimiters, no header', () => {
    assert.equal(jsonToCsv('[[1,"a;b"],[2,null]]', { ...options, delimiter: ';' }), '1;"a;b"\r\n2;\r\n');
    assert.equal(jsonToCsv('[1,"two",true]', options), 'value\r\n1\r\ntwo\r\ntrue\r\n');
    assert.equal(jsonToCsv('{"k":"v","n":2}', { ...options, delimiter: '\t', header: false }), 'v\t2\r\n');
    assert.equal(jsonToCsv('[]', options), '');
  });

  test('an array mixing objects and arrays is refused', () => {
    assert.deepEqual(refusal(() => jsonToCsv('[{"a":1},[1]]', options)).error, 'unprocessable_input');
  });
});
