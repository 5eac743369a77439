// Test web sites on 127.0.0.1 for the fetcher: an HTTP or HTTPS server that counts the
// connections it accepts (so a test can prove a refused URL never reached it) and announces each
// request (so a test waits for the request itself, never for a guessed delay), and a test CA made
// with openssl in a temp folder, whose leaf certificates name hosts such as shop.test.
import { execFileSync } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestSite {
  port: number;
  /** TCP connections accepted so far */
  connections: number;
  /** paths requested so far, in order */
  paths: string[];
  /** resolves with the request once one for `path` arrives */
  nextRequest(path: string): Promise<IncomingMessage>;
  close(): Promise<void>;
}

async function listen(server: http.Server | https.Server, handler: Handler): Promise<TestSite> {
  const events = new EventEmitter();
  const sockets = new Set<Socket>();
  const site: TestSite = {
    port: 0,
    connections: 0,
    paths: [],
    async nextRequest(path) {
      const [req] = (await once(events, `request:${path}`)) as [IncomingMessage];
      return req;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket: Socket) => {
    site.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    site.paths.push(path);
    events.emit(`request:${path}`, req);
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  site.port = (server.address() as AddressInfo).port;
  return site;
}

export function startHttpSite(handler: Handler): Promise<TestSite> {
  return listen(http.createServer(), handler);
}

export function startHttpsSite(handler: Handler, credentials: { key: string; cert: string }): Promise<TestSite> {
  return listen(https.createServer(credentials), handler);
}

export interface TestCa {
  /** the CA certificate (PEM), to be trusted by the fetcher */
  caPem: string;
  /** a leaf key and certificate (leaf then CA, PEM) for the given DNS names, valid for `days` */
  issue(names: string[], days: number): { key: string; cert: string };
  dispose(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A throwaway CA made with openssl (EC P-256 keys, fast to generate). */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-ca-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', '/CN=Fetcher Test CA/O=tool-service tests', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
  let serial = 0;
  return {
    caPem,
    issue(names, days) {
      const id = `leaf${++serial}`;
      const ext = `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`;
      writeFileSync(join(dir, `${id}.ext`), ext);
      openssl(['req', ...ec, '-keyout', `${id}.key`, '-out', `${id}.csr`, '-subj', `/CN=${names[0] ?? 'leaf'}`], dir);
      openssl(['x509', '-req', '-in', `${id}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(1000 + serial), '-out', `${id}.pem`, '-days', String(days), '-extfile', `${id}.ext`], dir);
      return { key: readFileSync(join(dir, `${id}.key`), 'utf8'), cert: readFileSync(join(dir, `${id}.pem`), 'utf8') + caPem };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
