// A real S3-compatible server for the tests: s3rver (npm, a dev dependency) speaking S3's HTTP
// protocol to the very @aws-sdk/client-s3 the service ships, since S3 itself is an outside service
// this machine cannot reach. It runs in a child process of its own (so the test process's memory
// measures the service alone, and a pause or kill is a real outage), on a free loopback port, with
// its objects in a temp folder. Like redis-server.ts, its process group is killed on stop() and on
// the test process's exit, so nothing is left running (child-server.ts).
import { fileURLToPath } from 'node:url';
import { startChildServer } from './child-server.ts';

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

// Written once run() has resolved: the bucket is made and the port listens (silent: true keeps
// s3rver's own logging off, so this is the one line on stdout).
const READY_LINE = 's3rver ready';

function script(port: number, dir: string, bucket: string): string {
  return `
    const { default: S3rver } = await import('s3rver');
    const server = new S3rver({ address: '127.0.0.1', port: ${port}, directory: ${JSON.stringify(dir)}, silent: true, configureBuckets: [{ name: ${JSON.stringify(bucket)} }] });
    await server.run();
    process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
    console.log(${JSON.stringify(READY_LINE)});
  `;
}

export async function startS3Server(bucket = 'results'): Promise<S3Server> {
  const server = await startChildServer({
    name: 's3rver',
    dirPrefix: 'tool-service-s3-',
    ready: new RegExp(`^${READY_LINE}$`, 'm'),
    withinMs: 20_000,
    command: (port, dir) => ({ command: process.execPath, args: ['--input-type=module', '-e', script(port, dir, bucket)], cwd: ROOT }),
  });
  const { port, dir } = server;
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
    pause: server.pause,
    resume: server.resume,
    kill: server.kill,
    restart: server.restart,
    stop: server.stop,
  };
}
