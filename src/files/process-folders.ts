// Folders a process makes for itself (a call's work folder under DATA_DIR/work, an engine's temp
// folder under the OS temp folder) carry the process's tag in their name: its pid and a token
// drawn at start (and a short hash of the host). A process SIGKILLed mid-call leaves them behind; the next start removes every
// tagged folder whose process is gone, and only those, since several server processes may
// share DATA_DIR and the temp folder. The judgement follows lease-holder.ts: a pid that no longer
// runs is dead, and so is this very pid under another token (a container's server is pid 1 after
// every restart). A pid that runs is alive, whoever it is now: a folder is never taken from a
// live process, at the cost of keeping one whose pid was reused until that pid ends.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidRuns } from '../accounts/lease-holder.ts';

/**
 * The host, shortened: containers that share a volume but not a pid namespace see each other's
 * folders, and a pid is only judged on its own host (another host's folders age out instead).
 */
const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 4);

/**
 * This process's tag: `<pid>.<token>.<host>`. Short on purpose: Chromium's singleton socket lives
 * at <engine temp folder>/browser/tmp/org.chromium.Chromium.XXXXXX/SingletonSocket, and a Unix
 * socket path may hold 107 bytes; with a 7-digit pid the folder name stays within it.
 */
export const PROCESS_TAG = `${process.pid}.${randomBytes(3).toString('hex')}.${HOST}`;

/** `p<pid>.<6 hex>.<4 hex>-`: the tag as it opens a folder name. */
const TAGGED = /^p(\d{1,10})\.([0-9a-f]{6})\.([0-9a-f]{4})-/;

/** A folder name that starts with this process's tag. */
export function taggedName(rest: string): string {
  return `p${PROCESS_TAG}-${rest}`;
}

/** The prefix of an engine's temp folders: `engines-<engine>-`, tagged. */
function enginePrefix(engine: string): string {
  return `engines-${engine}-`;
}

/** A new private temp folder for an engine (mkdtemp under the OS temp folder), tagged with this process. */
export function makeEngineTempDir(engine: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `${enginePrefix(engine)}${taggedName('')}`));
}


/** Whether the process a tagged name belongs to is gone; null for a name without a tag or of another host. */
export function ownerIsDead(name: string): boolean | null {
  const match = TAGGED.exec(name);
  if (match === null || match[3] !== HOST) return null;
  const pid = Number(match[1]);
  if (`${pid}.${match[2]}.${match[3]}` === PROCESS_TAG) return false;
  if (pid === process.pid) return true;
  return !pidRuns(pid);
}

/**
 * Removes the folders directly under `root` whose name (after `prefix`) carries the tag of a
 * process that is gone. Answers how many went.
 */
export async function sweepDeadProcessFolders(root: string, prefix = ''): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    if (ownerIsDead(name.slice(prefix.length)) !== true) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** The engine temp folders of dead processes, for every engine (`engines-<name>-p<pid>.<token>-…`). */
export async function sweepDeadEngineTempDirs(): Promise<number> {
  let removed = 0;
  const root = tmpdir();
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const match = /^engines-[a-z0-9]+-/.exec(name);
    if (match === null || ownerIsDead(name.slice(match[0].length)) !== true) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
