// Playbook profiles: the first run of a playbook on an https:// URL creates a profile (account,
// playbook, URL) with a stable profileId, and every later run of the same playbook on the same URL
// replaces its last-run snapshot. verify_task given a profileId and no baseline compares against
// that snapshot. Only https:// URLs get a profile: a local preview or plain http page is the
// agent's to pass as a baseline. Profiles are private to their account.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { asciiJson } from '../payload-store.ts';

export const PROFILE_ID = /^prof_[0-9a-f]{32}$/;
/** A snapshot larger than this (in characters of JSON) is not kept; the profile keeps the previous one. */
export const MAX_SNAPSHOT_CHARS = 512 * 1024;

export interface Profile {
  profileId: string;
  playbookId: string;
  url: string;
  createdAt: string;
  updatedAt: string;
}

export interface ProfileSnapshot extends Profile {
  /** the value recordRun stored, parsed back */
  snapshot: unknown;
}

export type RecordRunResult =
  | { kind: 'recorded'; profileId: string; created: boolean }
  | { kind: 'not_https' }
  | { kind: 'too_large'; profileId: string | null; chars: number };

/** The URL a profile is keyed by: parsed, without its fragment; undefined unless https. */
export function profileUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:') return undefined;
  parsed.hash = '';
  return parsed.href;
}

export class ProfileStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * After a playbook run on `url`: creates the profile on the first https:// run and stores the
   * run's snapshot (the signed jobReport the caller built; any JSON value) as the last one.
   */
  async recordRun(input: { accountId: string; playbookId: string; url: string; snapshot: unknown; now?: Date }): Promise<RecordRunResult> {
    const url = profileUrl(input.url);
    if (url === undefined) return { kind: 'not_https' };
    const json = asciiJson(JSON.stringify(input.snapshot) ?? 'null');
    const now = (input.now ?? new Date()).toISOString();
    const existing = await this.#profileId(input.accountId, input.playbookId, url);
    if (json.length > MAX_SNAPSHOT_CHARS) return { kind: 'too_large', profileId: existing ?? null, chars: json.length };
    if (existing !== undefined) {
      await this.#db.updateTable('profiles').set({ snapshot: json, updated_at: now }).where('id', '=', existing).execute();
      return { kind: 'recorded', profileId: existing, created: false };
    }
    const profileId = `prof_${randomUUID().replace(/-/g, '')}`;
    // Two first runs at once: the unique (account, playbook, url) lets one insert win; the other
    // updates the winner's row instead.
    await this.#db
      .insertInto('profiles')
      .values({ id: profileId, account_id: input.accountId, playbook_id: input.playbookId, url, snapshot: json, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'playbook_id', 'url']).doUpdateSet({ snapshot: json, updated_at: now }))
      .execute();
    const stored = await this.#profileId(input.accountId, input.playbookId, url);
    if (stored === undefined) throw new Error(`the profile of ${url} was neither inserted nor found`);
    return { kind: 'recorded', profileId: stored, created: stored === profileId };
  }

  /** The id of the account's profile for (playbook, url), if there is one: the table's unique key. */
  async #profileId(accountId: string, playbookId: string, url: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('profiles')
      .select('id')
      .where('account_id', '=', accountId)
      .where('playbook_id', '=', playbookId)
      .where('url', '=', url)
      .executeTakeFirst();
    return row?.id;
  }

  /** The account's profile with its last snapshot; another account's is as unknown as a missing one. */
  async lastSnapshot(accountId: string, profileId: string): Promise<ProfileSnapshot | undefined> {
    if (!PROFILE_ID.test(profileId)) return undefined;
    const row = await this.#db.selectFrom('profiles').selectAll().where('id', '=', profileId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    return {
      profileId: row.id,
      playbookId: row.playbook_id,
      url: row.url,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      snapshot: JSON.parse(row.snapshot) as unknown,
    };
  }

  /** The account's profile for a playbook and URL, if a run created one. */
  async find(accountId: string, playbookId: string, url: string): Promise<Profile | undefined> {
    const key = profileUrl(url);
    if (key === undefined) return undefined;
    const row = await this.#db
      .selectFrom('profiles')
      .select(['id', 'playbook_id', 'url', 'created_at', 'updated_at'])
      .where('account_id', '=', accountId)
      .where('playbook_id', '=', playbookId)
      .where('url', '=', key)
      .executeTakeFirst();
    return row ? { profileId: row.id, playbookId: row.playbook_id, url: row.url, createdAt: row.created_at, updatedAt: row.updated_at } : undefined;
  }
}
