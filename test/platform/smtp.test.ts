import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { SMTPServer } from 'smtp-server';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** A real SMTP server on loopback receives the verification mail; nothing of ours is stood in for. */
describe('e-mail verification over SMTP when SMTP_URL is set', () => {
  const received: { to: string[]; data: string }[] = [];
  let smtp: SMTPServer;
  let t: TestApp;

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const { port } = smtp.server.address() as { port: number };
    t = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Tools <tools@example.com>' } });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('sends the link by SMTP, and the link verifies the account', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/accounts', payload: { email: 'mail@example.com', password: 'a long passphrase' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(received.length, 1);
    assert.deepEqual(received[0]!.to, ['mail@example.com']);
    const text = received[0]!.data.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.match(text, /From: Tools <tools@example.com>/);
    const link = /http:\/\/localhost:8080(\/api\/v1\/accounts\/verify\?token=[A-Za-z0-9_%-]+)/.exec(text);
    assert.ok(link?.[1], 'the mail holds the link');
    const verified = await t.app.inject({ method: 'GET', url: link[1] });
    assert.equal(verified.statusCode, 200);
    assert.equal(verified.json().result.emailVerified, true);
  });
});
