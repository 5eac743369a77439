// What a community pattern may carry: the redaction of URLs, hosts, IPs, e-mails, keys and the
// project's own names, and what it must leave alone (file names, header names, prose, numbers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectNames, redactList, redactText } from '../../../src/runs/feature-memory/pattern-redaction.ts';

const REDACTED: [string, string, number][] = [
  ['password=Hunter2Secret!', 'password=[key]', 1],
  ['token: ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token: [key]', 1],
  ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefg12345', 'Authorization: Bearer [key]', 1],
  ['sk-proj-abcdefghijklmnop1234 and AKIAABCDEFGHIJKLMNOP', '[key] and [key]', 2],
  ['send X-Api-Key uts_live_Zx81abcdEFGH', 'send X-Api-Key [key]', 1],
  ['deploy to staging.internal.corp and api.example.com:8443', 'deploy to [host] and [host]', 2],
  ['visit www.example.com today', 'visit [url] today', 1],
  ['see ftp://files.example.net/a?b=c, then http://x.test', 'see [url], then [url]', 2],
  ['bind to [::1]:3000 or fe80::1ff:fe23:4567:890a or localhost:5173', 'bind to [ip]:3000 or [ip] or [host]', 3],
  ['from 192.168.1.20:8080 and 10.0.0.1', 'from [ip] and [ip]', 2],
  ['mail Jane.Doe+ops@corp.example.co.uk', 'mail [email]', 1],
  ['hash a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', 'hash [key]', 1],
];

const KEPT = [
  'Set Content-Security-Policy and X-Content-Type-Options',
  'Add a sitemap.xml and a robots.txt',
  'Password: must be hashed with argon2',
  'Meeting at 10:30:00 in std::string land',
  'LCP under 2.5 s, CLS below 0.1, version 1.2.3',
  'Use the utility-first-approach-for-buttons',
  'file src/components/HeaderButton2.tsx',
];

describe('pattern redaction', () => {
  for (const [input, output, count] of REDACTED) {
    it(`redacts ${JSON.stringify(input)}`, () => {
      assert.deepEqual(redactText(input), { text: output, redactions: count });
    });
  }
  it('leaves file names, header names, prose, times and numbers alone', () => {
    for (const input of KEPT) assert.deepEqual(redactText(input), { text: input, redactions: 0 });
  });
  it('replaces the project\'s own names, longest first, as whole words', () => {
    assert.deepEqual(projectNames('https://www.shop.acme.io:8443'), ['www.shop.acme.io']);
    assert.deepEqual(projectNames('https://shop.acme.io'), ['shop.acme.io', 'shop']);
    assert.deepEqual(projectNames('orion-billing'), ['orion-billing']);
    assert.deepEqual(projectNames('local'), []);
    const names = projectNames('orion-billing', ['https://orion.example']);
    assert.deepEqual(names, ['orion-billing', 'orion.example', 'orion']);
    assert.deepEqual(redactList(['Orion-Billing invoices', 'orion sends mail', 'orionx stays'], names), {
      items: ['[project] invoices', '[project] sends mail', 'orionx stays'],
      redactions: 2,
    });
  });
});
