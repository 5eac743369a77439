// File tools over MCP: the file as base64 or as a URL the service fetches through the egress-safe
// fetcher, into the same pipeline as a multipart upload, answered with the same downloadUrl.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { startExampleWeb, type ExampleWeb } from '../analysis/support/example-web.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';

// It tries refused addresses: in a network namespace with only loopback, a regression could reach nothing.
await runInIsolatedNetwork(import.meta.filename);

interface Structured {
  [key: string]: unknown;
}

describe('file tools over MCP', () => {
  let web: ExampleWeb;
  let t: TestApp;
  let base: string;
  let client: Client;
  let accountId: string;
  before(async () => {
    web = await startExampleWeb();
    t = await startTestApp({ fetcher: web.fetcher, env: { UPLOAD_LIMIT_BYTES: '4096' } });
    base = await listen(t);
    const account = await t.account({ quota: 100 });
    accountId = account.accountId;
    client = new Client({ name: 'file-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': account.apiKey } } }));
  });
  after(async () => {
    await (client as Client | undefined)?.close();
    await (t as TestApp | undefined)?.close();
    await (web as ExampleWeb | undefined)?.close();
  });

  const used = async () => {
    await t.services.usage.flush();
    return t.services.accounts.usedCredits(accountId);
  };
  const download = async (url: string) => {
    const link = new URL(url);
    return (await fetch(`${base}${link.pathname}${link.search}`)).text();
  };

  it('get_tool_schema says how to give the file', async () => {
    const schema = answerOf(await client.callTool({ name: 'get_tool_schema', arguments: { operationId: 'documents_txt_to_md' } })) as Structured;
    assert.equal(schema['mcpCallable'], true);
    assert.match(String(schema['fileInput']), /\{base64, fileName\}, \{url\} or \{fileId\}/);
  });

  it('converts a base64 file and answers a working downloadUrl, charged like REST', async () => {
    const before = await used();
    const text = 'Quarterly notes\n\nSales rose in every region.\n';
    const r = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { base64: Buffer.from(text).toString('base64'), fileName: 'notes.txt' } } });
    assert.equal(r.isError, undefined, JSON.stringify(answerOf(r)));
    const result = (answerOf(r) as { result: { downloadUrl: string; fileName: string } }).result;
    assert.equal(result.fileName, 'notes.md');
    assert.match(await download(result.downloadUrl), /Sales rose in every region\./);
    assert.equal((await used()) - before, t.services.catalog.get('documents_txt_to_md')!.credits);
  });

  it('fetches a file by URL through the fetcher, and refuses a metadata address uncharged', async () => {
    web.serve({ 'https://example.com/files/minutes.txt': { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Minutes of the board meeting\n' } });
    const r = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { url: web.rewrite('https://example.com/files/minutes.txt') } } });
    assert.equal(r.isError, undefined, JSON.stringify(answerOf(r)));
    const result = (answerOf(r) as { result: { downloadUrl: string; fileName: string } }).result;
    assert.equal(result.fileName, 'minutes.md');
    assert.match(await download(result.downloadUrl), /Minutes of the board meeting/);

    const before = await used();
    const refused = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { url: 'http://169.254.169.254/latest/meta-data' } } });
    assert.equal(refused.isError, true);
    assert.equal((answerOf(refused) as Structured)['error'], 'url_not_allowed');
    assert.equal(await used(), before);
  });

  it("takes an earlier result of the same account by fileId; another account's fileId is not found, uncharged", async () => {
    const first = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { base64: Buffer.from('Agenda\n\nItem one: budget.\n').toString('base64'), name: 'agenda.txt' } } });
    const { fileId } = (answerOf(first) as { result: { fileId: string } }).result;
    const again = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { fileId } } });
    assert.equal(again.isError, undefined, JSON.stringify(answerOf(again)));
    const result = (answerOf(again) as { result: { downloadUrl: string; fileName: string; fileId: string } }).result;
    assert.equal(result.fileName, 'agenda.md', 'named after the stored file');
    assert.notEqual(result.fileId, fileId);
    assert.match(await download(result.downloadUrl), /Item one: budget\./);

    const other = await t.account({ quota: 100 });
    const stranger = new Client({ name: 'other-client', version: '1.0.0' });
    await stranger.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': other.apiKey } } }));
    try {
      for (const id of [fileId, '00000000-0000-4000-8000-000000000000', '../../etc/passwd']) {
        const refused = await stranger.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { fileId: id } } });
        assert.equal(refused.isError, true);
        assert.equal((answerOf(refused) as Structured)['error'], 'file_not_found', id);
      }
      await t.services.usage.flush();
      assert.equal(await t.services.accounts.usedCredits(other.accountId), 0);
    } finally {
      await stranger.close();
    }
  });

  it('answers file_required, a bad base64, both sources and an oversized file as isError results', async () => {
    const call = (file?: Record<string, unknown>) => client.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, ...(file ? { file } : {}) } });
    const codeOf = async (file?: Record<string, unknown>) => {
      const r = await call(file);
      assert.equal(r.isError, true);
      return (answerOf(r) as Structured)['error'];
    };
    assert.equal(await codeOf(), 'file_required');
    assert.equal(await codeOf({ base64: 'not base64!' }), 'validation_error');
    assert.equal(await codeOf({ base64: 'aGk=', url: 'https://example.com/x' }), 'validation_error');
    assert.equal(await codeOf({ url: 'https://example.com/x', fileId: '00000000-0000-4000-8000-000000000000' }), 'validation_error');
    assert.equal(await codeOf({ base64: Buffer.alloc(6000, 'a').toString('base64') }), 'payload_too_large');
  });
});
