// The outbox (no SMTP_URL: each mail is a file in DATA_DIR/outbox), read as mail arrives. The
// password reset hands its mail to the mailer without waiting for it, so a test waits for the
// file: fs.watch reports it, no polling and no sleep.
import { mkdirSync, readdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';

/** The texts of the mails to `email` that match `pattern`, oldest first. */
export function mailsTo(dataDir: string, email: string, pattern: RegExp): string[] {
  const outbox = join(dataDir, 'outbox');
  mkdirSync(outbox, { recursive: true });
  return readdirSync(outbox)
    .filter((f) => f.endsWith(`-${email}.eml`))
    .sort()
    .map((f) => readFileSync(join(outbox, f), 'utf8'))
    .filter((text) => pattern.test(text));
}

/** Resolves once `count` mails to `email` match `pattern` (a file half written matches later, at its next change event). */
export function waitForMails(dataDir: string, email: string, pattern: RegExp, count = 1): Promise<string[]> {
  const outbox = join(dataDir, 'outbox');
  mkdirSync(outbox, { recursive: true });
  return new Promise((resolve, reject) => {
    // Watching starts before the first look, so a mail written in between is not missed.
    const watcher = watch(outbox);
    const look = () => {
      try {
        const found = mailsTo(dataDir, email, pattern);
        if (found.length < count) return;
        watcher.close();
        resolve(found);
      } catch (error) {
        watcher.close();
        reject(error);
      }
    };
    watcher.on('change', look);
    watcher.on('error', (error) => {
      watcher.close();
      reject(error);
    });
    look();
  });
}

/** The path and query of the password-reset link in a mail's text. */
export function resetPathIn(mail: string): string {
  const match = /http:\/\/localhost:8080(\/dashboard\/reset-password\?token=[A-Za-z0-9_%-]+)/.exec(mail);
  if (!match?.[1]) throw new Error(`no reset link in:\n${mail}`);
  return match[1];
}
