// Stateless Streamable HTTP builds an McpServer per request, and building one (the server and its
// twenty-odd tools) cost more than the SDK's whole handling of the tools/call it answers. Once its
// transport is closed a server holds no protocol state (the SDK's Protocol resets on close), so a
// server built for a caller is kept here and connected to that caller's next request. It is a
// cache of objects built from the caller, not a session: any process still answers any request.
import type { Caller } from '../accounts/account-store.ts';

/**
 * Idle servers by API key, at most `limit` in all. A server is only ever handed out for the very
 * Caller object it was built with: the account store makes a new Caller when the key or its account
 * changes (scopes, plan, revocation), and servers built for the old one are dropped, not reused.
 * The least recently returned key loses a server when the pool is full.
 */
export class ServerPool<T> {
  readonly #idle = new Map<string, { caller: Caller; items: T[] }>();
  readonly #limit: number;
  #count = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** An idle item built for exactly this caller, or undefined (build one). */
  take(caller: Caller): T | undefined {
    const id = caller.key.id;
    const entry = this.#idle.get(id);
    if (!entry) return undefined;
    if (entry.caller !== caller) {
      this.#drop(id);
      return undefined;
    }
    const item = entry.items.pop();
    if (item !== undefined) this.#count--;
    if (entry.items.length === 0) this.#idle.delete(id);
    return item;
  }

  /** Keeps an item built for `caller` for its next request (one that answered whole and was closed). */
  give(caller: Caller, item: T): void {
    if (this.#limit <= 0) return;
    const id = caller.key.id;
    let entry = this.#idle.get(id);
    if (entry && entry.caller !== caller) {
      this.#drop(id);
      entry = undefined;
    }
    if (this.#count >= this.#limit) this.#evictOne();
    entry ??= { caller, items: [] };
    // Re-inserted last: the Map's order is the order keys were last given back.
    this.#idle.delete(id);
    this.#idle.set(id, entry);
    entry.items.push(item);
    this.#count++;
  }

  /** How many items are idle (for tests and metrics). */
  get size(): number {
    return this.#count;
  }

  #drop(id: string): void {
    const entry = this.#idle.get(id);
    if (!entry) return;
    this.#count -= entry.items.length;
    this.#idle.delete(id);
  }

  #evictOne(): void {
    const first = this.#idle.entries().next();
    if (first.done) return;
    const [id, entry] = first.value;
    entry.items.shift();
    this.#count--;
    if (entry.items.length === 0) this.#idle.delete(id);
  }
}
