// Runs a test file inside a network namespace that has only loopback, so a test that tries a
// refused address (10.0.0.1, 168.63.129.16, a metadata name) cannot reach anything if the refusal
// ever regresses: a connect to anything but 127.0.0.1/::1 fails at once with ENETUNREACH, and DNS
// has no server to ask. Call it first, with top-level await, in the file to isolate:
//
//   await runInIsolatedNetwork(import.meta.filename);
//
// Outside the namespace it re-runs the same file, with the same node flags and environment, under
// `unshare -n` (as root; else `unshare -rn`, mapping the user to root in a user namespace), brings
// `lo` up, passes the child's output through as its own (the test runner's stream included) and
// exits with the child's code, so nothing below the call runs outside. Without unshare or ip, or
// without the right to make a namespace, the file fails loudly: it never runs its tests exposed.
import { spawn, spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';

/** Set in the re-run child, so a namespace that is not loopback-only fails instead of looping. */
const MARK = 'TEST_ISOLATED_NETWORK';

/** True when every network interface this process sees is a loopback one. */
export function onlyLoopback(): boolean {
  return Object.values(networkInterfaces()).every((addresses) => (addresses ?? []).every((a) => a.internal));
}

export async function runInIsolatedNetwork(testFile: string): Promise<void> {
  if (onlyLoopback()) return;
  if (process.env[MARK] === '1') {
    throw new Error(`${testFile}: re-run inside a network namespace, yet it still sees non-loopback interfaces (${Object.keys(networkInterfaces()).join(', ')}); refusing to run the SSRF tests with a way out`);
  }
  // Root makes the namespace directly; without CAP_SYS_ADMIN (a non-root user, some containers)
  // a user namespace mapping the user to root may still be allowed. The first that works is used.
  const flags = [['--net'], ['--map-root-user', '--net']].find((candidate) => spawnSync('unshare', [...candidate, 'true'], { stdio: 'ignore' }).status === 0);
  if (flags === undefined) {
    process.stderr.write(`${testFile}: cannot make a network namespace (unshare --net, and unshare --map-root-user --net, both failed or are missing); install util-linux and iproute2 and run as root, or enable user namespaces\n`);
    process.exit(1);
  }
  // $0 is node; "$@" its flags and the file. `ip link set lo up`: a new namespace's lo is down.
  const script = 'ip link set lo up && exec "$0" "$@"';
  const args = [...flags, 'sh', '-c', script, process.execPath, ...process.execArgv, testFile];
  const code = await new Promise<number>((resolve) => {
    // A shared PostgreSQL cluster (TEST_POSTGRES_URL, the test command's PostgreSQL pass) listens
    // on the outer loopback, which the namespace cannot reach: without it the file starts a
    // cluster of its own inside the namespace (test/support/postgres-cluster.ts), on its loopback.
    const { TEST_POSTGRES_URL: _outerCluster, ...env } = process.env;
    const child = spawn('unshare', args, { stdio: 'inherit', env: { ...env, [MARK]: '1' } });
    child.on('error', (error) => {
      process.stderr.write(`${testFile}: cannot isolate the network (${error.message}); install util-linux (unshare) and iproute2 (ip), and run as root or with user namespaces enabled\n`);
      resolve(1);
    });
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
    // The runner stops a file by signalling it: the isolated run is that file, so it stops too.
    for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => child.kill(name));
  });
  if (code !== 0) process.stderr.write(`${testFile}: the isolated run exited with ${code} (unshare -n and ip link set lo up must work here: util-linux and iproute2, as root)\n`);
  process.exit(code);
}
