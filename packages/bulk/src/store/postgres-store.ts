// The answer store's front over PostgreSQL: what a team's clients and every warehouse-function
// instance share, so that a person is bought once whoever asked first. Pooled (`pg`); the schema is
// created and migrated on open (postgres-schema.ts); claims across instances (postgres-claims.ts),
// with one caller per key in this process (local-claims.ts); money (postgres-spend.ts); what a
// database restart does (postgres-errors.ts). Nothing it logs or throws holds a row, a key, or the
// connection's password.
//
// A paid answer whose put failed (the database is down) is held in memory: served by this front,
// written with the next put that succeeds, and at close; close throws if some still could not be.
import { randomUUID } from 'node:crypto';
import type { Outcome } from '@enrich/core';
import pg from 'pg';
import { LocalClaims, orAborted } from './local-claims.js';
import { ClaimRenewal, ClaimWaits, claimInDb, releaseInDb } from './postgres-claims.js';
import { freshOnly, type PgContext } from './postgres-context.js';
import { once, retriedOnce, unavailable } from './postgres-errors.js';
import { checkSchemaName, migrate } from './postgres-schema.js';
import { forgetOldQueries, readSpend, refundInDb, reserveInDb } from './postgres-spend.js';
import { checkMonthlyCap, checkSpendRequest } from './spend-rules.js';
import {
  type ClaimResult,
  type SpendRequest,
  type SpendRow,
  type StoreFront,
  type StoreOptions,
  StoreUnavailable,
} from './store-front.js';
import { describePostgresUrl } from './store-url.js';

export interface PostgresStoreOptions extends StoreOptions {
  /** postgres://user:password@host:5432/database (or postgresql://). */
  readonly url: string;
  /** The schema the tables live in; `enrich` by default. */
  readonly schema?: string;
  /** Connections in the pool; 10 by default. */
  readonly poolSize?: number;
  /** How long a claim lives without renewal (its holder renews it every third of that); 20 s by default. */
  readonly claimTtlMs?: number;
  /** How often a wait for another instance's claim looks again; 50 ms by default. */
  readonly pollMs?: number;
  /** The pause before an operation that met a broken connection is tried again (once); 1 s by default. */
  readonly retryDelayMs?: number;
  /** The longest wait for a connection, and for a statement; 10 s and 30 s by default. */
  readonly connectTimeoutMs?: number;
  readonly queryTimeoutMs?: number;
}

export class PostgresStore implements StoreFront {
  readonly where: string;
  /** Who this front is in the claims table. */
  private readonly holder = randomUUID();
  private readonly local = new LocalClaims();
  private readonly renewal: ClaimRenewal;
  private readonly waits: ClaimWaits;
  private readonly unsaved = new Map<string, Outcome>();
  private closed = false;

  private constructor(
    private readonly ctx: PgContext,
    private readonly options: PostgresStoreOptions,
  ) {
    this.where = ctx.where;
    this.renewal = new ClaimRenewal(ctx, this.holder, this.claimTtlMs);
    this.waits = new ClaimWaits(ctx, options.pollMs ?? 50);
  }

  private get claimTtlMs(): number {
    return this.options.claimTtlMs ?? 20_000;
  }

  /** Connects, creates or migrates the schema; throws StoreUnavailable when the database cannot be reached. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const schema = options.schema ?? 'enrich';
    checkSchemaName(schema);
    checkMonthlyCap(options.maxTransactionsPerMonth);
    const where = describePostgresUrl(options.url);
    const pool = new pg.Pool({
      connectionString: options.url.trim(),
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      query_timeout: options.queryTimeoutMs ?? 30_000,
      application_name: 'enrich',
    });
    // An idle connection the server ended (a restart) is the pool's to drop; unhandled, it would kill us.
    pool.on('error', () => {});
    const ctx: PgContext = {
      pool,
      schema,
      namespace: options.namespace,
      maxAgeMs: Number.isFinite(options.maxAgeMs) ? options.maxAgeMs : null,
      where,
      retryDelayMs: options.retryDelayMs ?? 1000,
    };
    try {
      await retriedOnce(where, 'opening the store', ctx.retryDelayMs, () => migrate(pool, schema));
      await forgetOldQueries(ctx);
    } catch (error) {
      await pool.end().catch(() => {});
      throw unavailable(where, 'opening the store', error);
    }
    return new PostgresStore(ctx, options);
  }

  async getMany(keys: readonly string[]): Promise<Map<string, Outcome>> {
    this.checkOpen();
    const found = new Map<string, Outcome>();
    const asked: string[] = [];
    for (const key of keys) {
      const held = this.unsaved.get(key);
      if (held) found.set(key, held);
      else asked.push(key);
    }
    if (asked.length === 0) return found;
    const { pool, schema, namespace, maxAgeMs } = this.ctx;
    const result = await retriedOnce(this.where, 'reading answers', this.ctx.retryDelayMs, () =>
      pool.query<{ key: string; outcome: Outcome }>({
        // Prepared once per connection: the hot path skips parsing and planning.
        name: `enrich-get-${schema}`,
        text: `SELECT a.key, a.outcome FROM ${schema}.answers a
         WHERE a.namespace = $1 AND a.key = ANY($2::text[]) ${freshOnly('a', 3)}`,
        values: [namespace, asked, maxAgeMs],
      }),
    );
    for (const row of result.rows) found.set(row.key, row.outcome);
    return found;
  }

  async claim(key: string, options?: { readonly signal?: AbortSignal }): Promise<ClaimResult> {
    const signal = options?.signal;
    for (;;) {
      this.checkOpen();
      signal?.throwIfAborted();
      const held = this.unsaved.get(key);
      if (held) return { kind: 'answer', outcome: held };
      const busy = this.local.take(key);
      if (busy) {
        await orAborted(busy, signal);
        continue;
      }
      let claim: Awaited<ReturnType<typeof claimInDb>>;
      try {
        claim = await retriedOnce(this.where, 'claiming an answer', this.ctx.retryDelayMs, () =>
          claimInDb(this.ctx, key, this.holder, this.claimTtlMs),
        );
      } catch (error) {
        this.local.end(key);
        throw error;
      }
      if (claim.kind === 'claimed') {
        this.renewal.add(key);
        return claim;
      }
      this.local.end(key);
      if (claim.kind === 'answer') return claim;
      const seen = await this.waits.wait(key, signal);
      if (seen.kind === 'answer') return seen;
      // The claim is free (released, or expired: its holder died): ask again, and perhaps take it.
    }
  }

  async put(key: string, outcome: Outcome): Promise<void> {
    this.checkOpen();
    // Held first: if the write fails, the paid answer is not lost with the error.
    this.unsaved.set(key, outcome);
    try {
      await retriedOnce(this.where, 'keeping an answer', this.ctx.retryDelayMs, () => this.write([key]));
    } finally {
      this.renewal.delete(key);
      this.local.end(key);
    }
    if (this.unsaved.size > 0) await this.write([...this.unsaved.keys()]).catch(() => {});
  }

  async release(key: string): Promise<void> {
    if (!this.local.holds(key)) return;
    this.renewal.delete(key);
    this.local.end(key);
    if (this.closed) return;
    // Left alone, the claim would only expire: others would wait for nothing until then.
    await retriedOnce(this.where, 'releasing a claim', this.ctx.retryDelayMs, () =>
      releaseInDb(this.ctx, [key], this.holder),
    );
  }

  async reserve(request: SpendRequest): Promise<number> {
    this.checkOpen();
    checkSpendRequest(request);
    return once(this.where, 'reserving transactions', () =>
      reserveInDb(this.ctx, request, this.options.maxTransactionsPerMonth),
    );
  }

  async refund(request: SpendRequest): Promise<void> {
    this.checkOpen();
    checkSpendRequest(request);
    await once(this.where, 'giving back transactions', () => refundInDb(this.ctx, request));
  }

  async spend(): Promise<SpendRow[]> {
    this.checkOpen();
    return retriedOnce(this.where, 'reading the spend', this.ctx.retryDelayMs, () => readSpend(this.ctx));
  }

  /** Ends this front's claims, writes what it holds unsaved, closes the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waits.failAll(new StoreUnavailable(`${this.where} is closed`));
    this.renewal.stop();
    const claimed = this.renewal.keys();
    this.local.endAll();
    try {
      if (claimed.length > 0) await releaseInDb(this.ctx, claimed, this.holder).catch(() => {});
      if (this.unsaved.size > 0) {
        await retriedOnce(this.where, 'keeping answers', this.ctx.retryDelayMs, () =>
          this.write([...this.unsaved.keys()]),
        ).catch(() => {});
      }
    } finally {
      await this.ctx.pool.end().catch(() => {});
    }
    if (this.unsaved.size > 0) {
      throw new StoreUnavailable(`${this.where}: ${this.unsaved.size} paid answers could not be kept`);
    }
  }

  /** Writes held answers (and ends this front's claims on them) in one statement. */
  private async write(wanted: readonly string[]): Promise<void> {
    const held = wanted.flatMap((key) => {
      const outcome = this.unsaved.get(key);
      return outcome === undefined ? [] : [{ key, outcome }];
    });
    if (held.length === 0) return;
    const keys = held.map(({ key }) => key);
    const outcomes = held.map(({ outcome }) => JSON.stringify(outcome));
    const s = this.ctx.schema;
    await this.ctx.pool.query(
      `WITH kept AS (
         INSERT INTO ${s}.answers AS a (namespace, key, outcome, bought_at)
         SELECT $1, u.key, u.outcome::json, now() FROM unnest($2::text[], $3::text[]) AS u(key, outcome)
         ON CONFLICT (namespace, key) DO UPDATE SET outcome = excluded.outcome, bought_at = excluded.bought_at
       )
       DELETE FROM ${s}.claims WHERE namespace = $1 AND key = ANY($2::text[]) AND holder = $4`,
      [this.ctx.namespace, keys, outcomes, this.holder],
    );
    for (const { key, outcome } of held) if (this.unsaved.get(key) === outcome) this.unsaved.delete(key);
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreUnavailable(`${this.where} is closed`);
  }
}
