// Nothing in src/ may open an outbound connection except the egress-safe fetcher
// (src/analysis/fetcher.ts). A static scan of every source file: no value import of a network
// client module, no call of fetch(), http(s).request/get, net/tls.connect, dgram sockets or
// WebSocket. The few modules that talk to something else have an entry below saying why.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';

// In a network namespace with only loopback: a refusal that regressed could still reach nothing.
await runInIsolatedNetwork(import.meta.filename);

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Files allowed to hold a network client, and why. Adding one here is a security decision. */
const ALLOWED_FILES: Record<string, string> = {
  'src/analysis/fetcher.ts': 'the egress-safe fetcher itself',
};

/** Modules allowed in one file only, and why. */
const ALLOWED_MODULES: Record<string, Record<string, string>> = {
  'src/accounts/mailer.ts': { nodemailer: 'SMTP to the operator-configured SMTP_URL only (account mail), never to a caller-chosen host' },
  'src/engines/chromium.ts': { 'playwright-core': 'drives the local Chromium over its pipe; every page request is aborted by the route (and the sandbox has no network)' },
  'src/engines/chromium-launcher.ts': { 'playwright-core': 'launches the local Chromium (see chromium.ts)' },
  // The shared infrastructure of many nodes: each client reaches only the one address the
  // operator configured, never a caller-chosen host.
  'src/db/database.ts': { pg: 'PostgreSQL at the operator-configured DATABASE_URL only' },
  'src/accounts/redis-connection.ts': { ioredis: 'Redis at the operator-configured REDIS_URL only (shared rate limits)' },
  'src/files/s3-file-store.ts': { '@aws-sdk/client-s3': "the operator's FILE_STORE bucket at AWS_ENDPOINT_URL_S3 (or AWS's) only" },
  'src/files/s3-upload.ts': { '@aws-sdk/client-s3': 'uploads to the FILE_STORE bucket (see s3-file-store.ts)' },
  // The provider clients are given a fetch that is the egress-safe fetcher, allowing only the
  // configured provider host (src/ai/provider-fetch.ts): their own transport never runs.
  'src/ai/providers.ts': { '@google/genai': 'its fetch is the egress-safe fetcher (provider-fetch.ts)', openai: 'its fetch is the egress-safe fetcher (provider-fetch.ts)' },
};

/** Names of network modules that are not clients and may be imported anywhere. */
const HARMLESS_NAMES = new Set(['STATUS_CODES', 'METHODS', 'maxHeaderSize', 'isIP', 'isIPv4', 'isIPv6', 'checkServerIdentity', 'rootCertificates']);

const NETWORK_MODULES = /^(node:)?(net|tls|http|https|http2|dgram)$|^(undici|node-fetch|axios|got|ky|superagent|request|ws|socket\.io-client|nodemailer|playwright-core|playwright|puppeteer|puppeteer-core|ioredis|redis|pg|mysql2?|@aws-sdk\/client-[a-z0-9-]+|@google\/genai|openai)$/;

const CLIENT_CALLS: [RegExp, string][] = [
  [/(?<![.\w])fetch\s*\(/, 'fetch()'],
  [/\b(http|https|http2)\.(request|get|connect)\s*\(/, 'http(s).request/get'],
  [/\b(net|tls)\.(connect|createConnection)\s*\(/, 'net/tls.connect'],
  [/\bnew\s+(net\.)?Socket\s*\(/, 'new net.Socket'],
  [/\b(dgram\.)?createSocket\s*\(/, 'dgram.createSocket'],
  [/\bnew\s+(WebSocket|EventSource|XMLHttpRequest)\s*\(/, 'WebSocket/EventSource/XMLHttpRequest'],
  [/\bimport\s*\(\s*['"](node:)?(net|tls|http|https|http2|dgram)['"]\s*\)/, 'dynamic import of a network module'],
  [/\brequire\s*\(\s*['"](node:)?(net|tls|http|https|http2|dgram)['"]\s*\)/, 'require of a network module'],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every `import ... from 'module'` that brings in a value (type-only imports open nothing). */
function valueImports(text: string): { module: string; names: string[] | null }[] {
  const found: { module: string; names: string[] | null }[] = [];
  for (const match of text.matchAll(/^\s*import\s+(type\s+)?([\s\S]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    if (match[1] !== undefined) continue;
    const clause = match[2] ?? '';
    const module = match[3] ?? '';
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    // A default or namespace import may use anything the module has.
    const names = named?.[1] === undefined ? null : named[1].split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type ')).map((n) => n.split(/\s+as\s+/)[0] ?? n);
    found.push({ module, names });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push({ module: match[1] ?? '', names: null });
  return found;
}

/** What a file does that could open an outbound connection, not counting the allowed entries. */
export function egressViolations(file: string, text: string): string[] {
  if (ALLOWED_FILES[file] !== undefined) return [];
  const problems: string[] = [];
  for (const { module, names } of valueImports(text)) {
    if (!NETWORK_MODULES.test(module) || ALLOWED_MODULES[file]?.[module] !== undefined) continue;
    if (names !== null && names.every((n) => HARMLESS_NAMES.has(n))) continue;
    problems.push(`imports ${names === null ? 'all of' : `{ ${names.join(', ')} } from`} ${module}`);
  }
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    // A method named fetch (`fetch(url) {` or `fetch(url): Promise<...>;` opening a line) is a definition, not a call.
    .replace(/^\s*(async\s+)?fetch\s*\(.*(\)\s*\{|\)\s*:\s*[\w<].*)$/gm, '');
  for (const [pattern, what] of CLIENT_CALLS) if (pattern.test(code)) problems.push(`calls ${what}`);
  return problems;
}

describe('no egress except through the fetcher', () => {
  it('no module in src/ opens an outbound connection other than through src/analysis/fetcher.ts', () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, 'the scan sees the sources');
    const violations = files.flatMap((path) => {
      const file = relative(ROOT, path).split('\\').join('/');
      return egressViolations(file, readFileSync(path, 'utf8')).map((problem) => `${file}: ${problem}`);
    });
    assert.deepEqual(violations, []);
  });

  it('every allowed exception still exists (a stale entry would hide a new file of that name)', () => {
    const files = new Set(sourceFiles(SRC).map((path) => relative(ROOT, path).split('\\').join('/')));
    for (const file of [...Object.keys(ALLOWED_FILES), ...Object.keys(ALLOWED_MODULES)]) assert.ok(files.has(file), `${file} is listed but gone`);
  });

  it('the scan catches each way out (checked on generated sources)', () => {
    const samples: [string, RegExp][] = [
      ["import http from 'node:http';\nhttp.get('http://x');", /imports all of node:http|http\(s\)\.request/],
      ["import { request } from 'node:https';", /imports \{ request \} from node:https/],
      ["import * as net from 'net';", /imports all of net/],
      ["const r = await fetch('http://169.254.169.254/');", /calls fetch\(\)/],
      ["import { connect } from 'node:tls';", /imports \{ connect \} from node:tls/],
      ["const m = await import('node:net');", /dynamic import/],
      ["import { Client } from 'undici';", /imports \{ Client \} from undici/],
      ["import dgram from 'node:dgram';\ndgram.createSocket('udp4');", /dgram/],
      ["const ws = new WebSocket('wss://x');", /WebSocket/],
      ["import nodemailer from 'nodemailer';", /imports all of nodemailer/],
    ];
    for (const [text, expected] of samples) {
      const problems = egressViolations('src/catalog/some-tool.ts', text);
      assert.ok(problems.some((p) => expected.test(p)), `${text} -> ${problems.join('; ')}`);
    }
    assert.deepEqual(egressViolations('src/rest/x.ts', "import { STATUS_CODES } from 'node:http';\nimport type { Socket } from 'node:net';"), []);
    assert.deepEqual(egressViolations('src/x.ts', "// fetch('http://x') in a comment\nconst a = b.fetch;\n  fetch(url, options = {}) {\n  fetch(url: string): Promise<X>;"), []);
    assert.ok(egressViolations('src/x.ts', "  fetch('http://x');").length > 0, 'a call opening a line is still a call');
  });
});
