// Claims across instances, in the claims table: a row (namespace, key) -> holder, expires_at says
// that one front is buying that answer now. A front asks for the claim in one statement that also
// reads the answer (claimInDb); the holder renews its claims while it holds them (ClaimRenewal), so
// a claim expires only when its holder stopped renewing it: killed, frozen or cut from the database.
// Then the next asker takes it over (the INSERT ... ON CONFLICT's WHERE expires_at < now()).
//
// Waiting for another instance's claim is short polling (ClaimWaits), not LISTEN/NOTIFY, because:
// - a killed holder sends no notification, so expiry needs a clock on the waiting side anyway;
// - LISTEN needs a connection of its own per front, kept outside the pool and listened again after
//   every reconnect (notifications sent while it was down are lost, so polling would back it up);
// - a notification's payload would carry the key (a person's phone or email) through the server;
// - the wait is rare (two instances asked the same question within one purchase, or a resend while
//   it was bought) and a purchase takes 100 ms or more: a poll every 50 ms adds at most that, and
//   one statement a tick checks every key this front waits for.
import type { Outcome } from '@enrich/core';
import { freshOnly, type PgContext } from './postgres-context.js';
import { isConnectionFailure, unavailable } from './postgres-errors.js';

export type DbClaim =
  | { readonly kind: 'answer'; readonly outcome: Outcome }
  | { readonly kind: 'claimed' }
  /** Another holder's live claim: wait for it. */
  | { readonly kind: 'busy' };

/** The answer if kept; else the claim when free, expired or already ours; else busy. */
export async function claimInDb(
  ctx: PgContext,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<DbClaim> {
  const s = ctx.schema;
  const first = await ctx.pool.query<{ outcome: Outcome | null; granted: boolean }>(
    `WITH fresh AS (
       SELECT a.outcome FROM ${s}.answers a WHERE a.namespace = $1 AND a.key = $2 ${freshOnly('a', 5)}
     ), taken AS (
       INSERT INTO ${s}.claims AS c (namespace, key, holder, expires_at)
       SELECT $1, $2, $3, now() + $4::float8 * interval '1 millisecond'
       WHERE NOT EXISTS (SELECT 1 FROM fresh)
       ON CONFLICT (namespace, key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE c.expires_at < now() OR c.holder = excluded.holder
       RETURNING 1
     )
     SELECT (SELECT outcome FROM fresh) AS outcome, EXISTS (SELECT 1 FROM taken) AS granted`,
    [ctx.namespace, key, holder, ttlMs, ctx.maxAgeMs],
  );
  const row = first.rows[0];
  if (row?.outcome) return { kind: 'answer', outcome: row.outcome };
  if (!row?.granted) return { kind: 'busy' };
  // The statement read the answers as they were when it began: a holder that put the answer and
  // ended its claim just after is seen only now. Without this look, that answer is bought again.
  const again = await ctx.pool.query<{ outcome: Outcome }>(
    `SELECT a.outcome FROM ${s}.answers a WHERE a.namespace = $1 AND a.key = $2 ${freshOnly('a', 3)}`,
    [ctx.namespace, key, ctx.maxAgeMs],
  );
  const outcome = again.rows[0]?.outcome;
  if (outcome === undefined) return { kind: 'claimed' };
  await releaseInDb(ctx, [key], holder);
  return { kind: 'answer', outcome };
}

/** Ends this holder's claims on these keys (no row if it holds none). */
export async function releaseInDb(ctx: PgContext, keys: readonly string[], holder: string): Promise<void> {
  await ctx.pool.query(
    `DELETE FROM ${ctx.schema}.claims WHERE namespace = $1 AND key = ANY($2::text[]) AND holder = $3`,
    [ctx.namespace, keys, holder],
  );
}

/** Renews the claims this front holds, every third of their life, while it holds any. */
export class ClaimRenewal {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: PgContext,
    private readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  add(key: string): void {
    this.held.add(key);
    this.timer ??= setInterval(() => void this.renew(), Math.max(10, this.ttlMs / 3)).unref();
  }

  delete(key: string): void {
    this.held.delete(key);
    if (this.held.size === 0) this.stop();
  }

  keys(): string[] {
    return [...this.held];
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.ctx.pool.query(
        `UPDATE ${this.ctx.schema}.claims SET expires_at = now() + $4::float8 * interval '1 millisecond'
         WHERE namespace = $1 AND key = ANY($2::text[]) AND holder = $3`,
        [this.ctx.namespace, [...this.held], this.holder, this.ttlMs],
      );
    } catch {
      // The next renewal tries again; a claim that expires meanwhile may be taken over, as after a kill.
    }
  }
}

/** What a wait for another holder's claim ends with: its answer, or the claim free to take. */
export type Seen = { readonly kind: 'answer'; readonly outcome: Outcome } | { readonly kind: 'free' };

interface Waiter {
  readonly resolve: (seen: Seen) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Waits for claims held elsewhere: one statement per tick reads, for every key waited for, its
 * answer and whether its claim is still live. A tick that fails on a broken connection is tried
 * again once after the retry delay; a second failure in a row fails every wait (StoreUnavailable).
 */
export class ClaimWaits {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private timer: NodeJS.Timeout | undefined;
  private failedTicks = 0;

  constructor(
    private readonly ctx: PgContext,
    private readonly pollMs: number,
  ) {}

  wait(key: string, signal: AbortSignal | undefined): Promise<Seen> {
    return new Promise<Seen>((resolve, reject) => {
      const waiters = this.waiting.get(key) ?? new Set<Waiter>();
      this.waiting.set(key, waiters);
      const forget = () => {
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        forget();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resolve: (seen) => {
          forget();
          resolve(seen);
        },
        reject: (error) => {
          forget();
          reject(error);
        },
      };
      waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.schedule(this.pollMs);
    });
  }

  /** Fails every wait (the front closes). */
  failAll(error: unknown): void {
    for (const waiters of [...this.waiting.values()]) for (const waiter of [...waiters]) waiter.reject(error);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    const keys = [...this.waiting.keys()];
    if (keys.length === 0) {
      this.timer = undefined;
      return;
    }
    const s = this.ctx.schema;
    try {
      const result = await this.ctx.pool.query<{ key: string; outcome: Outcome | null; free: boolean }>(
        `SELECT k.key, a.outcome, (c.key IS NULL OR c.expires_at < now()) AS free
         FROM unnest($2::text[]) AS k(key)
         LEFT JOIN ${s}.answers a ON a.namespace = $1 AND a.key = k.key ${freshOnly('a', 3)}
         LEFT JOIN ${s}.claims c ON c.namespace = $1 AND c.key = k.key`,
        [this.ctx.namespace, keys, this.ctx.maxAgeMs],
      );
      this.failedTicks = 0;
      for (const row of result.rows) {
        const seen: Seen | undefined = row.outcome
          ? { kind: 'answer', outcome: row.outcome }
          : row.free
            ? { kind: 'free' }
            : undefined;
        if (seen) for (const waiter of [...(this.waiting.get(row.key) ?? [])]) waiter.resolve(seen);
      }
    } catch (error) {
      this.failedTicks++;
      if (!isConnectionFailure(error) || this.failedTicks > 1) {
        this.failedTicks = 0;
        this.timer = undefined;
        this.failAll(unavailable(this.ctx.where, 'waiting for an answer another instance is buying', error));
        return;
      }
      this.timer = undefined;
      this.schedule(this.ctx.retryDelayMs);
      return;
    }
    this.timer = undefined;
    if (this.waiting.size > 0) this.schedule(this.pollMs);
  }
}
