// The program playwright launches for the Chromium engine: a small shell script of the engine's
// own that bounds the data memory of every browser process and starts the browser in the shared
// sandbox of the program engines (src/engines/sandbox.ts). Inside bubblewrap the browser sees the
// system read-only, its own /proc, /dev and /tmp, no network, and of the host's files only the
// engine's browser folder (HOME and TMPDIR): never DATA_DIR, /home, the real /etc/passwd or the
// server's processes. playwright talks to it over the inherited pipes (fds 3 and 4), which
// bubblewrap passes through. Without a usable bwrap the browser still gets the minimal environment
// and, when the machine allows it, a network namespace; the sandbox builder logs a warning.
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FAKE_PASSWD, sandboxCommand } from './sandbox.ts';
import type { EngineLogger } from './supervisor.ts';
import { makeEngineTempDir } from '../files/process-folders.ts';

/**
 * The browser's profile inside the sandbox: in the sandbox's own tmpfs, so it starts empty with
 * every browser and is gone with it. playwright never reads the folder it makes itself (it talks
 * over pipes), so the browser is told to use this one instead and nothing of the host is bound.
 */
const PROFILE_INSIDE = '/tmp/chromium-profile';

/**
 * System files the browser needs beyond the shared binds: Debian's /usr/bin/chromium is a shell
 * script that sources /etc/chromium.d/ (its default flags) and the browser reads
 * /etc/chromium/master_preferences; the time zone keeps dates in documents as on the host.
 */
const CHROMIUM_SYSTEM_FILES = ['/etc/chromium.d', '/etc/chromium', '/etc/localtime'];

export interface ChromiumLauncherOptions {
  /** the browser program found by the probe (e.g. /usr/bin/chromium) */
  executable: string;
  /** data memory any one browser process may map, in MB */
  processMemoryMb: number;
  /** run without network (default true) */
  isolateNetwork: boolean;
  /** 'auto' uses bwrap when it works here, 'bwrap' requires it, 'none' never uses it */
  sandbox: 'auto' | 'bwrap' | 'none';
  logger: EngineLogger;
}

export interface ChromiumLauncher {
  /** the engine's own folder (removed on close) */
  dir: string;
  /** the wrapper playwright runs as the browser */
  executablePath: string;
  /** the environment to launch it with: the minimal one, never the server's */
  env: Record<string, string>;
  /** how the browser is contained */
  isolation: 'bwrap' | 'network' | 'none';
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the launcher into a new folder of the engine's own. The folder's top level (the script,
 * the fake passwd) is never in the browser's view: a browser that could rewrite its own launcher
 * would run code outside the sandbox at the next start. Only `browser/` is bound read-write.
 */
export async function writeChromiumLauncher(options: ChromiumLauncherOptions): Promise<ChromiumLauncher> {
  const dir = await makeEngineTempDir('chromium');
  try {
    return await writeInto(dir, options);
  } catch (error) {
    // e.g. sandbox 'bwrap' where bubblewrap does not work: the launch fails, the folder goes.
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function writeInto(dir: string, options: ChromiumLauncherOptions): Promise<ChromiumLauncher> {
  const home = path.join(dir, 'browser', 'home');
  // The browser's TMPDIR: with --disable-dev-shm-usage its shared memory lives there.
  const tmp = path.join(dir, 'browser', 'tmp');
  await mkdir(home, { recursive: true });
  await mkdir(tmp);
  const passwd = path.join(dir, 'passwd');
  await writeFile(passwd, FAKE_PASSWD);
  const built = await sandboxCommand({
    command: [options.executable],
    writable: [home, tmp],
    systemExtras: CHROMIUM_SYSTEM_FILES,
    passwdFile: passwd,
    // CHROMIUM_FLAGS empty: Debian's wrapper adds its own defaults to it and to nothing else.
    env: { TMPDIR: tmp, CHROMIUM_FLAGS: '' },
    home,
    network: !options.isolateNetwork,
    mode: options.sandbox,
    engine: 'chromium',
    logger: options.logger,
  });
  const lines = [
    '#!/bin/sh',
    // Per process (each renderer on its own): a page that grabs more than this outside its script
    // heap crashes its own renderer instead of pushing the machine into the OOM killer.
    `ulimit -d ${options.processMemoryMb * 1024} || exit 1`,
  ];
  if (built.isolation === 'bwrap') {
    lines.push(
      'for arg do',
      '  shift',
      `  case $arg in --user-data-dir=*) arg=--user-data-dir=${PROFILE_INSIDE} ;; esac`,
      '  set -- "$@" "$arg"',
      'done',
    );
  }
  lines.push(`exec ${built.command.map(quote).join(' ')} "$@"`, '');
  const executablePath = path.join(dir, 'chromium');
  await writeFile(executablePath, lines.join('\n'));
  await chmod(executablePath, 0o755);
  return { dir, executablePath, env: built.env, isolation: built.isolation };
}
