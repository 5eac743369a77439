import { ServiceError } from '../core/errors.ts';

/**
 * What a key may do: the tools it may call (null: every tool) and whether it may manage keys.
 * Every scope-like field of a key belongs here, so that "within" below is the one rule that
 * keeps a key from creating, rotating or revoking a key more powerful than itself.
 */
export interface KeyScope {
  tools: readonly string[] | null;
  canManageKeys: boolean;
}

/**
 * What `inner` may do that `outer` may not, in words; empty when `inner` is within `outer`.
 * An unscoped key (tools null) is within only another unscoped key, whatever the catalog holds:
 * "every tool" also means the tools added later.
 */
export function scopeExcess(outer: KeyScope, inner: KeyScope): string[] {
  const excess: string[] = [];
  if (outer.tools !== null) {
    if (inner.tools === null) excess.push('every tool (this key may call only the tools it lists)');
    else {
      const allowed = new Set(outer.tools);
      const extra = inner.tools.filter((id) => !allowed.has(id));
      if (extra.length > 0) excess.push(`tools outside this key's list: ${extra.join(', ')}`);
    }
  }
  if (inner.canManageKeys && !outer.canManageKeys) excess.push('managing keys');
  return excess;
}

/**
 * Refuses (403 key_scope_exceeded) when `target` is broader than the acting key. `actor` null is
 * the account owner (e-mail and password), who may do everything. The target was already found
 * in the actor's account: a key of another account is 404 before this runs, so nothing leaks.
 */
export function assertWithinScope(actor: KeyScope | null, target: KeyScope, action: 'create' | 'rotate' | 'revoke'): void {
  if (actor === null) return;
  const excess = scopeExcess(actor, target);
  if (excess.length === 0) return;
  const what = action === 'create' ? 'create a key that may do more than itself' : `${action} a key that may do more than itself`;
  throw new ServiceError(403, 'key_scope_exceeded', `This API key may not ${what}`, {
    detail: `The ${action === 'create' ? 'requested' : 'target'} key would allow ${excess.join('; ')}. Use a key whose scope covers it, or the account e-mail and password`,
  });
}
