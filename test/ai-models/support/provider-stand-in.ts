// Loopback stand-ins for the model providers, speaking their real HTTP APIs as the official
// clients call them: Gemini's generateContent and resumable file upload (v1beta), and OpenAI's
// chat completions. Each records every request (method, path, headers, body) for the tests to
// assert, and answers with a scripted reply when one is queued (an error, a hang), else success.
// Also a loopback web server for the videos the tests make with ffmpeg.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json(): any;
}

/** An answer as given; 'hang': none ever; delayMs: the usual answer, that long later. */
export type Scripted = { status: number; headers?: Record<string, string>; body: unknown } | 'hang' | { delayMs: number };

/** A file uploaded to the Gemini stand-in: what its resumable upload delivered, and the states it was shown in. */
export interface UploadedFile {
  name: string;
  uri: string;
  mimeType: string;
  /** the bytes of every chunk, in offset order */
  bytes: Buffer;
  /** the state each files.get answered, in order */
  looks: string[];
}

export interface StandIn {
  baseUrl: string;
  requests: Recorded[];
  /** the next answers, in order, before the default success */
  queue(...replies: Scripted[]): void;
  /** the text the model answers, and the tokens it reports */
  answer: string;
  tokens: { input: number; output: number; total: number };
  /** Gemini: files uploaded, by name (files/f1) */
  uploads: Map<string, UploadedFile>;
  /** Gemini: how many files.get answers show a new upload PROCESSING before it is ACTIVE (0: ACTIVE on the first look) */
  processingLooks: number;
  /** Gemini: the state an upload ends in once processed (ACTIVE, or FAILED as for a file it cannot read) */
  processedAs: 'ACTIVE' | 'FAILED';
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function start(kind: 'gemini' | 'openai'): Promise<StandIn> {
  const requests: Recorded[] = [];
  const scripted: Scripted[] = [];
  const hanging: ServerResponse[] = [];
  const files = new Map<string, { name: string; uri: string; mimeType: string; state: string; sizeBytes: string }>();
  const uploads = new Map<string, UploadedFile>();
  // Per upload id: the chunks received so far (the resumable protocol sends them in order, at their offsets).
  const chunks = new Map<string, Buffer[]>();
  let baseUrl = '';
  const standIn: StandIn = {
    baseUrl: '',
    requests,
    answer: 'A test card with colour bars and a moving counter.',
    tokens: kind === 'openai' ? { input: 1200, output: 40, total: 1240 } : { input: 1800, output: 40, total: 1840 },
    queue: (...replies) => scripted.push(...replies),
    uploads,
    processingLooks: 0,
    processedAs: 'ACTIVE',
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', baseUrl);
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body, json: () => JSON.parse(body.toString('utf8')) });
    const next = scripted.shift();
    if (next === 'hang') {
      hanging.push(res);
      return;
    }
    if (next !== undefined && 'delayMs' in next) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    else if (next) return send(res, next.status, next.body, next.headers);
    if (kind === 'openai') {
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        const model = (JSON.parse(body.toString('utf8')) as { model: string }).model;
        return send(res, 200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: standIn.answer }, finish_reason: 'stop' }],
          usage: { prompt_tokens: standIn.tokens.input, completion_tokens: standIn.tokens.output, total_tokens: standIn.tokens.total },
        });
      }
      return send(res, 404, { error: { message: `no route ${url.pathname}` } });
    }
    // Gemini (v1beta): generateContent, the resumable upload (start, then upload+finalize) and files.get.
    if (req.method === 'POST' && /^\/v1beta\/models\/[^/:]+:generateContent$/.test(url.pathname)) {
      return send(res, 200, {
        candidates: [{ content: { role: 'model', parts: [{ text: standIn.answer }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: standIn.tokens.input, candidatesTokenCount: standIn.tokens.output, totalTokenCount: standIn.tokens.total },
        modelVersion: 'stand-in',
      });
    }
    if (req.method === 'POST' && url.pathname === '/upload/v1beta/files' && req.headers['x-goog-upload-command'] === 'start') {
      const id = `f${files.size + 1}`;
      const meta = JSON.parse(body.toString('utf8')) as { file?: { mimeType?: string } };
      files.set(id, { name: `files/${id}`, uri: `${baseUrl}/v1beta/files/${id}`, mimeType: meta.file?.mimeType ?? String(req.headers['x-goog-upload-header-content-type']), state: 'PROCESSING', sizeBytes: String(req.headers['x-goog-upload-header-content-length']) });
      chunks.set(id, []);
      return send(res, 200, {}, { 'x-goog-upload-url': `${baseUrl}/upload/v1beta/files?upload_id=${id}`, 'x-goog-upload-status': 'active' });
    }
    if (req.method === 'POST' && url.pathname === '/upload/v1beta/files') {
      const id = url.searchParams.get('upload_id') ?? '';
      const file = files.get(id);
      const received = chunks.get(id);
      if (!file || !received) return send(res, 404, { error: { code: 404, message: 'no upload', status: 'NOT_FOUND' } });
      // As Google's upload server does: a chunk must start where the last one ended.
      const offset = Number(req.headers['x-goog-upload-offset']);
      const have = received.reduce((n, c) => n + c.byteLength, 0);
      if (offset !== have) return send(res, 400, { error: { code: 400, message: `offset ${offset}, expected ${have}`, status: 'INVALID_ARGUMENT' } });
      received.push(body);
      const command = String(req.headers['x-goog-upload-command'] ?? '');
      if (command === 'upload') return send(res, 200, {}, { 'x-goog-upload-status': 'active' });
      if (command !== 'upload, finalize') return send(res, 400, { error: { code: 400, message: `command ${command}`, status: 'INVALID_ARGUMENT' } });
      const bytes = Buffer.concat(received);
      if (String(bytes.byteLength) !== file.sizeBytes) return send(res, 400, { error: { code: 400, message: `${bytes.byteLength} bytes, ${file.sizeBytes} announced`, status: 'INVALID_ARGUMENT' } });
      uploads.set(file.name, { name: file.name, uri: file.uri, mimeType: file.mimeType, bytes, looks: [] });
      return send(res, 200, { file }, { 'x-goog-upload-status': 'final' });
    }
    const get = /^\/v1beta\/files\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      const file = files.get(get[1] ?? '');
      if (!file) return send(res, 404, { error: { code: 404, message: 'no file', status: 'NOT_FOUND' } });
      // PROCESSING for the first processingLooks looks, then processedAs (a short video is at once).
      const looks = uploads.get(file.name)?.looks;
      if ((looks?.length ?? 0) >= standIn.processingLooks) file.state = standIn.processedAs;
      looks?.push(file.state);
      return send(res, 200, file);
    }
    return send(res, 404, { error: { code: 404, message: `no route ${url.pathname}`, status: 'NOT_FOUND' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.baseUrl = kind === 'openai' ? `${baseUrl}/v1` : baseUrl;
  return standIn;
}

export const startGeminiStandIn = (): Promise<StandIn> => start('gemini');
export const startOpenAiStandIn = (): Promise<StandIn> => start('openai');

export interface VideoWeb {
  base: string;
  /** path → [content type, bytes] */
  serve(path: string, type: string, bytes: Buffer): string;
  close(): Promise<void>;
}

export async function startVideoWeb(): Promise<VideoWeb> {
  const routes = new Map<string, [string, Buffer]>();
  const server = createServer((req, res) => {
    const route = routes.get(req.url ?? '');
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': route[0], 'content-length': String(route[1].byteLength) });
    res.end(route[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    serve(path, type, bytes) {
      routes.set(path, [type, bytes]);
      return `${base}${path}`;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A test-card video made with ffmpeg: `seconds` long, `width`x`height`, H.264 in MP4 at `rate` frames a second (10; or noise at 25, large). */
export function makeVideo(seconds: number, width = 640, height = 360, options: { noise?: boolean; rate?: number } = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'ai-video-'));
  try {
    const out = join(dir, 'v.mp4');
    const source = options.noise ? `nullsrc=size=${width}x${height}:rate=${options.rate ?? 25},geq=random(1)*255:128:128` : `testsrc=size=${width}x${height}:rate=${options.rate ?? 10}`;
    const quality = options.noise ? ['-qp', '0', '-preset', 'ultrafast'] : ['-preset', 'ultrafast'];
    execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', source, '-t', String(seconds), '-pix_fmt', 'yuv420p', '-c:v', 'libx264', ...quality, '-movflags', '+faststart', '-y', out]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A JPEG's width and height, read from its start-of-frame marker. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } {
  let at = 2;
  while (at + 9 < jpeg.length) {
    if (jpeg[at] !== 0xff) throw new Error('not a JPEG marker');
    const marker = jpeg[at + 1]!;
    const length = jpeg.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: jpeg.readUInt16BE(at + 5), width: jpeg.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  throw new Error('no start-of-frame marker');
}
