// Money across instances: the spend table (month UTC, namespace, operation) and each query's spend.
// A reservation counts as spent at once (refund gives back what was not paid), so the spend table is
// at every moment what was bought or may be being bought, and the caps are checked against it.
//
// Atomic across instances: when a cap applies (the store-wide monthly cap of the namespace, or a
// query's budget), the reservation reads what was spent and adds to it in one transaction that
// holds an advisory lock of the namespace; every other reservation of the namespace waits for its
// COMMIT, so two instances never both see the last free transactions. Refunds only take away, so
// they need no lock: one statement each.
import type pg from 'pg';
import type { PgContext } from './postgres-context.js';
import { granted } from './spend-rules.js';
import type { SpendRequest, SpendRow } from './store-front.js';

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

/** How many of `request.count` may be spent (0 to count), counted as spent already. */
export async function reserveInDb(
  ctx: PgContext,
  request: SpendRequest,
  cap: number | undefined,
): Promise<number> {
  if (request.count === 0) return 0;
  if (cap === undefined && request.query === undefined) {
    await addSpend(ctx.pool, ctx, null, request, request.count);
    return request.count;
  }
  const client = await ctx.pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
      `enrich-spend:${ctx.schema}`,
      ctx.namespace,
    ]);
    const spent = await client.query<{ month: string; month_total: string; query_total: string | null }>(
      `SELECT m.month,
         (SELECT coalesce(sum(transactions), 0) FROM ${ctx.schema}.spend WHERE month = m.month AND namespace = $1) AS month_total,
         (SELECT transactions FROM ${ctx.schema}.query_spend WHERE namespace = $1 AND query_id = $2) AS query_total
       FROM (SELECT ${MONTH} AS month) m`,
      [ctx.namespace, request.query?.id ?? null],
    );
    const row = spent.rows[0] as { month: string; month_total: string; query_total: string | null };
    const capLeft = cap === undefined ? Number.POSITIVE_INFINITY : cap - Number(row.month_total);
    const queryLeft = request.query
      ? request.query.limit - Number(row.query_total ?? 0)
      : Number.POSITIVE_INFINITY;
    const count = granted(request.count, capLeft, queryLeft);
    if (count > 0) await addSpend(client, ctx, row.month, request, count);
    await client.query('COMMIT');
    return count;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A connection that failed is not given back to the pool.
    client.release(failure);
  }
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
