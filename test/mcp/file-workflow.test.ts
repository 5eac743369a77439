// Issue 11 §1, the file workflow: the document-conversion-check playbook through MCP run_playbook,
// end to end on the real engines (LibreOffice converts the docx, poppler reads the PDF's text
// back, text_utilities_text_contains_check judges it in the findings model). Each step goes
// through core/invoke and is charged as its REST call; the PDF reaches the second step by its
// fileId and the text reaches the third as {{steps.extract.result.text}}. A document that keeps
// its text passes the gate (and is recorded); a phrase it lacks fails the gate naming the phrase.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { groupFindingId } from '../../src/analysis/finding-groups.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { minimalDocx } from '../support/fixtures.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';

const SKILL = 'document-conversion-check';
const PARAGRAPHS = ['Quarterly revenue grew by twelve percent.', 'The board approved the budget on Tuesday.'];
const DOCX = minimalDocx(PARAGRAPHS).toString('base64');
const STEP_OPS = ['documents_docx_to_pdf', 'documents_pdf_to_txt', 'text_utilities_text_contains_check'];

describe('the file workflow: convert a document and check the result holds the text', () => {
  let t: TestApp;
  let client: Client;
  let accountId: string;
  let price: number;
  before(async () => {
    t = await startTestApp();
    const base = await listen(t);
    const account = await t.account({ quota: 1000 });
    accountId = account.accountId;
    price = STEP_OPS.reduce((sum, op) => sum + (t.services.catalog.get(op)?.credits ?? Number.NaN), 0);
    client = new Client({ name: 'file-workflow', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': account.apiKey } } }));
  });
  after(async () => {
    await (client as Client | undefined)?.close();
    await (t as TestApp | undefined)?.close();
  });

  // The ledger's leases go back first, so `used` is what the calls cost, not what was leased for them.
  const used = async () => {
    await t.services.usage.flush();
    await t.services.ledger.flush();
    return t.services.accounts.usedCredits(accountId);
  };
  const run = async (input: Record<string, unknown>): Promise<{ isError: boolean; body: Answer }> => {
    const r = await client.callTool({ name: 'run_playbook', arguments: { skillId: SKILL, input } }, undefined, { timeout: 120_000 });
    return { isError: r.isError === true, body: answerOf(r) };
  };
  const stepsOf = (body: Answer) => (body['jobReport'].steps as Answer[]).map((s) => ({ stepId: s['stepId'], operationId: s['operationId'], status: s['status'], creditsCharged: s['creditsCharged'] }));

  it('a docx that keeps its text: every step answers, the gate passes and the feature is recorded, charged as the three REST calls', async () => {
    const before = await used();
    // The phrases as a person types them: other case, and a line break inside none of them.
    const { isError, body } = await run({ file: { base64: DOCX, fileName: 'report.docx' }, expected: 'quarterly revenue grew by twelve percent\nThe board approved the budget' });
    assert.equal(isError, false, JSON.stringify(body).slice(0, 800));
    assert.equal(body['status'], 'ok', JSON.stringify(body['jobReport']?.notes));
    assert.equal(body['skillId'], SKILL);
    assert.deepEqual(stepsOf(body), [
      { stepId: 'convert', operationId: STEP_OPS[0], status: 'ok', creditsCharged: t.services.catalog.get(STEP_OPS[0]!)!.credits },
      { stepId: 'extract', operationId: STEP_OPS[1], status: 'ok', creditsCharged: t.services.catalog.get(STEP_OPS[1]!)!.credits },
      { stepId: 'check', operationId: STEP_OPS[2], status: 'ok', creditsCharged: 1 },
    ]);
    assert.deepEqual(body['jobReport'].findings, []);
    assert.deepEqual(body['jobReport'].scores, { 'best-practices': 100, overall: 100 });
    assert.equal(body['jobReport'].incomplete, false);
    assert.equal(body['verification'].evidence.gate, 'pass');
    assert.equal(body['loop'].gate, 'pass');
    assert.equal(body['loop'].initiate, false);
    assert.match(String(body['featureMemoryRecord']?.featureId), /^feat_[0-9a-f]{32}$/);
    assert.equal(body['credits'].charged, price);
    assert.equal((await used()) - before, price);
  });

  it('a phrase the document lacks: the gate fails naming it, as the rank-1 fix, and nothing is recorded', async () => {
    const missing = 'Net loss of four million';
    const { body } = await run({ file: { base64: DOCX, fileName: 'report.docx' }, expected: `The board approved the budget\n${missing}` });
    assert.equal(body['status'], 'ok', 'every step ran: the run is whole, its verdict is the gate');
    // One finding per rule (analysis/finding-groups.ts): its id is the rule's, whatever the phrases.
    const findingId = groupFindingId('text-phrase-missing', 'best-practices');
    assert.deepEqual(
      (body['jobReport'].findings as Answer[]).map((f) => ({ findingId: f['findingId'], rule: f['rule'], severity: f['severity'], category: f['category'], title: f['title'], value: f['evidence'].value })),
      [{ findingId, rule: 'text-phrase-missing', severity: 'high', category: 'best-practices', title: `The text lacks "${missing}"`, value: missing }],
    );
    assert.deepEqual(body['jobReport'].scores, { 'best-practices': 50, overall: 50 });
    assert.equal(body['verification'].evidence.gate, 'fail');
    assert.equal(body['loop'].gate, 'fail');
    assert.equal(body['loop'].initiate, true);
    assert.equal(body['loop'].nextActions.length, 1);
    const fix = body['loop'].nextActions[0];
    assert.equal(fix.findingId, findingId);
    assert.equal(fix.patchType, 'content');
    assert.equal(fix.acceptance, `The text contains "${missing}"`);
    assert.equal(body['featureMemoryRecord'], undefined);
    assert.equal(body['credits'].charged, price);
  });

  it('a file that is not a docx: the conversion is refused uncharged, the later steps do not run, and the gate does not pass', async () => {
    const before = await used();
    const { isError, body } = await run({ file: { base64: Buffer.from('plain text, not a Word document\n').toString('base64'), fileName: 'notes.docx' }, expected: 'plain text' });
    assert.equal(isError, true, 'a job whose every step failed is an error result');
    assert.equal(body['status'], 'error');
    const steps = body['jobReport'].steps as Answer[];
    assert.deepEqual(
      steps.map((s) => [s['stepId'], s['status'], s['errorCode'] ?? null, s['creditsCharged']]),
      [
        ['convert', 'error', 'unsupported_file_type', 0],
        ['extract', 'skipped', null, 0],
        ['check', 'skipped', null, 0],
      ],
    );
    const notes = body['jobReport'].notes as string[];
    assert.ok(notes.includes('step "extract" skipped: it reads the result of step "convert", which did not answer'), JSON.stringify(notes));
    assert.ok(notes.includes('step "check" skipped: it reads the result of step "extract", which did not answer'), JSON.stringify(notes));
    assert.notEqual(body['verification'].evidence.gate, 'pass');
    assert.equal(body['credits'].charged, 0);
    assert.equal(await used(), before);
  });

  it('asks for the file and the phrases before running anything', async () => {
    const { body } = await run({});
    assert.equal(body['status'], 'need_input');
    assert.equal(body['code'], 'missing_input');
    assert.deepEqual(body['missing'], ['file', 'expected']);
  });
});
