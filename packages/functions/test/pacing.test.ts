// Several instances on one key, behind a gateway that lets so many requests through per second
// (the sandbox's token bucket, 429 with Retry-After past it): each instance runs core's pace, so
// each backs off on 429 and climbs back as the service allows; together they finish, none starved,
// and nothing is bought twice (their answers share one store).
import { type PostgresCluster, startPostgresCluster } from '@enrich/bulk/test-postgres';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigQueryBody,
  type Instance,
  phones,
  post,
  serviceEnv,
  startInstance,
  startSandbox,
  statuses,
} from './helpers.js';

let cluster: PostgresCluster;
let sandbox: SandboxServer;
let fleet: Instance[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  sandbox = await startSandbox({ latencyMs: 40, rate: 40 });
  fleet = await Promise.all(
    [0, 1, 2].map(() =>
      startInstance({ args: ['--port', '0', '--store', cluster.url], env: serviceEnv(sandbox) }),
    ),
  );
});

afterAll(async () => {
  await Promise.all(fleet.map((instance) => instance.stop()));
  await sandbox?.close();
  await cluster?.remove();
});

describe('three instances on one key at 40 requests a second', () => {
  it('back off on 429 and share the rate: every batch answered, none starved, nothing bought twice', async () => {
    const started = Date.now();
    // Each instance answers six batches of 20 one after another, as a query's workers send them.
    const done = await Promise.all(
      fleet.map(async (instance, i) => {
        const times: number[] = [];
        for (let b = 0; b < 6; b++) {
          const batch = phones(20, 70_000 + i * 1000 + b * 20).map((phone) => [phone]);
          for (let attempt = 1; ; attempt++) {
            // As BigQuery does: a 503 is sent again (what was bought is free the second time).
            const answer = await post(
              instance.url,
              '/bigquery',
              bigQueryBody({ operation: 'phone-lookup' }, batch),
            );
            if (answer.status === 200) {
              expect(statuses(answer.json.replies).every((s) => s === 'ok')).toBe(true);
              break;
            }
            expect(answer.status).toBe(503);
            expect(attempt).toBeLessThan(5);
          }
          times.push(Date.now() - started);
        }
        return times;
      }),
    );
    const stats = sandbox.sandbox.stats();
    expect(stats.transactions).toBe(360);
    // The gateway refused some: the instances found the rate by meeting it.
    expect(stats.throttled).toBeGreaterThan(0);
    // ...and backed off at once: without the pace's cut of its rate, each instance ran into the
    // gateway 50 to 100 times in this run; with it, a few to twenty when this test was written, 22 to
    // 30 in eight runs on 2026-11-28 (after issue 36's changes to slow start).
    expect(stats.throttled).toBeLessThan(360 / 10);
    // ...and none is held out until the others are done: each has a batch answered before any
    // instance has answered its last. (How near the bucket's rate they keep together is a figure
    // of `pnpm bench`, section (i): a time bound here failed under the parallel suite's load.)
    const firstAnswered = Math.max(...done.map((times) => times[0] as number));
    const firstDone = Math.min(...done.map((times) => times.at(-1) as number));
    expect(firstAnswered, JSON.stringify(done)).toBeLessThan(firstDone);
  });
});
