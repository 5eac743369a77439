/** How a bench's main runs: a failure prints its stack, cleans up what the bench left on disk and exits 1. */

export interface RunBenchOptions {
  /** before the error, e.g. 'bench: ' */
  prefix?: string;
  /** removes temporary files; runs on failure only (main's own finally handles success) */
  cleanup?: () => void;
  /** exit 0 once main resolves, for benches whose clients keep handles open (autocannon, browsers) */
  exitOnSuccess?: boolean;
}

export function runBench(main: () => Promise<void>, options: RunBenchOptions = {}): void {
  main().then(
    () => {
      if (options.exitOnSuccess) process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${options.prefix ?? ''}${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      options.cleanup?.();
      process.exit(1);
    },
  );
}
