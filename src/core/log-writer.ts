import { writeSync } from 'node:fs';
import { redactLine } from './log-redaction.ts';

/** Writers with lines not yet written; flushed on exit so a crash or process.exit() keeps them. */
const live = new Set<BatchedLogWriter>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const writer of live) writer.flushSync();
  });
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * The log destination: pino hands it each line, and the lines of one event-loop turn leave in a
 * single write() at the end of the turn. A log line per request then costs an array push, where
 * one write() per line (pino's default) or sonic-boom's async mode (which re-measures its whole
 * pending buffer on every line) cost microseconds each on the hot path. Nothing waits longer than
 * the turn it was logged in; what is pending when the process exits is written then.
 *
 * The write is synchronous, like pino's default: a reader that stops reading (a full pipe) slows
 * the service rather than letting memory grow. Beyond `limitBytes` pending, lines are dropped and
 * counted, and the count is reported in the log once the writer catches up. Each line is
 * redacted first (log-redaction.ts): keys, signatures, session ids and credentials never leave.
 */
export class BatchedLogWriter {
  readonly #fd: number;
  readonly #limitBytes: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #scheduled = false;
  #dropped = 0;

  constructor(fd = 1, limitBytes = 16 * 1024 * 1024) {
    this.#fd = fd;
    this.#limitBytes = limitBytes;
    installExitHook();
  }

  write(raw: string): boolean {
    // Every line passes here, whoever logged it: the one place no secret can get past.
    const line = redactLine(raw);
    if (this.#pendingBytes + line.length > this.#limitBytes) {
      this.#dropped++;
      return false;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (!this.#scheduled) {
      this.#scheduled = true;
      live.add(this);
      setImmediate(this.#flushTurn);
    }
    return true;
  }

  readonly #flushTurn = (): void => {
    this.#scheduled = false;
    this.flushSync();
  };

  /** Writes every pending line now. */
  flushSync(): void {
    if (this.#dropped > 0) {
      this.#pending.push(`${JSON.stringify({ level: 40, time: Date.now(), msg: `log writer dropped ${this.#dropped} lines: stdout did not keep up` })}\n`);
      this.#dropped = 0;
    }
    if (this.#pending.length === 0) return;
    const data = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingBytes = 0;
    if (!this.#scheduled) live.delete(this);
    this.#writeAll(data);
  }

  /** pino's logger.flush() lands here. */
  flush(callback?: (err?: Error) => void): void {
    this.flushSync();
    callback?.();
  }

  #writeAll(data: Buffer): void {
    let offset = 0;
    let waits = 0;
    while (offset < data.length) {
      try {
        offset += writeSync(this.#fd, data, offset, data.length - offset);
      } catch (err) {
        // A non-blocking stdout (a pipe Node has set to O_NONBLOCK) that is full: wait a little,
        // as a blocking write would, but give up after a second rather than hang.
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++waits > 1000) return;
        Atomics.wait(sleepCell, 0, 0, 1);
      }
    }
  }
}
