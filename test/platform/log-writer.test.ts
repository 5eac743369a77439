import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchedLogWriter } from '../../src/core/log-writer.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function withFile(run: (fd: number, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'log-writer-'));
  const path = join(dir, 'out.log');
  const fd = openSync(path, 'w');
  return run(fd, path).finally(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
}

describe('BatchedLogWriter', () => {
  it('writes the lines of one turn together, in order, by the end of the turn', () =>
    withFile(async (fd, path) => {
      const writer = new BatchedLogWriter(fd);
      for (let i = 0; i < 1000; i++) writer.write(`{"n":${i}}\n`);
      assert.equal(readFileSync(path, 'utf8'), '', 'nothing is written while the turn runs');
      await nextTurn();
      await nextTurn();
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      assert.deepEqual(
        lines.map((l) => (JSON.parse(l) as { n: number }).n),
        Array.from({ length: 1000 }, (_, i) => i),
      );
    }));

  it('drops lines beyond its limit, then says how many it dropped', () =>
    withFile(async (fd, path) => {
      const writer = new BatchedLogWriter(fd, 100);
      for (let i = 0; i < 10; i++) writer.write(`{"line":"${String(i).padStart(20, '0')}"}\n`);
      writer.flushSync();
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      // 32 bytes a line: three fit within 100 bytes, seven are dropped.
      assert.equal(lines.length, 4);
      const warning = JSON.parse(lines[3]!) as { level: number; msg: string };
      assert.equal(warning.level, 40);
      assert.equal(warning.msg, 'log writer dropped 7 lines: stdout did not keep up');
    }));

  it('writes what is pending when the process exits at once', async () => {
    const script = [
      `import { BatchedLogWriter } from ${JSON.stringify(new URL('../../src/core/log-writer.ts', import.meta.url).pathname)};`,
      'const writer = new BatchedLogWriter(1);',
      'writer.write("first\\n");',
      'writer.write("last\\n");',
      'process.exit(3);',
    ].join('\n');
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], (err, out) => resolve({ code: err ? (err.code as number) : 0, stdout: out }));
    });
    assert.equal(code, 3);
    assert.equal(stdout, 'first\nlast\n');
  });
});
