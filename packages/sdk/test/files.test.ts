// File tools through the SDK against the real app: a conversion from each kind of upload the SDK
// takes, its result downloaded by its downloadUrl without the key and its content checked, the
// body-answer tools (text and JSON), options as form fields, a file the engine refuses (422),
// and a download link expired (410) or altered (403).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { GoneError, PermissionDeniedError, ToolServiceClient, ToolServiceError, ValidationError, type Uploadable } from '../src/index.ts';
import { startSdkTestApp, type SdkTestApp } from './support/rest-app.ts';

const YAML = 'name: tool-service\nversion: 1\ntags:\n  - sdk\n  - rest\n';
const EXPECTED = { name: 'tool-service', version: 1, tags: ['sdk', 'rest'] };

describe('file tools and downloads', () => {
  let app: SdkTestApp;
  let apiKey: string;
  let client: ToolServiceClient;
  let dir: string;
  const requests: { url: string; headers: Headers }[] = [];

  before(async () => {
    app = await startSdkTestApp();
    ({ apiKey } = await app.t.account());
    client = new ToolServiceClient({
      apiKey,
      baseUrl: app.baseUrl,
      fetch: (input, init) => {
        requests.push({ url: String(input), headers: new Headers(init?.headers) });
        return fetch(input, init);
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'sdk-files-'));
  });

  after(async () => {
    await client?.mcp.close();
    await app?.t.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('converts YAML to JSON and downloads the result without the key: its content is the document', async () => {
    const answer = await client.web_yaml_to_json({ file: Buffer.from(YAML), fileName: 'config.yaml' });
    assert.equal(answer.status, true);
    assert.equal(answer.result.fileName, 'config.json');
    assert.match(answer.result.mimeType, /json/);
    assert.ok(answer.result.downloadUrl.startsWith(`${app.baseUrl}/files/`), answer.result.downloadUrl);

    const bytes = await client.files.download(answer);
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(bytes.byteLength, answer.result.sizeBytes);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), EXPECTED);

    const download = requests.at(-1);
    assert.equal(download?.url, answer.result.downloadUrl);
    assert.equal(download?.headers.get('x-api-key'), null, 'the key never goes to a download link');
    assert.equal(download?.headers.get('idempotency-key'), null);

    // the result, its URL as a string and as a URL give the same bytes; the meta has the status
    const fromResult = await client.files.download(answer.result).withResponse();
    assert.equal(fromResult.meta.status, 200);
    assert.deepEqual(fromResult.data, bytes);
    assert.deepEqual(await client.files.download(answer.result.downloadUrl), bytes);
    assert.deepEqual(await client.files.download(new URL(answer.result.downloadUrl)), bytes);
  });

  it('takes a Blob, a File, a Uint8Array, an ArrayBuffer, a Node stream and an async iterable', async () => {
    const path = join(dir, 'from-disk.yaml');
    writeFileSync(path, YAML);
    const encoded = new TextEncoder().encode(YAML);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield encoded.subarray(0, 10);
      yield encoded.subarray(10);
    }
    const uploads: [string, Uploadable, string | undefined, string][] = [
      ['Blob', new Blob([YAML]), 'blob.yaml', 'blob.json'],
      ['File (its own name)', new File([YAML], 'named-file.yaml'), undefined, 'named-file.json'],
      ['Uint8Array', encoded, 'bytes.yaml', 'bytes.json'],
      ['ArrayBuffer', encoded.slice().buffer, 'buffer.yaml', 'buffer.json'],
      ['fs.ReadStream (its path\'s name)', createReadStream(path), undefined, 'from-disk.json'],
      ['Readable.from', Readable.from([Buffer.from(YAML)]), 'readable.yaml', 'readable.json'],
      ['async generator', chunks(), 'generated.yaml', 'generated.json'],
    ];
    for (const [label, file, fileName, expectedName] of uploads) {
      const answer = await client.web_yaml_to_json(fileName === undefined ? { file } : { file, fileName });
      assert.equal(answer.result.fileName, expectedName, label);
      const bytes = await client.files.download(answer);
      assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), EXPECTED, label);
    }
  });

  it('sends the options as form fields (csv-2-json answers its JSON in the envelope)', async () => {
    const answer = await client.convertors_csv_2_json({ file: Buffer.from('a;b\n1;2\n'), fileName: 'rows.csv', delimiter: 'semicolon', header: false });
    assert.equal(answer.status, true);
    assert.deepEqual(answer.result.rows, [['a', 'b'], ['1', '2']]);
    assert.equal(answer.result.delimiter, ';');
  });

  it('answers a text-answer tool (to-base64) with the text itself', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
    const text = await client.convertors_to_base64({ file: png, fileName: 'dot.png', data_uri: true });
    assert.equal(typeof text, 'string');
    assert.equal(text, `data:image/png;base64,${png.toString('base64')}`);
    const { data, meta } = await client.convertors_to_base64({ file: png, fileName: 'dot.png' }).withResponse();
    assert.equal(data, png.toString('base64'));
    assert.equal(meta.status, 200);
    assert.match(meta.requestId ?? '', /\S/);
  });

  it('a file the converter refuses is a ValidationError (422), and no file at all is refused before sending', async () => {
    const err = await client.web_yaml_to_json({ file: Buffer.from('a: 1\na: 2\n'), fileName: 'dup.yaml' }).then(
      () => assert.fail('a YAML with a duplicate key was converted'),
      (error: unknown) => error,
    );
    assert.ok(err instanceof ValidationError, String(err));
    assert.equal(err.status, 422);
    assert.equal(err.code, 'corrupt_document');

    const sent = requests.length;
    await assert.rejects(client.web_yaml_to_json({} as never), (error: unknown) => error instanceof ToolServiceError && error.code === 'file_required');
    assert.equal(requests.length, sent);
  });

  it('an expired download link is a GoneError (410), an altered one a PermissionDeniedError (403)', async () => {
    const answer = await client.web_yaml_to_json({ file: Buffer.from(YAML), fileName: 'old.yaml' });
    const { fileId, fileName } = answer.result;
    const expired = app.t.services.signer.url(app.baseUrl, fileId, fileName, Math.floor(Date.now() / 1000) - 60);
    const gone = await client.files.download(expired).then(() => assert.fail('an expired link served'), (error: unknown) => error);
    assert.ok(gone instanceof GoneError, String(gone));
    assert.equal(gone.status, 410);
    assert.equal(gone.code, 'link_expired');

    const altered = answer.result.downloadUrl.replace(/signature=[^&]+/, 'signature=AAAA');
    const refused = await client.files.download(altered).then(() => assert.fail('an altered link served'), (error: unknown) => error);
    assert.ok(refused instanceof PermissionDeniedError, String(refused));
    assert.equal(refused.code, 'invalid_signature');
  });
});
