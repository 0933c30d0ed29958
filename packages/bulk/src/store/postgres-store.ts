// The answer store's front over PostgreSQL: what a team's clients and every warehouse-function
// instance share, so that a person is bought once whoever asked first. Pooled (`pg`); the schema is
// created and migrated on open (postgres-schema.ts); claims across instances (postgres-claims.ts),
// with one caller per key in this process (local-claims.ts); money (postgres-spend.ts); what a
// database restart does (postgres-errors.ts). Nothing it logs or throws holds a row, a key, or the
// connection's password.
//
// A paid answer whose put failed (the database is down) is held (postgres-held.ts): served by this
// front, its claim kept renewed, written again every `flushMs` until it is, and at close set aside in a
// rescue file that the next open imports. An answer whose request holds a person forgotten in the
// store (its suppression list) is not kept: the caller who paid has it this once (postgres-held.ts).
import { randomUUID } from 'node:crypto';
import type { Outcome } from '@enrich/core';
import pg from 'pg';
import { LocalClaims, orAborted } from './local-claims.js';
import { ClaimRenewal, ClaimWaits, claimInDb, releaseInDb } from './postgres-claims.js';
import { freshOnly, type PgContext } from './postgres-context.js';
import { once, retriedOnce, unavailable } from './postgres-errors.js';
import { HeldAnswers, importSetAside } from './postgres-held.js';
import { checkSchemaName, migrate } from './postgres-schema.js';
import {
  forgetOldQueries,
  keepMonthlyCap,
  readCaps,
  readSpend,
  refundInDb,
  reserveInDb,
} from './postgres-spend.js';
import { readSalt } from './postgres-suppression.js';
import { checkMonthlyCap, checkSpendRequest } from './spend-rules.js';
import {
  type ClaimResult,
  type MonthlyCap,
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
  /** How often answers a put could not write are tried again while any are held; 2 s by default. */
  readonly flushMs?: number;
  /** Where answers still unwritten at close are set aside (and read at open); the temp directory by default. */
  readonly rescueDir?: string;
}

export class PostgresStore implements StoreFront {
  readonly where: string;
  readonly namespace: string;
  /** Who this front is in the claims table. */
  private readonly holder = randomUUID();
  private readonly local = new LocalClaims();
  private readonly renewal: ClaimRenewal;
  private readonly waits: ClaimWaits;
  private readonly held: HeldAnswers;
  private closed = false;

  private constructor(
    private readonly ctx: PgContext,
    private readonly options: PostgresStoreOptions,
  ) {
    this.where = ctx.where;
    this.namespace = ctx.namespace;
    this.renewal = new ClaimRenewal(ctx, this.holder, this.claimTtlMs);
    this.waits = new ClaimWaits(ctx, options.pollMs ?? 50);
    this.held = new HeldAnswers(ctx, this.holder, this.renewal, options.flushMs ?? 2000, options.rescueDir);
  }

  private get claimTtlMs(): number {
    return this.options.claimTtlMs ?? 20_000;
  }

  /**
   * Connects, creates or migrates the schema, keeps the monthly cap given (the lowest set wins:
   * postgres-spend.ts), writes answers set aside here by an earlier front; throws StoreUnavailable
   * when the database cannot be reached.
   */
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
    const retryDelayMs = options.retryDelayMs ?? 1000;
    let ctx: PgContext;
    try {
      const salt = await retriedOnce(where, 'opening the store', retryDelayMs, async () => {
        await migrate(pool, schema);
        return readSalt(pool, schema);
      });
      ctx = {
        pool,
        schema,
        namespace: options.namespace,
        maxAgeMs: Number.isFinite(options.maxAgeMs) ? options.maxAgeMs : null,
        where,
        retryDelayMs,
        salt,
      };
      await forgetOldQueries(ctx);
      await keepMonthlyCap(ctx, options.maxTransactionsPerMonth);
      await importSetAside(ctx, options.rescueDir);
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
      const held = this.held.get(key);
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
      const held = this.held.get(key);
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
    // Held first: if the write fails, the paid answer is not lost with the error, and its claim is
    // still renewed until the timer writes it.
    this.held.hold(key, outcome);
    try {
      await retriedOnce(this.where, 'keeping an answer', this.ctx.retryDelayMs, () => this.held.write([key]));
    } finally {
      // Callers of this process waiting for the key find it held, or written.
      this.local.end(key);
    }
    if (this.held.size > 0) await this.held.write().catch(() => {});
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
    return once(this.where, 'reserving transactions', () => reserveInDb(this.ctx, request));
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

  /** Every namespace's monthly cap kept in the store. */
  async monthlyCaps(): Promise<MonthlyCap[]> {
    this.checkOpen();
    return retriedOnce(this.where, 'reading the caps', this.ctx.retryDelayMs, () => readCaps(this.ctx));
  }

  /**
   * Ends this front's claims, writes the answers it holds unwritten, closes the pool. Answers that
   * still could not be written are set aside for the next open (postgres-held.ts), and close throws
   * a StoreUnavailable saying where they are (or what is lost).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waits.failAll(new StoreUnavailable(`${this.where} is closed`));
    this.held.stop();
    this.renewal.stop();
    // Held answers keep their claims until written: released, another instance could buy them now.
    const claimed = this.renewal.keys().filter((key) => this.held.get(key) === undefined);
    this.local.endAll();
    try {
      if (claimed.length > 0) await releaseInDb(this.ctx, claimed, this.holder).catch(() => {});
      if (this.held.size > 0) {
        await retriedOnce(this.where, 'keeping answers', this.ctx.retryDelayMs, () =>
          this.held.write(),
        ).catch(() => {});
      }
    } finally {
      await this.ctx.pool.end().catch(() => {});
    }
    const setAside = this.held.setAside();
    if (setAside) throw setAside;
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreUnavailable(`${this.where} is closed`);
  }
}
