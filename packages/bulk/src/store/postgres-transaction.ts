// One transaction on a connection of the pool, for the statements that must share one (a lock held
// to the end of the transaction, a check and a write). The connection is given back at the end, and
// dropped when it failed. While it is out of the pool, its `error` events (the server ended the
// session: a restart) are listened to here: the pool listens only to idle connections, and an
// unheard `error` would end the process; the failed query rejects with it anyway.
import type pg from 'pg';

const ignore = () => {};

/**
 * Runs `work` in a transaction. `begin` is sent with BEGIN in one round trip (a statement without
 * parameters: the suppression list's lock, postgres-suppression.ts), since a write waits for each.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = '',
): Promise<T> {
  const client = await pool.connect();
  client.on('error', ignore);
  let failure: Error | undefined;
  try {
    await client.query(begin === '' ? 'BEGIN' : `BEGIN; ${begin}`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(ignore);
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(failure);
  }
}
