// The README is the first thing a newcomer runs, so its examples are run here as they are written:
// every ```sh block's commands go through bash and curl against a real `serve` (a free port, a
// temporary DATA_DIR, the bootstrap key it writes), and each answer must be a 2xx holding what the
// README's comment under the command shows. A block this test can neither run nor names below as
// skipped by design fails it, so a new example cannot slip in unchecked. The MCP configuration
// blocks (```json) must parse and point at /mcp.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type Server } from '../support/server-process.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** How the README writes the service's address; the test's server is on another port. */
const README_BASE = 'http://localhost:8080';

/** sh blocks that cannot run in a test, by the command they start with, and why. */
const SKIPPED_BY_DESIGN: readonly { command: string; reason: string }[] = [
  { command: './scripts/start.sh', reason: 'installs system packages and serves on port 8080 in the foreground; this test starts the same serve on a free port instead' },
  { command: './scripts/test.sh', reason: 'runs the whole suite, this file included' },
  { command: 'claude mcp add', reason: "needs the Claude Code CLI and writes to its user's configuration; its /mcp URL is checked below" },
];

interface Block {
  lang: string;
  text: string;
  /** 1-based line of the opening fence, for messages */
  line: number;
}

interface Command {
  text: string;
  /** the comment lines right under the command: what the README says it answers */
  shows: string[];
}

function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    assert.ok(end > i, `README.md: the code block at line ${i + 1} is never closed`);
    blocks.push({ lang: open[1] ?? '', text: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return blocks;
}

/** A block's commands: continuation lines (a trailing backslash) joined, comment lines kept as what the command before them shows. */
function commandsOf(block: Block): Command[] {
  const commands: Command[] = [];
  let pending = '';
  for (const raw of block.text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && line.startsWith('#')) {
      commands.at(-1)?.shows.push(line.replace(/^#\s?/, ''));
      continue;
    }
    if (pending === '' && line === '') continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    commands.push({ text: `${pending}${line}`, shows: [] });
    pending = '';
  }
  return commands;
}

/** A command this test runs as written: a curl call, a file written with printf, or a variable set from a file. */
function runnable(command: string): 'curl' | 'printf' | 'assign' | null {
  if (/^curl\s/.test(command)) return 'curl';
  if (/^printf\s/.test(command)) return 'printf';
  if (/^[A-Z_]+=\$\(cat [\w./-]+\)$/.test(command)) return 'assign';
  return null;
}

function skipReason(block: Block): string | undefined {
  const first = commandsOf(block)[0]?.text ?? '';
  return SKIPPED_BY_DESIGN.find((s) => first.startsWith(s.command))?.reason;
}

/**
 * The literal fields a README comment shows (`"emi":8791.59`, `"fileName":"hello.docx"`); fields
 * whose value the README elides with … (ids, times, signed links) are not compared.
 */
function shownFields(shows: string[]): [string, unknown][] {
  const text = shows.join(' ');
  if (!text.trimStart().startsWith('{')) return [];
  const fields: [string, unknown][] = [];
  for (const m of text.matchAll(/"([A-Za-z_]\w*)":("(?:[^"\\…]|\\.)*"|-?\d+(?:\.\d+)?(?=[,}\]])|true|false|null)/g)) {
    fields.push([m[1] ?? '', JSON.parse(m[2] ?? 'null') as unknown]);
  }
  return fields;
}

/** Whether `key` holds `value` anywhere in the answer. */
function holds(node: unknown, key: string, value: unknown): boolean {
  if (Array.isArray(node)) return node.some((item) => holds(item, key, value));
  if (typeof node !== 'object' || node === null) return false;
  const record = node as Record<string, unknown>;
  if (key in record && JSON.stringify(record[key]) === JSON.stringify(value)) return true;
  return Object.values(record).some((child) => holds(child, key, value));
}

/** What a downloaded file must start with, by its extension: the README's result really is that kind of file. */
const MAGIC: Record<string, string> = { docx: 'PK', xlsx: 'PK', pptx: 'PK', zip: 'PK', epub: 'PK', pdf: '%PDF' };

interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { cwd, env }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

const BLOCKS = codeBlocks(README);
const SH = BLOCKS.filter((b) => b.lang === 'sh');
const RUN = SH.filter((b) => skipReason(b) === undefined);

describe('the README examples', () => {
  it('every sh block is run by this test or skipped by design with its reason', () => {
    assert.ok(SH.length >= 4, `README.md has ${SH.length} sh blocks`);
    for (const block of RUN) {
      for (const command of commandsOf(block)) {
        assert.ok(
          runnable(command.text) !== null,
          `README.md line ${block.line}: "${command.text}" is neither run by this test (curl, printf, VAR=$(cat file)) nor listed in SKIPPED_BY_DESIGN with a reason`,
        );
      }
    }
    for (const skipped of SKIPPED_BY_DESIGN) {
      assert.ok(SH.some((b) => skipReason(b) === skipped.reason), `SKIPPED_BY_DESIGN names "${skipped.command}", which no sh block of README.md starts with any more`);
    }
  });

  it('every json block is an MCP client configuration pointing at /mcp', () => {
    const json = BLOCKS.filter((b) => b.lang === 'json');
    assert.ok(json.length >= 1, 'README.md shows an MCP configuration');
    for (const block of json) {
      const config = JSON.parse(block.text) as { mcpServers?: Record<string, { url?: string; args?: string[] }> };
      const servers = Object.values(config.mcpServers ?? {});
      assert.ok(servers.length > 0, `README.md line ${block.line}: no mcpServers entry`);
      for (const server of servers) {
        const urls = [server.url, ...(server.args ?? [])].filter((u): u is string => typeof u === 'string' && u.startsWith('http'));
        assert.deepEqual(urls, [`${README_BASE}/mcp`], `README.md line ${block.line}: the server's URL`);
      }
    }
    const claude = SH.find((b) => b.text.startsWith('claude mcp add'));
    assert.ok(claude === undefined || claude.text.includes(` ${README_BASE}/mcp `), 'claude mcp add names /mcp');
  });

  describe('run against a real server', () => {
    let work = '';
    let server: Server | undefined;
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '' };
    let downloadUrl: string | undefined;

    before(async () => {
      // The README's commands read data/bootstrap-key from where they run: the server's DATA_DIR is work/data.
      work = mkdtempSync(join(tmpdir(), 'readme-examples-'));
      // PUBLIC_BASE_URL unset: links in answers point at http://localhost:<its port>, this server, as the README's point at localhost:8080.
      server = await startServer(join(work, 'data'), { BOOTSTRAP_ACCOUNT: 'true' });
    });
    after(async () => {
      await server?.kill('SIGTERM');
      rmSync(work, { recursive: true, force: true });
    });

    for (const block of RUN) {
      it(`the sh block at README.md line ${block.line}`, async () => {
        assert.ok(server);
        for (const command of commandsOf(block)) {
          let text: string = command.text.replaceAll(README_BASE, server.base);
          if (text.includes('<downloadUrl>')) {
            assert.ok(downloadUrl, `"${command.text}" follows a downloadUrl, but no command before it answered one`);
            text = text.replaceAll('<downloadUrl>', downloadUrl);
          }
          const placeholder = /<[A-Za-z_]+>/.exec(text);
          assert.equal(placeholder, null, `"${command.text}" has a placeholder this test cannot fill`);
          const kind = runnable(text);
          if (kind === 'assign') {
            const name = text.slice(0, text.indexOf('='));
            const r = await bash(`${text}; printf %s "$${name}"`, work, env);
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.length > 0, `${name} is empty after "${text}"`);
            env[name] = r.stdout;
            continue;
          }
          if (kind === 'printf') {
            const r = await bash(text, work, env);
            assert.equal(r.code, 0, `"${text}" exited ${r.code}: ${r.stderr}`);
            continue;
          }
          assert.equal(kind, 'curl', `"${command.text}" is not a command this test runs`);
          // The status code on a line of its own after the body (or alone, when -o takes the body).
          const r = await bash(text.replace(/^curl\s/, `curl -w '\\n%{http_code}' `), work, env);
          assert.equal(r.code, 0, `"${command.text}" exited ${r.code}: ${r.stderr}`);
          const cut = r.stdout.lastIndexOf('\n');
          const status = Number(r.stdout.slice(cut + 1));
          const body = r.stdout.slice(0, cut);
          assert.ok(status >= 200 && status < 300, `"${command.text}" answered ${status}: ${body.slice(0, 500)}`);
          const output = /\s-o\s+(\S+)/.exec(text)?.[1];
          if (output !== undefined) {
            const path = join(work, output);
            assert.ok(existsSync(path), `"${command.text}" wrote no ${output}`);
            const bytes = readFileSync(path);
            assert.ok(bytes.length > 0, `${output} is empty`);
            const magic = MAGIC[output.split('.').pop() ?? ''];
            if (magic !== undefined) assert.equal(bytes.subarray(0, magic.length).toString('latin1'), magic, `${output} is not the kind its name says`);
            continue;
          }
          const answer = JSON.parse(body) as unknown;
          const fields = shownFields(command.shows);
          assert.ok(fields.length > 0, `"${command.text}": the README shows no answer under it (a # {"status":true,…} line)`);
          for (const [key, value] of fields) assert.ok(holds(answer, key, value), `"${command.text}": the README shows "${key}":${JSON.stringify(value)}, the answer is ${body.slice(0, 500)}`);
          const link = (answer as { result?: { downloadUrl?: unknown } }).result?.downloadUrl;
          if (typeof link === 'string') downloadUrl = link;
        }
      });
    }
  });
});
