// A real S3-compatible server for the tests: s3rver (npm, a dev dependency) speaking S3's HTTP
// protocol to the very @aws-sdk/client-s3 the service ships, since S3 itself is an outside service
// this machine cannot reach. It runs in a child process of its own (so the test process's memory
// measures the service alone, and a pause or kill is a real outage), on a free loopback port, with
// its objects in a temp folder. Like redis-server.ts, its process group is killed on stop() and on
// the test process's exit, so nothing is left running.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface S3Server {
  port: number;
  /** http://127.0.0.1:<port>, for AWS_ENDPOINT_URL_S3 */
  endpoint: string;
  bucket: string;
  /** the objects' folder (s3rver keeps one folder per object) */
  dir: string;
  /** The environment that points the service at this server's bucket (path-style, s3rver's fixed key). */
  env(prefix?: string): Record<string, string>;
  /** SIGSTOP: the port still accepts connections, nothing answers (a hung storage). */
  pause(): void;
  resume(): void;
  /** SIGKILL: connections are refused from now on. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (the objects are still there), after kill(). */
  restart(): Promise<void>;
  /** Stops it for good and removes its folder. */
  stop(): Promise<void>;
}

// s3rver accepts only this key pair (its documented defaults), so the tests sign like real clients do.
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

const running = new Set<ChildProcess>();
function killAll(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
}
process.once('exit', killAll);
process.once('SIGTERM', () => {
  killAll();
  process.kill(process.pid, 'SIGTERM');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function script(port: number, dir: string, bucket: string): string {
  return `
    const { default: S3rver } = await import('s3rver');
    const server = new S3rver({ address: '127.0.0.1', port: ${port}, directory: ${JSON.stringify(dir)}, silent: true, configureBuckets: [{ name: ${JSON.stringify(bucket)} }] });
    await server.run();
    process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
  `;
}

/** Whether the server answers S3: an unsigned GET of the bucket is refused with S3's XML (403), not a dead port. */
async function answers(endpoint: string, bucket: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/${bucket}`, { signal: AbortSignal.timeout(1000) });
    const text = await res.text();
    return text.includes('<Error>') || text.includes('<ListBucketResult');
  } catch {
    return false;
  }
}

async function spawnOn(port: number, dir: string, bucket: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script(port, dir, bucket)], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.on('exit', () => running.delete(child));
  let exited = false;
  child.once('exit', () => (exited = true));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error(`s3rver exited before answering on port ${port}:\n${output}`);
    if (await answers(endpoint, bucket)) return child;
    if (Date.now() > deadline) {
      killGroup(child, 'SIGKILL');
      throw new Error(`s3rver did not answer on port ${port} within 20 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  killGroup(child, signal);
  await exit;
}

export async function startS3Server(bucket = 'results'): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'tool-service-s3-'));
  let port = 0;
  let child: ChildProcess | undefined;
  // A free port can be taken between the probe and s3rver's bind: try another then.
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await spawnOn(port, dir, bucket);
    } catch (err) {
      if (attempt >= 2) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  let current: ChildProcess = child;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    port,
    endpoint,
    bucket,
    dir,
    env: (prefix) => ({
      FILE_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    pause: () => killGroup(current, 'SIGSTOP'),
    resume: () => killGroup(current, 'SIGCONT'),
    kill: () => ended(current, 'SIGKILL'),
    async restart() {
      await ended(current, 'SIGKILL');
      current = await spawnOn(port, dir, bucket);
    },
    async stop() {
      killGroup(current, 'SIGCONT');
      await ended(current, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
