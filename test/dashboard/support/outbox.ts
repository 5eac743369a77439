import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The path and query of the verification link (the dashboard's landing page) in the newest outbox mail to `email` (no SMTP_URL: mail goes to DATA_DIR/outbox). */
export function verificationPath(dataDir: string, email: string): string {
  const outbox = join(dataDir, 'outbox');
  const file = readdirSync(outbox).filter((f) => f.endsWith(`${email}.eml`)).sort().at(-1);
  assert.ok(file, `a mail to ${email} in the outbox`);
  const match = /https?:\/\/[^/\s]+(\/dashboard\/verify\?token=[A-Za-z0-9_%-]+)/.exec(readFileSync(join(outbox, file), 'utf8'));
  assert.ok(match?.[1], 'the mail holds the verification link');
  return match[1];
}
