// Issue 38 in the functions server (the built server in a process of its own, the sandbox over real
// HTTP on 127.0.0.1): a person forgotten with `enrich forget` (bulk's forgetEverywhere) is refused
// row by row before anything is sent: through the service user's own list (its data folder), and,
// with --store, the team's list in a real PostgreSQL store.
import { forgetEverywhere, sharedTarget } from '@enrich/bulk';
import { type PostgresCluster, startPostgresCluster } from '@enrich/bulk/test-postgres';
import { identitiesOf } from '@enrich/core';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, serviceEnv, startInstance, startSandbox, tempDir } from './helpers.js';

let sandbox: SandboxServer;
let cluster: PostgresCluster;
beforeAll(async () => {
  sandbox = await startSandbox();
  cluster = await startPostgresCluster();
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  await cluster?.remove();
});

const person = () => {
  const read = identitiesOf({ Phone: '(555) 010-2030' });
  if (!read.ok) throw new Error(read.message);
  return read.identities;
};

async function rowsOf(url: string): Promise<string[]> {
  const answer = await post(url, '/rows', {
    operation: 'phone-lookup',
    rows: [{ Phone: '555.010.2030' }, { Phone: '5550104321' }],
  });
  expect(answer.status).toBe(200);
  return (answer.json.results as { status: string }[]).map((r) => r.status);
}

describe('a forgotten person and the functions server', () => {
  it("is refused through the service user's own list: nothing sent for them", async () => {
    const dataDir = tempDir('enrich-functions-data-');
    await forgetEverywhere({ dataDir, cacheDir: tempDir('enrich-functions-cache-') }, person());
    const instance = await startInstance({ env: serviceEnv(sandbox, { ENRICH_DATA_DIR: dataDir }) });
    try {
      const before = sandbox.sandbox.transactions();
      const statuses = await rowsOf(instance.url);
      expect(statuses[0]).toMatch(
        /^invalid: forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent$/,
      );
      expect(statuses[1]).toBe('ok');
      expect(sandbox.sandbox.transactions() - before).toBe(1);
    } finally {
      await instance.stop();
    }
  });

  it("with --store, is refused through the team's list in the shared store", async () => {
    const store = await cluster.createDatabase('forget');
    // Forgotten by another member of the team: their data folder, the shared store.
    await forgetEverywhere(
      {
        dataDir: tempDir('enrich-functions-data-'),
        cacheDir: tempDir('enrich-functions-cache-'),
        shared: sharedTarget(store),
      },
      person(),
    );
    const instance = await startInstance({ args: ['--store', store], env: serviceEnv(sandbox) });
    try {
      const before = sandbox.sandbox.transactions();
      const statuses = await rowsOf(instance.url);
      expect(statuses[0]).toMatch(/^invalid: forgotten at the person's request on /);
      expect(sandbox.sandbox.transactions() - before).toBe(1);
    } finally {
      await instance.stop();
    }
  });
});
