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
  const client = await connected(pool);
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

/**
 * A connection out of the pool, listened to from the moment it is handed over. With `await
 * pool.connect()` it went unheard until the caller's code resumed, a moment later: a session the
 * server ended in the same packet as the answer before (a restart ends every session) emitted its
 * `error` in that moment, and the process ended (CI saw it in the outage test). The callback form
 * is called as the connection leaves the pool, so the listener is there before any other event.
 */
function connected(pool: pg.Pool): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || client === undefined) {
        reject(error ?? new Error('the pool gave no connection'));
        return;
      }
      client.on('error', ignore);
      resolve(client);
    });
  });
}
