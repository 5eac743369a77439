// Issue 16 section 3: a key that may manage keys must not climb. Every combination of caller
// (full manage key, scoped manage key, the owner's password, a key that may not manage keys),
// action (create, rotate, revoke; rotate and revoke itself) and target (every scope of a small
// universe, in the caller's account and in another account) is generated below and run through
// the real app. A refused call changes nothing and its body holds no secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const A = 'calculators_emi_calculator';
const B = 'calculators_simple_interest_calculator';
const C = 'calculators_bmi_calculator';
const SECRET = /uts_live_[A-Za-z0-9_-]{32}/;
const PASSWORD = 'the owner passphrase';

interface Scope {
  tools: string[] | null;
  canManageKeys: boolean;
}

// Every tool list (none means all) crossed with both values of canManageKeys: the scopes a key can have.
const UNIVERSE: Scope[] = [null, [A, B, C], [A, B], [A, C], [A]].flatMap((tools) => [true, false].map((canManageKeys) => ({ tools, canManageKeys })));

const show = (s: Scope) => `${s.tools === null ? 'all tools' : `[${s.tools.map((id) => id.split('_')[1]).join(',')}]`}${s.canManageKeys ? '+manage' : ''}`;

/** The rule under test, written independently of the service: tools a subset (null only under null), manage only under manage. */
function within(outer: Scope, inner: Scope): boolean {
  const tools = outer.tools === null || (inner.tools !== null && inner.tools.every((id) => outer.tools!.includes(id)));
  return tools && (outer.canManageKeys || !inner.canManageKeys);
}

type Relation = 'broader' | 'equal' | 'narrower';
function relation(caller: Scope, target: Scope): Relation {
  if (!within(caller, target)) return 'broader';
  return within(target, caller) ? 'equal' : 'narrower';
}

interface CallerKind {
  name: string;
  /** null: the owner with e-mail and password */
  scope: Scope | null;
}

const CALLERS: CallerKind[] = [
  { name: 'full manage key', scope: { tools: null, canManageKeys: true } },
  { name: 'scoped manage key', scope: { tools: [A, B], canManageKeys: true } },
  { name: 'owner password', scope: null },
  { name: 'non-manage key', scope: { tools: null, canManageKeys: false } },
];

type Action = 'create' | 'rotate' | 'revoke';

interface Expected {
  status: number;
  error?: string;
}

/** What a cell must answer, from the caller, the action's target and where the target lives. */
function expected(caller: CallerKind, action: Action, target: Scope, place: 'same account' | 'other account'): Expected {
  if (caller.scope && !caller.scope.canManageKeys) return { status: 403, error: 'key_management_not_allowed' };
  if (place === 'other account') return { status: 404, error: 'key_not_found' };
  if (caller.scope && !within(caller.scope, target)) return { status: 403, error: 'key_scope_exceeded' };
  return { status: action === 'create' ? 201 : 200 };
}

describe('key management stays within the acting key (every caller x action x target)', () => {
  let t: TestApp;
  const owner = { email: `owner-${randomUUID()}@example.com`, accountId: '' };
  let otherAccountId = '';
  const basic = () => `Basic ${Buffer.from(`${owner.email}:${PASSWORD}`).toString('base64')}`;

  before(async () => {
    t = await startTestApp();
    for (const id of [A, B, C]) assert.ok(t.services.catalog.get(id), `${id} is in the catalog`);
    owner.accountId = (await t.account({ email: owner.email, password: PASSWORD })).accountId;
    otherAccountId = (await t.account()).accountId;
  });
  after(() => t.close());

  async function key(accountId: string, scope: Scope) {
    const { key, secret } = await t.services.accounts.createKey({ accountId, name: show(scope), tools: scope.tools, canManageKeys: scope.canManageKeys });
    return { id: key.id, secret };
  }

  async function headersOf(caller: CallerKind, self?: { secret: string }): Promise<Record<string, string>> {
    if (caller.scope === null) return { authorization: basic() };
    return { 'x-api-key': (self ?? (await key(owner.accountId, caller.scope))).secret };
  }

  function act(action: Action, headers: Record<string, string>, targetId: string, body?: Scope): Promise<LightMyRequestResponse> {
    if (action === 'create') return t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: { name: 'made', ...body } });
    if (action === 'rotate') return t.app.inject({ method: 'POST', url: `/api/v1/api-keys/${targetId}/rotate`, headers, payload: {} });
    return t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${targetId}`, headers });
  }

  /** Whether a secret still works, asked of the real app (usage is free and needs only a live key). */
  async function works(secret: string): Promise<boolean> {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': secret } });
    assert.ok(res.statusCode === 200 || res.statusCode === 401, `usage answered ${res.statusCode}: ${res.body}`);
    return res.statusCode === 200;
  }

  function assertAnswer(res: LightMyRequestResponse, want: Expected, cell: string): void {
    assert.equal(res.statusCode, want.status, `${cell}: ${res.body}`);
    if (want.error) {
      assert.equal(res.json().error, want.error, cell);
      assert.doesNotMatch(res.body, SECRET, `${cell}: a refused call shows no secret`);
      assert.equal(res.headers['content-type']?.toString().startsWith('application/json'), true, cell);
    }
  }

  it('the generated universe holds broader, equal and narrower targets for every scoped caller', () => {
    const count = (caller: Scope, r: Relation) => UNIVERSE.filter((s) => relation(caller, s) === r).length;
    const scoped = CALLERS[1]!.scope!;
    assert.deepEqual([count(scoped, 'broader'), count(scoped, 'equal'), count(scoped, 'narrower')], [6, 1, 3]);
    const full = CALLERS[0]!.scope!;
    assert.deepEqual([count(full, 'broader'), count(full, 'equal'), count(full, 'narrower')], [0, 1, 9], 'nothing is broader than a full manage key');
    const plain = CALLERS[3]!.scope!;
    assert.ok(count(plain, 'broader') > 0 && count(plain, 'narrower') > 0);
  });

  for (const caller of CALLERS) {
    for (const target of UNIVERSE) {
      const what = caller.scope ? `a ${relation(caller.scope, target)} key` : 'a key';
      const label = `${caller.name}: %s ${what} (${show(target)})`;

      it(label.replace('%s', 'create'), async () => {
        const cell = label.replace('%s', 'create');
        const want = expected(caller, 'create', target, 'same account');
        const before = (await t.services.accounts.listKeys(owner.accountId)).length;
        const res = await act('create', await headersOf(caller), '', target);
        assertAnswer(res, want, cell);
        const keys = await t.services.accounts.listKeys(owner.accountId);
        if (want.status !== 201) {
          // The caller's own key was made by headersOf: only it is new.
          assert.equal(keys.length, before + (caller.scope ? 1 : 0), `${cell}: no key was created`);
          return;
        }
        const made = res.json().result;
        assert.match(made.apiKey, SECRET);
        assert.deepEqual(made.tools, target.tools === null ? null : [...target.tools].sort(), cell);
        assert.equal(made.canManageKeys, target.canManageKeys, cell);
        assert.ok(keys.some((k) => k.id === made.keyId), `${cell}: the key is in the caller's account`);
        assert.ok(!(await t.services.accounts.listKeys(otherAccountId)).some((k) => k.id === made.keyId));
        assert.equal(await works(made.apiKey), true, `${cell}: the new secret works`);
      });

      for (const action of ['rotate', 'revoke'] as const) {
        for (const place of ['same account', 'other account'] as const) {
          const cell = `${label.replace('%s', action)} in the ${place}`;
          it(cell, async () => {
            const want = expected(caller, action, target, place);
            const victim = await key(place === 'same account' ? owner.accountId : otherAccountId, target);
            const headers = await headersOf(caller);
            const res = await act(action, headers, victim.id);
            assertAnswer(res, want, cell);
            if (want.status === 404) {
              // The same answer as for a key that does not exist: nothing says the id is real.
              const unknownId = randomUUID();
              const unknown = await act(action, headers, unknownId);
              assert.equal(unknown.statusCode, 404);
              const { requestId: _a, ...answer } = res.json();
              const { requestId: _b, ...unknownAnswer } = JSON.parse(unknown.body.replaceAll(unknownId, victim.id));
              assert.deepEqual(answer, unknownAnswer, `${cell}: indistinguishable from an unknown id`);
            }
            if (want.status >= 400) {
              assert.equal(await works(victim.secret), true, `${cell}: the target is untouched`);
              return;
            }
            const result = res.json().result;
            assert.equal(result.keyId, victim.id);
            assert.deepEqual(result.tools, target.tools === null ? null : [...target.tools].sort());
            assert.equal(result.canManageKeys, target.canManageKeys);
            assert.equal(await works(victim.secret), false, `${cell}: the old secret stops working`);
            if (action === 'rotate') {
              assert.match(result.apiKey, SECRET);
              assert.equal(await works(result.apiKey), true, `${cell}: the new secret works`);
            } else {
              assert.ok(result.revokedAt, cell);
              assert.equal(result.apiKey, undefined, 'a revoke returns no secret');
            }
          });
        }
      }
    }

    it(`${caller.name}: lists keys without a secret`, async () => {
      const secrets = await Promise.all(UNIVERSE.map(async (s) => (await key(owner.accountId, s)).secret));
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: await headersOf(caller) });
      assert.equal(res.statusCode, caller.scope === null || caller.scope.canManageKeys ? 200 : 403, res.body);
      assert.doesNotMatch(res.body, SECRET);
      for (const secret of secrets) assert.ok(!res.body.includes(secret.slice(13)), 'no part of a secret beyond its display prefix');
      if (res.statusCode === 200) assert.ok(res.json().result.keys.length >= UNIVERSE.length);
    });

    if (caller.scope === null) continue;
    const scope = caller.scope;
    for (const action of ['rotate', 'revoke'] as const) {
      it(`${caller.name}: ${action} itself`, async () => {
        const self = await key(owner.accountId, scope);
        const res = await act(action, await headersOf(caller, self), self.id);
        const want: Expected = scope.canManageKeys ? { status: 200 } : { status: 403, error: 'key_management_not_allowed' };
        assertAnswer(res, want, `${caller.name}: ${action} itself`);
        assert.equal(await works(self.secret), want.status >= 400, 'a refused call leaves the key working; a done one ends its old secret');
        if (action === 'rotate' && want.status === 200) assert.equal(await works(res.json().result.apiKey), true);
      });
    }

  }

  it('a scoped manage key cannot take over the account: the full key survives and its secret is never handed out', async () => {
    const full = await key(owner.accountId, { tools: null, canManageKeys: true });
    const scoped = await key(owner.accountId, { tools: [A], canManageKeys: true });
    const headers = { 'x-api-key': scoped.secret };
    const rotate = await act('rotate', headers, full.id);
    const revoke = await act('revoke', headers, full.id);
    const create = await act('create', headers, '', { tools: null, canManageKeys: true });
    for (const res of [rotate, revoke, create]) {
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error, 'key_scope_exceeded');
      assert.doesNotMatch(res.body, SECRET);
    }
    assert.equal(await works(full.secret), true, 'the owner is not locked out');
    // The owner's password still does everything, including to the scoped key.
    const ownerRevoke = await act('revoke', { authorization: basic() }, scoped.id);
    assert.equal(ownerRevoke.statusCode, 200, ownerRevoke.body);
    assert.equal(await works(scoped.secret), false);
  });
});
