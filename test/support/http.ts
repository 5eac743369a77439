import type { TestApp } from './test-app.ts';

/** Starts the test app on a real loopback port (once) and returns its base URL. */
export async function listen(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

/** POSTs a multipart upload over real HTTP, as a client would. */
export async function upload(
  base: string,
  path: string,
  apiKey: string | undefined,
  file: { field?: string; name: string; content: Buffer | string; type?: string } | undefined,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append(file.field ?? 'file', new Blob([file.content], { type: file.type ?? 'application/octet-stream' }), file.name);
  return fetch(`${base}${path}`, { method: 'POST', body: form, headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers } });
}

/** A JSON body for assertions (fetch types it as unknown). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json(res: Response): Promise<any> {
  return res.json();
}

/**
 * Uploads `file` to a conversion route over real HTTP, expects 200, and downloads the result by
 * its presigned downloadUrl with a plain GET and no key, as a client would.
 */
export async function convertAndDownload(
  base: string,
  path: string,
  apiKey: string,
  file: { name: string; content: Buffer | string },
  fields: Record<string, string> = {},
): Promise<Buffer> {
  const res = await upload(base, path, apiKey, file, fields);
  const body = await json(res);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return downloadResult(base, body, path);
}

/**
 * Downloads a conversion's result by the presigned downloadUrl of its answer, with a plain GET
 * and no key as a client would, against `base` (the test server's port, not PUBLIC_BASE_URL's).
 */
export async function downloadResult(base: string, body: { result: { downloadUrl: string } }, label = 'the result'): Promise<Buffer> {
  const url = new URL(body.result.downloadUrl);
  const download = await fetch(`${base}${url.pathname}${url.search}`);
  if (download.status !== 200) throw new Error(`the downloadUrl of ${label} answered ${download.status}`);
  return Buffer.from(await download.arrayBuffer());
}
