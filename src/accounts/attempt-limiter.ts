import { isIPv6 } from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ServiceError } from '../core/errors.ts';
import { normalizeEmail } from './account-records.ts';
import { hashSecret } from './secrets.ts';
import type { RequestLimiter } from './rate-limiter.ts';

/** The limits of what anyone may try without a key (config: SIGNUP_PER_HOUR, PASSWORD_FAILURES_*). */
export interface AttemptLimits {
  signupsPerHour: number;
  passwordFailures: number;
  passwordWindowMinutes: number;
}

interface Slot {
  key: string;
  expiresAt: number;
}

/**
 * The address a limit is counted for: request.ip, which follows TRUST_PROXY. An IPv6 client is
 * counted by its /64, the block one subscriber gets, so cycling addresses inside it gains nothing.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const bare = ip.split('%')[0] ?? ip;
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * Counts sign-ups and password attempts per client address and per account, in the database:
 * several processes share it, so a limit held in memory would multiply by the number of
 * processes and reset on every restart. One conditional upsert per attempt is cheap next to
 * what it guards (an scrypt, a mail), and it takes the slot atomically, so concurrent attempts
 * cannot all pass a check before any is counted. Every check runs BEFORE the scrypt or the mail.
 *
 * A window opens at a subject's first attempt and lasts its length; within it at most `limit`
 * attempts pass. Keys are hashed: the table holds no address and no e-mail.
 */
export class AttemptLimiter {
  readonly #db: Db;
  readonly #limits: AttemptLimits;
  readonly #now: () => number;
  #sweptAt = 0;

  constructor(db: Db, limits: AttemptLimits, now: () => number = Date.now) {
    this.#db = db;
    this.#limits = limits;
    this.#now = now;
  }

  /** Counts one sign-up from `ip`; 429 when the address had its sign-ups this hour. */
  async signup(ip: string): Promise<void> {
    const limit = this.#limits.signupsPerHour;
    const taken = await this.#take(`signup:${clientAddressKey(ip)}`, limit, 3600_000);
    if ('retryAfterSeconds' in taken) {
      throw rateLimitedError(taken.retryAfterSeconds, `Too many sign-ups from this address: at most ${limit} an hour`);
    }
  }

  /**
   * Runs `check` (the scrypt) only when neither the address nor the account has used its
   * failures in the window. A slot is taken for each before the check and given back when the
   * password was right, so only failures (and checks still running) count; a success gives back
   * its own slots only, never another address's count. Unknown e-mails are counted like known
   * ones, so the answer says nothing about whether an account exists.
   */
  async password<T>(ip: string, email: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const limit = this.#limits.passwordFailures;
    const windowMs = this.#limits.passwordWindowMinutes * 60_000;
    const message = (whom: string) => `Too many failed password attempts ${whom}: at most ${limit} in ${this.#limits.passwordWindowMinutes} minutes`;
    const address = await this.#take(`password-address:${clientAddressKey(ip)}`, limit, windowMs);
    if ('retryAfterSeconds' in address) throw rateLimitedError(address.retryAfterSeconds, message('from this address'));
    const account = await this.#take(`password-account:${normalizeEmail(email)}`, limit, windowMs);
    if ('retryAfterSeconds' in account) {
      await this.#giveBack(address);
      throw rateLimitedError(account.retryAfterSeconds, message('for this account'));
    }
    let result: T | undefined;
    try {
      result = await check();
    } catch (error) {
      await this.#giveBack(address);
      await this.#giveBack(account);
      throw error;
    }
    if (result !== undefined) {
      await this.#giveBack(address);
      await this.#giveBack(account);
    }
    return result;
  }

  /**
   * Counts one password-reset request (it may send a mail) from `ip` and for `email`, before any
   * lookup: 429 past RESET_REQUESTS per address or per e-mail an hour. Unknown e-mails are counted
   * like known ones, so a refusal says nothing about whether an account exists.
   */
  async passwordReset(ip: string, email: string): Promise<void> {
    const address = await this.#take(`reset-address:${clientAddressKey(ip)}`, RESET_REQUESTS.perAddress, 3600_000);
    if ('retryAfterSeconds' in address) throw rateLimitedError(address.retryAfterSeconds, `Too many password reset requests from this address: at most ${RESET_REQUESTS.perAddress} an hour`);
    const account = await this.#take(`reset-account:${normalizeEmail(email)}`, RESET_REQUESTS.perAccount, 3600_000);
    if ('retryAfterSeconds' in account) throw rateLimitedError(account.retryAfterSeconds, `Too many password reset requests for this e-mail: at most ${RESET_REQUESTS.perAccount} an hour`);
  }

  /**
   * Counts one request for a new verification link (it may send a mail) from `ip` and for
   * `email`, before any lookup: 429 past VERIFICATION_RESENDS per address an hour, or per e-mail a
   * minute or an hour. Unknown and verified e-mails are counted like the ones that get a mail, so
   * a refusal says nothing about whether an account exists or waits for verification. A refused
   * request gives back what it took of the wider windows: it sends nothing.
   */
  async verificationResend(ip: string, email: string): Promise<void> {
    const { perAddressHour, perAccountMinute, perAccountHour } = VERIFICATION_RESENDS;
    const subject = normalizeEmail(email);
    const address = await this.#take(`resend-address:${clientAddressKey(ip)}`, perAddressHour, 3600_000);
    if ('retryAfterSeconds' in address) throw rateLimitedError(address.retryAfterSeconds, `Too many verification link requests from this address: at most ${perAddressHour} an hour`);
    const minute = await this.#take(`resend-minute:${subject}`, perAccountMinute, 60_000);
    if ('retryAfterSeconds' in minute) {
      await this.#giveBack(address);
      throw rateLimitedError(minute.retryAfterSeconds, `A new verification link for this e-mail can be asked for once a minute`);
    }
    const hour = await this.#take(`resend-hour:${subject}`, perAccountHour, 3600_000);
    if ('retryAfterSeconds' in hour) {
      await this.#giveBack(minute);
      await this.#giveBack(address);
      throw rateLimitedError(hour.retryAfterSeconds, `Too many verification link requests for this e-mail: at most ${perAccountHour} an hour`);
    }
  }

  /** Forgets the account's password failures: a completed reset lets a locked-out person back in at once. */
  async clearPasswordFailures(email: string): Promise<void> {
    await this.#db.deleteFrom('attempt_counters').where('key', '=', hashSecret(`password-account:${normalizeEmail(email)}`)).execute();
  }

  async #take(subject: string, limit: number, windowMs: number): Promise<Slot | { retryAfterSeconds: number }> {
    const now = this.#now();
    await this.#sweep(now);
    const key = hashSecret(subject);
    // An expired window starts afresh; a live one counts up to the limit and no further, so a
    // refused attempt leaves the row as it was.
    const row = await this.#db
      .insertInto('attempt_counters')
      .values({ key, expires_at: now + windowMs, count: 1 })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            count: sql<number>`case when attempt_counters.expires_at <= ${now} then 1 else attempt_counters.count + 1 end`,
            expires_at: sql<number>`case when attempt_counters.expires_at <= ${now} then excluded.expires_at else attempt_counters.expires_at end`,
          })
          .where((eb) => eb.or([eb('attempt_counters.expires_at', '<=', now), eb('attempt_counters.count', '<', limit)])),
      )
      .returning(['expires_at'])
      .executeTakeFirst();
    if (row) return { key, expiresAt: row.expires_at };
    const held = await this.#db.selectFrom('attempt_counters').select('expires_at').where('key', '=', key).executeTakeFirst();
    return { retryAfterSeconds: Math.max(1, Math.ceil(((held?.expires_at ?? now + windowMs) - now) / 1000)) };
  }

  /** Returns a slot to the window it was taken from (a new window since then owes nothing). */
  async #giveBack(slot: Slot): Promise<void> {
    await this.#db
      .updateTable('attempt_counters')
      .set({ count: sql<number>`count - 1` })
      .where('key', '=', slot.key)
      .where('expires_at', '=', slot.expiresAt)
      .where('count', '>', 0)
      .execute();
  }

  // Expired rows would only be reset on their next attempt; deleting them once a minute keeps
  // the table as small as the set of subjects seen in the longest window.
  async #sweep(now: number): Promise<void> {
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    await this.#db.deleteFrom('attempt_counters').where('expires_at', '<=', now).execute();
  }
}

/** Password-reset mails an hour: a few per e-mail (its owner's mailbox is not to be flooded), more per address (a shared office). */
export const RESET_REQUESTS = { perAddress: 10, perAccount: 3 };

/**
 * New verification links: one a minute and a few an hour per e-mail (its mailbox is not to be
 * flooded by anyone who knows the address), more per client address (a shared office).
 */
export const VERIFICATION_RESENDS = { perAddressHour: 10, perAccountMinute: 1, perAccountHour: 5 };

/** 429 rate_limited with Retry-After, as every limit of this service answers it. */
export function rateLimitedError(retryAfterSeconds: number, message: string): ServiceError {
  return new ServiceError(429, 'rate_limited', message, {
    detail: `Retry after ${retryAfterSeconds} seconds`,
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extra: { retryAfterSeconds },
  });
}

/**
 * The calls that need no key (catalog reads, sign-up, e-mail verification) are limited too: per
 * client address and minute, counted by the accounts' own limiter beside their windows (the
 * `address:` prefix keeps the two apart): in the node's memory, or in Redis for all nodes when
 * REDIS_URL is set. Sign-ups and passwords, which must hold across nodes even without Redis, are
 * counted in the database above.
 */
export function keylessLimiter(rateLimiter: RequestLimiter, perMinute: number): (request: { ip: string }) => Promise<void> {
  return async (request) => {
    const decision = await rateLimiter.take(`address:${clientAddressKey(request.ip)}`, perMinute);
    if (!decision.allowed) throw rateLimitedError(decision.resetSeconds, `Too many requests without a key from this address: at most ${perMinute} a minute (KEYLESS_REQUESTS_PER_MINUTE)`);
  };
}
