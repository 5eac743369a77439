// Builds the package twice from the same source: ESM with declarations to dist/esm and CommonJS
// with declarations to dist/cjs (its own package.json says "commonjs", since the package is
// "type": "module"), so `import` and `require` each get JavaScript and types of their own format.
// Run by `prepack`, so `npm pack` alone gives a working tarball.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  const run = spawnSync(process.execPath, [tsc, '-p', join(root, project)], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (run.status !== 0) {
    console.error(`build: tsc -p ${project} failed`);
    process.exit(run.status ?? 1);
  }
}
mkdirSync(join(root, 'dist', 'cjs'), { recursive: true });
writeFileSync(join(root, 'dist', 'cjs', 'package.json'), '{"type":"commonjs"}\n');
console.error('build: dist/esm and dist/cjs written');
