import { rmSync } from 'node:fs';

/**
 * The life of a bench server child: report `ready` to the parent over IPC, then stop on
 * SIGTERM/SIGINT, a 'stop' message or the parent going away (never linger, nor leave engine
 * processes behind), closing the servers and removing the temporary DATA_DIR.
 */
export function serveUntilStopped(ready: object, close: () => Promise<unknown>, dataDir: string): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
  process.once('disconnect', () => void stop());
  if (process.send) process.send(ready);
  else process.stderr.write(`${JSON.stringify(ready)}\n`);
}

/** A failed start: clean up and say why. */
export function failStart(name: string, dataDir: string, err: unknown): never {
  rmSync(dataDir, { recursive: true, force: true });
  process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
