// What a suite of file tools over real HTTP needs: the app on a loopback port with a business
// account's key, the check that a refused upload is a 4xx JSON envelope leaving the service up
// and no work folder behind, and a look at the work folders themselves.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { json, listen, upload } from './http.ts';
import { startTestApp, type TestApp } from './test-app.ts';

export interface FileApp {
  t: TestApp;
  /** http://127.0.0.1:<port> */
  base: string;
  /** a business account's key */
  apiKey: string;
}

/**
 * startTestApp, listening, and a business account with `quota` credits. If listening or the
 * account fails, the app is closed here: the suite's after() only sees apps it was given.
 */
export async function startFileApp(options: { quota?: number; env?: Record<string, string> } = {}): Promise<FileApp> {
  // An engine job's limit is a hang guard here (5 min, not the 60 s default): on a loaded CI
  // machine a slow LibreOffice or Chromium job is still a correct one. The tests about limits set
  // their own ENGINE_JOB_TIMEOUT_MS and assert the 422 the mechanism answers.
  const t = await startTestApp({ env: { ENGINE_JOB_TIMEOUT_MS: '300000', ...options.env } });
  try {
    const base = await listen(t);
    const { apiKey } = await t.account({ plan: 'business', quota: options.quota ?? 100_000 });
    return { t, base, apiKey };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** The job folders left in the app's work root: a finished request, whatever its answer, leaves none. */
export async function workFolders(t: TestApp): Promise<string[]> {
  return readdir(join(t.dataDir, 'work')).catch(() => []);
}

export interface Refusal {
  status: number;
  error: string;
  detail: string;
  message: string;
}

/**
 * Uploads `file` to `path` and expects the 4xx JSON envelope (status false, code the HTTP
 * status); afterwards the service must still answer and no work folder may be left behind.
 */
export async function expectRefused(
  app: FileApp,
  path: string,
  file: { name: string; content: Buffer | string; field?: string },
  fields: Record<string, string> = {},
): Promise<Refusal> {
  const res = await upload(app.base, path, app.apiKey, file, fields);
  const body = await json(res);
  assert.ok(res.status >= 400 && res.status < 500, `expected 4xx, got ${res.status}: ${JSON.stringify(body)}`);
  assert.deepEqual([body.status, body.code], [false, res.status]);
  assert.equal((await fetch(`${app.base}/healthz`)).status, 200, 'the service is still up');
  assert.deepEqual(await workFolders(app.t), [], 'no work folder is left behind');
  return { status: res.status, error: body.error, detail: body.detail, message: body.message };
}
