// The address rules judged by the policy function itself, with no socket anywhere: one address
// of every refused IPv4 range, in every URL spelling and every IPv6 form that carries it, and a
// public address, which passes in its plain spellings and is refused behind a translation prefix.
// The live tests (ssrf.test.ts, metadata-egress.test.ts) run in a loopback-only namespace; this
// one needs no network at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, buildEgressPolicy, checkUrl } from '../../src/analysis/egress-policy.ts';
import { ipv6Forms, urlSpellings } from './support/address-forms.ts';

const EMPTY = buildEgressPolicy('', '');

/** One address of each refused IPv4 range, with the rule ipaddr.js's classification gives it. */
const REFUSED_V4: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
];

/** The rule each IPv6 form of ipv6Forms() gives, in its order: embedded forms name the IPv4 range, translation prefixes their own. */
function formRule(index: number, range: string): string[] {
  if (index <= 3) return [`ipv4-embedded-${range}`];
  if (index <= 5) return ['rfc6052'];
  return index === 6 ? ['6to4'] : ['teredo'];
}

describe('the policy function, every refused range in every form', () => {
  it('refuses each address in every URL spelling (decimal, octal, hex, short forms, trailing dot)', () => {
    for (const [address, rule] of REFUSED_V4) {
      for (const spelled of urlSpellings(address)) {
        const host = checkUrl(new URL(`http://${spelled}:8080/`), EMPTY);
        assert.equal(host, address, `${spelled} is read as ${address}`);
        assert.equal(addressRefusal(host, EMPTY)?.rule, rule, `${spelled}`);
      }
    }
  });

  it('refuses each address in every IPv6 form carrying it (mapped, compatible, SIIT, NAT64, 6to4, Teredo)', () => {
    for (const [address, range] of REFUSED_V4) {
      ipv6Forms(address).forEach((form, index) => {
        const verdict = addressRefusal(form, EMPTY);
        assert.notEqual(verdict, null, `${form} (${address}) is refused`);
        // The compatible form of 0.0.0.0 is :: itself, refused as IPv6's own unspecified address.
        if (!(index === 2 && address === '0.0.0.0')) assert.ok(formRule(index, range).includes(verdict?.rule ?? ''), `${form}: ${verdict?.rule} ${verdict?.message}`);
        const bracketed = checkUrl(new URL(`http://[${form}]/`), EMPTY);
        assert.notEqual(addressRefusal(bracketed, EMPTY), null, `[${form}] in a URL`);
      });
    }
  });

  it('a public address passes in its plain spellings and as IPv4-mapped, and is refused behind a translation prefix', () => {
    const publicAddress = '93.184.215.14';
    for (const spelled of urlSpellings(publicAddress)) assert.equal(addressRefusal(checkUrl(new URL(`http://${spelled}/`), EMPTY), EMPTY), null, spelled);
    const forms = ipv6Forms(publicAddress);
    for (const mapped of forms.slice(0, 4)) assert.equal(addressRefusal(mapped, EMPTY), null, mapped);
    for (const translated of forms.slice(4)) assert.notEqual(addressRefusal(translated, EMPTY), null, translated);
  });

  it('EGRESS_ALLOW opens exactly its range, in every spelling, and nothing next to it', () => {
    const policy = buildEgressPolicy('10.20.0.0/16', '');
    for (const spelled of urlSpellings('10.20.3.4')) assert.equal(addressRefusal(checkUrl(new URL(`http://${spelled}/`), policy), policy), null, spelled);
    for (const spelled of urlSpellings('10.21.0.1')) assert.equal(addressRefusal(checkUrl(new URL(`http://${spelled}/`), policy), policy)?.rule, 'private', spelled);
  });
});
