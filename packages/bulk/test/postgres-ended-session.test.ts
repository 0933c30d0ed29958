// A session the server ends (a restart, an administrator's pg_terminate_backend) while one of our
// transactions holds its connection between two statements. The pool hears only idle connections;
// one taken out of it emits `error` on its own, and an `error` nobody listens to ends the process:
// the functions server, the MCP server, a bulk run, all at once. Every transaction of the store goes
// through inTransaction (postgres-transaction.ts), which listens while the connection is out: the
// call fails, the process goes on. (CI once saw the unheard error during the outage test, from the
// spend's and the migration's own transactions, which now go through it too.)
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../src/store/postgres-transaction.js';
import { usePostgres } from './postgres-fixtures.js';

const at = usePostgres();

describe('a session the server ends mid-transaction', () => {
  it('fails the transaction, and nothing is left unheard to end the process', async () => {
    const pool = new pg.Pool({ connectionString: at.cluster.url, max: 2 });
    pool.on('error', () => {});
    const unheard: unknown[] = [];
    const onUncaught = (error: unknown) => unheard.push(error);
    process.on('uncaughtException', onUncaught);
    const admin = new pg.Client({ connectionString: at.cluster.url });
    await admin.connect();
    try {
      const run = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // Ended while no statement of ours is under way: the FATAL comes as an event of the client.
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await client.query('SELECT 1');
      });
      await expect(run).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unheard).toEqual([]);
      // The pool dropped the dead connection: the next transaction gets a live one.
      await expect(
        inTransaction(pool, async (client) => (await client.query('SELECT 1 AS one')).rows),
      ).resolves.toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await pool.end();
    }
  });

  it('an error the moment the connection leaves the pool (ended in the same packet as the answer before) is heard', async () => {
    const pool = new pg.Pool({ connectionString: at.cluster.url, max: 1 });
    pool.on('error', () => {});
    // As the connection is handed over, its session "ends": the event comes before the code that
    // asked for the connection resumes (what a restart's FATAL read with the last answer does).
    pool.on('acquire', (client) => {
      process.nextTick(() =>
        client.emit('error', new Error('terminating connection due to administrator command')),
      );
    });
    const unheard: unknown[] = [];
    const onUncaught = (error: unknown) => unheard.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await inTransaction(pool, async (client) => (await client.query('SELECT 1 AS one')).rows);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unheard).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });
});
