// The real `enrich` binary as a child process, killed (SIGKILL) or interrupted (SIGINT) part-way and
// then run again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { phone, readRecords, recordBilling, spawnCli, tempDir, writeCsv } from './helpers.js';
import { env, journalKeys, keyOf, server, useSandbox } from './process-setup.js';

useSandbox();

describe('resuming after a kill', () => {
  // 60 distinct phones, with duplicates and invalid rows among them.
  const DISTINCT = 60;
  const inputRows = (): string[][] => {
    const rows: string[][] = [['id', 'phone', 'note']];
    for (let i = 0; i < 90; i++)
      rows.push([String(i), phone(i % DISTINCT), i % 7 === 0 ? 'dup, "quoted"' : '']);
    rows.splice(10, 0, ['x1', '12345', 'invalid']);
    rows.splice(50, 0, ['x2', '', 'blank']);
    return rows;
  };
  const args = (concurrency: number) => [
    'phone-lookup',
    '--in',
    'in.csv',
    '--out',
    'out.csv',
    '--concurrency',
    String(concurrency),
    '--quiet',
  ];

  let reference: Buffer;
  beforeAll(async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), inputRows());
    const ran = await spawnCli(args(4), { env, cwd: dir }).done;
    expect(ran.code).toBe(0);
    reference = readFileSync(join(dir, 'out.csv'));
  });

  /**
   * Runs the command, SIGKILLs it the moment the sandbox bills request number `killAt` (so exactly
   * that one request is in flight and unanswered), then runs it again to the end.
   */
  async function killThenResume(dir: string, killAt: number) {
    server.sandbox.configure({ latencyMs: 5 });
    const billed = recordBilling(server);
    const child = spawnCli(args(1), { env, cwd: dir });
    billed.onBilled = (count) => {
      if (count === killAt) child.process.kill('SIGKILL');
    };
    const killed = await child.done;
    billed.onBilled = undefined;
    return { billed, killed };
  }

  it.each([1, 23, DISTINCT])(
    'killed as the service bills request %i, then run again: same output, only that request (in flight) paid twice',
    async (killAt) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), inputRows());
      const { billed, killed } = await killThenResume(dir, killAt);
      expect(killed.signal).toBe('SIGKILL');
      // No output that could pass for complete; the journal holds every answer that arrived.
      expect(existsSync(join(dir, 'out.csv'))).toBe(false);
      const journal = readFileSync(join(dir, CACHE_FILE), 'utf8').trim().split('\n').filter(Boolean);
      expect(journal).toHaveLength(killAt - 1);

      const resumed = await spawnCli(args(1), { env, cwd: dir }).done;
      expect(resumed.code).toBe(0);
      expect(readFileSync(join(dir, 'out.csv')).equals(reference)).toBe(true);
      // Every request was paid once, except the one in flight when the process died: the service
      // answered it, but the answer never reached the client, so no client could know it.
      expect(billed.bodies).toHaveLength(DISTINCT + 1);
      expect(new Set(billed.bodies).size).toBe(DISTINCT);
      const twice = billed.bodies.filter((b, i) => billed.bodies.indexOf(b) !== i);
      expect(twice).toEqual([billed.bodies[killAt - 1]]);
      expect(existsSync(join(dir, 'out.csv.partial'))).toBe(false);
    },
  );

  it.each([1, 30, DISTINCT])(
    'killed as request %i leaves (before the service sees it), then run again: every request paid exactly once',
    async (killAt) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), inputRows());
      server.sandbox.configure({ latencyMs: 5 });
      const billed = recordBilling(server);
      const child = spawnCli(args(1), { env, cwd: dir });
      billed.onArrival = (count) => {
        if (count !== killAt) return false;
        child.process.kill('SIGKILL');
        return true;
      };
      const killed = await child.done;
      billed.onArrival = undefined;
      expect(killed.signal).toBe('SIGKILL');
      expect(existsSync(join(dir, 'out.csv'))).toBe(false);
      const resumed = await spawnCli(args(1), { env, cwd: dir }).done;
      expect(resumed.code).toBe(0);
      expect(readFileSync(join(dir, 'out.csv')).equals(reference)).toBe(true);
      expect(billed.bodies).toHaveLength(DISTINCT);
      expect(server.sandbox.transactions()).toBe(DISTINCT);
    },
  );

  it('killed twice at different points, then finished: same output', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), inputRows());
    const first = await killThenResume(dir, 12);
    expect(first.killed.signal).toBe('SIGKILL');
    const second = await killThenResume(dir, 25);
    expect(second.killed.signal).toBe('SIGKILL');
    const done = await spawnCli(args(1), { env, cwd: dir }).done;
    expect(done.code).toBe(0);
    expect(readFileSync(join(dir, 'out.csv')).equals(reference)).toBe(true);
    const all = [...first.billed.bodies];
    expect(all).toHaveLength(DISTINCT + 2);
    expect(new Set(all).size).toBe(DISTINCT);
  });

  it('killed while concurrent requests are in flight: same output, only those in flight paid twice', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), inputRows());
    server.sandbox.configure({ latencyMs: 20 });
    const billed = recordBilling(server);
    const child = spawnCli(args(8), { env, cwd: dir });
    billed.onBilled = (count) => {
      if (count === 30) child.process.kill('SIGKILL');
    };
    await child.done;
    billed.onBilled = undefined;
    const journal = readFileSync(join(dir, CACHE_FILE), 'utf8').trim().split('\n');
    const answered = new Set(journal.map((line) => JSON.parse(line).key as string));
    const resumed = await spawnCli(args(8), { env, cwd: dir }).done;
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(dir, 'out.csv')).equals(reference)).toBe(true);
    expect(new Set(billed.bodies).size).toBe(DISTINCT);
    const twice = billed.bodies.filter((b, i) => billed.bodies.indexOf(b) !== i);
    // Those paid twice are exactly requests whose answers had not reached the journal: at most the
    // eight in flight.
    expect(twice.length).toBeLessThanOrEqual(8);
    for (const body of twice) {
      const key = `phone-lookup:${JSON.stringify([['Phone', JSON.parse(body).Phone]])}`;
      expect(answered.has(key)).toBe(false);
    }
  });

  it('Ctrl-C (SIGINT) waits for the requests in flight, saves them, and the rerun pays for nothing twice', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), inputRows());
    server.sandbox.configure({ latencyMs: 20 });
    const billed = recordBilling(server);
    const child = spawnCli(args(8), { env, cwd: dir });
    billed.onBilled = (count) => {
      if (count === 20) child.process.kill('SIGINT');
    };
    const stopped = await child.done;
    billed.onBilled = undefined;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/Run the same command again to carry on/);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    expect(existsSync(join(dir, 'out.csv.partial'))).toBe(false);
    const resumed = await spawnCli(args(8), { env, cwd: dir }).done;
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(dir, 'out.csv')).equals(reference)).toBe(true);
    expect(billed.bodies).toHaveLength(DISTINCT);
    expect(new Set(billed.bodies).size).toBe(DISTINCT);
    expect(readRecords(join(dir, 'out.csv')).filter((r) => r.status === 'ok')).toHaveLength(90);
  });
});

describe('SIGKILL at random points', () => {
  const DISTINCT = 60;
  const rows = (): string[][] => [['phone'], ...Array.from({ length: DISTINCT }, (_, i) => [phone(500 + i)])];
  // Random kill points, printed in the test names so that a failure can be replayed.
  const points = Array.from({ length: 3 }, () => 1 + Math.floor(Math.random() * (DISTINCT - 1)));

  it.each(points)(
    'killed as the service bills request %i (concurrency 4): journal = answers that arrived; the rerun buys again at most those in flight',
    async (killAt) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), rows());
      server.sandbox.configure({ latencyMs: 10 });
      const billed = recordBilling(server);
      const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--concurrency', '4', '--quiet'];
      const child = spawnCli(args, { env, cwd: dir });
      billed.onBilled = (count) => {
        if (count === killAt) child.process.kill('SIGKILL');
      };
      const killed = await child.done;
      billed.onBilled = undefined;
      expect(killed.signal).toBe('SIGKILL');
      const journaled = journalKeys(join(dir, CACHE_FILE));
      // Every journaled answer was paid for; the ones paid but not journaled were in flight.
      expect(journaled.size).toBeLessThanOrEqual(billed.bodies.length);
      expect(billed.bodies.length - journaled.size).toBeLessThanOrEqual(4);
      const resumed = await spawnCli(args, { env, cwd: dir }).done;
      expect(resumed.code).toBe(0);
      expect(new Set(billed.bodies).size).toBe(DISTINCT);
      const twice = billed.bodies.filter((b, i) => billed.bodies.indexOf(b) !== i);
      expect(twice.length).toBeLessThanOrEqual(4);
      for (const body of twice) expect(journaled.has(keyOf(body))).toBe(false);
      // In the end the journal holds one answer per paid request.
      expect(journalKeys(join(dir, CACHE_FILE)).size).toBe(DISTINCT);
    },
  );
});
