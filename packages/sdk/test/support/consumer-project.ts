// An empty project that installs the packed SDK tarball the way a user's would, with nothing
// downloaded: its package-lock.json lists the tarball and the MCP SDK's dependency tree exactly as
// the repository's own lock resolved it (same versions, tarball URLs and integrity), so
// `npm ci --offline` takes every package from the npm cache that setup's `npm ci` filled.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** Writes package.json and package-lock.json into `dir` for a project depending on `tarball` only. */
export function writeConsumerProject(dir: string, tarball: string, rootLockPath: string): { packages: number } {
  const rootLock = JSON.parse(readFileSync(rootLockPath, 'utf8')) as { packages: Record<string, LockEntry> };
  const sdkManifest = JSON.parse(readFileSync(join(rootLockPath, '..', 'packages', 'sdk', 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    engines: Record<string, string>;
  };
  const all = rootLock.packages;
  // Node's resolution inside the lock: the nearest node_modules/<name> from the dependent up.
  const locate = (from: string, name: string): string | undefined => {
    let base = from;
    for (;;) {
      const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
      if (all[candidate] !== undefined) return candidate;
      if (base === '') return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut < 0 ? '' : base.slice(0, cut);
    }
  };
  const closure: Record<string, LockEntry> = {};
  const queue = Object.keys(sdkManifest.dependencies).map((name) => {
    const found = locate('', name);
    if (found === undefined) throw new Error(`the root lock has no ${name}`);
    return found;
  });
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (closure[path] !== undefined) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = all[path] as LockEntry;
    closure[path] = entry;
    for (const name of Object.keys(entry.dependencies ?? {})) {
      const found = locate(path, name);
      if (found === undefined) throw new Error(`the root lock has no ${name} for ${path}`);
      queue.push(found);
    }
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const found = locate(path, name);
      if (found !== undefined) queue.push(found);
    }
  }
  const spec = `file:${basename(tarball)}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const manifest = { name: 'sdk-consumer', version: '1.0.0', private: true, dependencies: { [sdkManifest.name]: spec } };
  const lock = {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies },
      [`node_modules/${sdkManifest.name}`]: {
        version: sdkManifest.version,
        resolved: spec,
        integrity,
        dependencies: sdkManifest.dependencies,
        engines: sdkManifest.engines,
      },
      ...closure,
    },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return { packages: Object.keys(closure).length + 1 };
}
