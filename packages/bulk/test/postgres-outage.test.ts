// The PostgreSQL store when things break under it: a holder killed mid-purchase (its claim is taken
// over once it expires, not before), the database restarted mid-run (every key still bought once,
// every answer kept), and the database down (a typed error without the password; a paid answer whose
// put failed is held and written once the database is back).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { StoreUnavailable } from '../src/store/store-front.js';
import {
  answer,
  answerFor,
  freshSchema,
  inParallel,
  openFront,
  pendingAfter,
  usePostgres,
} from './postgres-fixtures.js';

const at = usePostgres();
const HOLDER = fileURLToPath(new URL('./claim-holder.mjs', import.meta.url));

async function holderProcess(schema: string, key: string, ttlMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER], {
    env: {
      ...process.env,
      ENRICH_TEST_URL: at.cluster.url,
      ENRICH_TEST_SCHEMA: schema,
      ENRICH_TEST_KEY: key,
      ENRICH_TEST_TTL_MS: String(ttlMs),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  expect(line.toString().trim()).toBe('claimed');
  return child;
}

describe('a holder killed mid-purchase', () => {
  it('keeps its claim while alive (renewed past its life), and loses it once killed', async () => {
    const schema = freshSchema();
    const ttlMs = 600;
    const front = await openFront(at.cluster, { schema, claimTtlMs: ttlMs });
    const child = await holderProcess(schema, 'k', ttlMs);
    const asked = front.claim('k');
    // Three lives of a claim: the holder renews it, so nobody takes it over.
    expect(await pendingAfter(asked, 3 * ttlMs)).toBe(true);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await asked).toEqual({ kind: 'claimed' });
    const waited = Date.now() - killedAt;
    expect(waited).toBeLessThan(ttlMs + 1000);
    await front.put('k', answerFor('k'));
  }, 20_000);
});

describe('the database restarted mid-run', () => {
  it('buys each key once and keeps every answer', async () => {
    const schema = freshSchema();
    const options = { schema, poolSize: 4, retryDelayMs: 1500 };
    const fronts = [await openFront(at.cluster, options), await openFront(at.cluster, options)];
    const keys = Array.from({ length: 300 }, (_, i) => `email-verify|lead${i}@example.com`);
    const purchases = new Map<string, number>();
    let done = 0;
    let restarted: Promise<void> | undefined;
    await Promise.all(
      fronts.map((front) =>
        inParallel(keys, 8, async (key) => {
          await answer(front, key, purchases, 10);
          done++;
          if (done === 150) restarted = at.cluster.restart();
        }),
      ),
    );
    expect(restarted).toBeDefined();
    await restarted;
    expect([...purchases.values()].every((n) => n === 1)).toBe(true);
    expect(purchases.size).toBe(keys.length);
    expect((await fronts[1]?.getMany(keys))?.size).toBe(keys.length);
  }, 60_000);
});

describe('the database down', () => {
  it('fails with StoreUnavailable (no password); a paid answer is held, then written', async () => {
    const schema = freshSchema();
    const options = { schema, retryDelayMs: 100 };
    const front = await openFront(at.cluster, options);
    expect(await front.claim('paid')).toEqual({ kind: 'claimed' });
    await at.cluster.stop();
    let started = false;
    onTestFinished(async () => {
      if (!started) await at.cluster.start();
    });
    const failures = await Promise.all([
      front.put('paid', answerFor('paid')).catch((e: unknown) => e),
      front.claim('other').catch((e: unknown) => e),
      front.reserve({ operation: 'phone-lookup', count: 1 }).catch((e: unknown) => e),
    ]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(StoreUnavailable);
      expect(String((failure as Error).message)).not.toContain(at.cluster.password);
      expect(String((failure as Error).message)).toMatch(
        /^postgres postgres@127\.0\.0\.1:\d+\/enrich_test: /,
      );
    }
    // Held in memory: this front still answers it, and nobody buys it again here.
    expect(await front.claim('paid')).toEqual({ kind: 'answer', outcome: answerFor('paid') });
    await at.cluster.start();
    started = true;
    await front.claim('next');
    await front.put('next', answerFor('next'));
    const other = await openFront(at.cluster, options);
    expect([...(await other.getMany(['paid', 'next'])).keys()].sort()).toEqual(['next', 'paid']);
  }, 30_000);
});
