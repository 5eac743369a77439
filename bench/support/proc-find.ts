/**
 * Finding a process by its command line (/proc/<pid>/cmdline, Linux), for servers whose helpers
 * do not hand out their pid (the tests' PostgreSQL cluster and redis-server), so a bench can count
 * their CPU time beside the service's.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The lowest pid whose argv (split on NULs) satisfies `match`, or undefined. */
export function findPid(match: (argv: readonly string[]) => boolean): number | undefined {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    } catch {
      continue; // gone, or not ours to read
    }
    if (argv.length > 0 && match(argv)) return pid;
  }
  return undefined;
}

/** The postmaster listening on `port` (started as `postgres -D … -p <port>`): its tree holds every backend. */
export function postmasterPid(port: number): number | undefined {
  return findPid((argv) => /(^|\/)postgres$/.test(argv[0]!) && argv.some((a, i) => a === '-p' && argv[i + 1] === String(port)));
}

/** redis-server on `port` (it rewrites its title to `redis-server 127.0.0.1:<port>`). */
export function redisPid(port: number): number | undefined {
  return findPid((argv) => argv.join(' ').includes('redis-server') && argv.join(' ').includes(`:${port}`));
}
