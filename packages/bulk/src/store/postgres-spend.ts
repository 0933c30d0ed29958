// Money across instances: the spend table (month UTC, namespace, operation) and each query's spend.
// A reservation counts as spent at once (refund gives back what was not paid), so the spend table is
// at every moment what was bought or may be being bought, and the caps are checked against it.
//
// Atomic across instances: when a cap applies (the store-wide monthly cap of the namespace, or a
// query's budget), the reservation reads the cap and what was spent and adds to it in one
// transaction that holds an advisory lock of the namespace; every other reservation of the
// namespace waits for its COMMIT, so two instances never both see the last free transactions.
// Refunds only take away, so they need no lock: one statement each.
//
// The monthly cap is the store's own (the settings table), not each client's: a client opened with
// --max-transactions-per-month sets it, the lowest set wins (a client may tighten the team's
// ceiling, never loosen it; raising it is an UPDATE of the settings row, see the README), and every
// client of the store enforces it, given the option or not. Without a cap, a reservation is one
// statement that holds the namespace's settings row FOR SHARE: a cap set at that moment (an UPDATE of
// that row) waits for it, or it sees the cap and takes the locked path, so no reservation slips past
// a cap being set.
import type pg from 'pg';
import type { PgContext } from './postgres-context.js';
import { inTransaction } from './postgres-transaction.js';
import { granted } from './spend-rules.js';
import type { MonthlyCap, SpendRequest, SpendRow } from './store-front.js';

/** The current month in UTC, by the database's clock (one clock for every instance). */
const MONTH = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`;

async function addSpend(
  db: pg.Pool | pg.PoolClient,
  ctx: PgContext,
  month: string | null,
  request: SpendRequest,
  count: number,
): Promise<void> {
  const s = ctx.schema;
  await db.query(
    `INSERT INTO ${s}.spend AS t (month, namespace, operation, transactions)
     VALUES (coalesce($1, ${MONTH}), $2, $3, $4)
     ON CONFLICT (month, namespace, operation) DO UPDATE SET transactions = t.transactions + excluded.transactions`,
    [month, ctx.namespace, request.operation, count],
  );
  if (request.query === undefined) return;
  await db.query(
    `INSERT INTO ${s}.query_spend AS q (namespace, query_id, transactions) VALUES ($1, $2, $3)
     ON CONFLICT (namespace, query_id) DO UPDATE SET transactions = q.transactions + excluded.transactions, updated_at = now()`,
    [ctx.namespace, request.query.id, count],
  );
}

/**
 * The namespace's settings row, made when missing; with a cap, the store's cap becomes the lower of
 * the one kept and this one (no cap kept: this one).
 */
export async function keepMonthlyCap(ctx: PgContext, cap: number | undefined): Promise<void> {
  const s = ctx.schema;
  await ctx.pool.query(
    `INSERT INTO ${s}.settings AS t (namespace, max_transactions_per_month) VALUES ($1, $2)
     ON CONFLICT (namespace) DO UPDATE SET max_transactions_per_month = excluded.max_transactions_per_month, updated_at = now()
       WHERE excluded.max_transactions_per_month < coalesce(t.max_transactions_per_month, 'infinity'::float8)`,
    [ctx.namespace, cap ?? null],
  );
}

/** Every namespace's monthly cap kept in the store, by namespace. */
export async function readCaps(ctx: PgContext): Promise<MonthlyCap[]> {
  const result = await ctx.pool.query<{ namespace: string; cap: string }>(
    `SELECT namespace, max_transactions_per_month AS cap FROM ${ctx.schema}.settings
     WHERE max_transactions_per_month IS NOT NULL ORDER BY namespace`,
  );
  return result.rows.map((row) => ({ namespace: row.namespace, maxTransactionsPerMonth: Number(row.cap) }));
}

/** Adds the spend when the namespace has no cap, in one statement; false when it has one. */
async function addUncapped(ctx: PgContext, request: SpendRequest): Promise<boolean> {
  const s = ctx.schema;
  const result = await ctx.pool.query(
    `WITH uncapped AS (
       SELECT 1 FROM ${s}.settings WHERE namespace = $1 AND max_transactions_per_month IS NULL FOR SHARE
     )
     INSERT INTO ${s}.spend AS t (month, namespace, operation, transactions)
     SELECT ${MONTH}, $1, $2, $3 FROM uncapped
     ON CONFLICT (month, namespace, operation) DO UPDATE SET transactions = t.transactions + excluded.transactions`,
    [ctx.namespace, request.operation, request.count],
  );
  return result.rowCount === 1;
}

interface Spent {
  readonly month: string;
  readonly month_total: string;
  readonly query_total: string | null;
  readonly cap: string | null;
}

/** How many of `request.count` may be spent (0 to count), counted as spent already. */
export async function reserveInDb(ctx: PgContext, request: SpendRequest): Promise<number> {
  if (request.count === 0) return 0;
  if (request.query === undefined && (await addUncapped(ctx, request))) return request.count;
  // One transaction (postgres-transaction.ts: rolled back on failure, the connection's `error`
  // events heard while it is out of the pool).
  return inTransaction(ctx.pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
      `enrich-spend:${ctx.schema}`,
      ctx.namespace,
    ]);
    const spent = await client.query<Spent>(
      `SELECT m.month,
           (SELECT coalesce(sum(transactions), 0) FROM ${ctx.schema}.spend WHERE month = m.month AND namespace = $1) AS month_total,
           (SELECT transactions FROM ${ctx.schema}.query_spend WHERE namespace = $1 AND query_id = $2) AS query_total,
           (SELECT max_transactions_per_month FROM ${ctx.schema}.settings WHERE namespace = $1) AS cap
         FROM (SELECT ${MONTH} AS month) m`,
      [ctx.namespace, request.query?.id ?? null],
    );
    const row = spent.rows[0] as Spent;
    const capLeft = row.cap === null ? Number.POSITIVE_INFINITY : Number(row.cap) - Number(row.month_total);
    const queryLeft = request.query
      ? request.query.limit - Number(row.query_total ?? 0)
      : Number.POSITIVE_INFINITY;
    const count = granted(request.count, capLeft, queryLeft);
    if (count > 0) await addSpend(client, ctx, row.month, request, count);
    return count;
  });
}

/** Gives back what was reserved and not spent, this month; never below 0. */
export async function refundInDb(ctx: PgContext, request: SpendRequest): Promise<void> {
  if (request.count === 0) return;
  const s = ctx.schema;
  const spend = `UPDATE ${s}.spend SET transactions = greatest(0, transactions - $3)
     WHERE month = ${MONTH} AND namespace = $1 AND operation = $2`;
  if (request.query === undefined) {
    await ctx.pool.query(spend, [ctx.namespace, request.operation, request.count]);
    return;
  }
  // One statement, so both change or neither.
  await ctx.pool.query(
    `WITH spent AS (${spend})
     UPDATE ${s}.query_spend SET transactions = greatest(0, transactions - $3), updated_at = now()
     WHERE namespace = $1 AND query_id = $4`,
    [ctx.namespace, request.operation, request.count, request.query.id],
  );
}

/** Every namespace's spend, oldest month first. */
export async function readSpend(ctx: PgContext): Promise<SpendRow[]> {
  const result = await ctx.pool.query<{
    month: string;
    namespace: string;
    operation: string;
    transactions: string;
  }>(
    `SELECT month, namespace, operation, transactions FROM ${ctx.schema}.spend
     WHERE transactions > 0 ORDER BY month, namespace, operation`,
  );
  return result.rows.map((row) => ({ ...row, transactions: Number(row.transactions) }));
}

/** Query budgets untouched for 35 days are forgotten (a warehouse job id is not used again). */
export async function forgetOldQueries(ctx: PgContext): Promise<void> {
  await ctx.pool.query(`DELETE FROM ${ctx.schema}.query_spend WHERE updated_at < now() - interval '35 days'`);
}
