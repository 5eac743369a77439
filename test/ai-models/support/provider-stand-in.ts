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

export type Scripted = { status: number; headers?: Record<string, string>; body: unknown } | 'hang';

export interface StandIn {
  baseUrl: string;
  requests: Recorded[];
  /** the next answers, in order, before the default success */
  queue(...replies: Scripted[]): void;
  /** the text the model answers, and the tokens it reports */
  answer: string;
  tokens: { input: number; output: number; total: number };
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
  let baseUrl = '';
  const standIn: StandIn = {
    baseUrl: '',
    requests,
    answer: 'A test card with colour bars and a moving counter.',
    tokens: kind === 'openai' ? { input: 1200, output: 40, total: 1240 } : { input: 1800, output: 40, total: 1840 },
    queue: (...replies) => scripted.push(...replies),
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
    if (next) return send(res, next.status, next.body, next.headers);
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
      return send(res, 200, {}, { 'x-goog-upload-url': `${baseUrl}/upload/v1beta/files?upload_id=${id}`, 'x-goog-upload-status': 'active' });
    }
    if (req.method === 'POST' && url.pathname === '/upload/v1beta/files') {
      const file = files.get(url.searchParams.get('upload_id') ?? '');
      if (!file) return send(res, 404, { error: { code: 404, message: 'no upload', status: 'NOT_FOUND' } });
      return send(res, 200, { file }, { 'x-goog-upload-status': 'final' });
    }
    const get = /^\/v1beta\/files\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      const file = files.get(get[1] ?? '');
      if (!file) return send(res, 404, { error: { code: 404, message: 'no file', status: 'NOT_FOUND' } });
      // Processed on the first look, as a short video is.
      file.state = 'ACTIVE';
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

/** A test-card video made with ffmpeg: `seconds` long, `width`x`height`, H.264 in MP4 (or noise, large). */
export function makeVideo(seconds: number, width = 640, height = 360, options: { noise?: boolean } = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'ai-video-'));
  try {
    const out = join(dir, 'v.mp4');
    const source = options.noise ? `nullsrc=size=${width}x${height}:rate=25,geq=random(1)*255:128:128` : `testsrc=size=${width}x${height}:rate=10`;
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
