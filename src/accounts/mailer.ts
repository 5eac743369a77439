import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** SMTP when SMTP_URL is set; otherwise each message is written to DATA_DIR/outbox and logged. */
export function createMailer(options: { smtpUrl: string | undefined; from: string; outboxDir: string; log: FastifyBaseLogger }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: options.from, ...mail });
      },
    };
  }
  return {
    async send(mail) {
      await mkdir(options.outboxDir, { recursive: true });
      const safeTo = mail.to.replace(/[^A-Za-z0-9@._-]/g, '_');
      const file = join(options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${safeTo}.eml`);
      const message = `From: ${options.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
      await writeFile(file, message, { mode: 0o600 });
      options.log.info({ to: mail.to, subject: mail.subject, file, body: mail.text }, 'mail written to outbox (SMTP_URL not set)');
    },
  };
}
