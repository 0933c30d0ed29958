// The real `enrich` binary as a child process: exit codes, and runs killed (SIGKILL) or interrupted
// (SIGINT) part-way and then run again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_KEY, RESERVED, type SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseLine } from '../src/answer-store.js';
import { CACHE_FILE } from '../src/main.js';
import {
  phone,
  readRecords,
  recordBilling,
  sandboxEnv,
  spawnCli,
  startServer,
  stopRecording,
  tempDir,
  writeCsv,
} from './helpers.js';

let server: SandboxServer;
let env: Record<string, string>;
const reservedPhone = (outcome: string) => RESERVED.find((r) => r.outcome === outcome)?.phone ?? '';

beforeAll(async () => {
  server = await startServer();
  env = sandboxEnv(server);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  stopRecording(server);
});
beforeEach(() => {
  server.sandbox.reset();
  server.sandbox.configure({ latencyMs: 0, faultRate: 0 });
});

describe('exit codes', () => {
  const run = (args: string[], extraEnv: Record<string, string> = env) =>
    spawnCli(args, { env: extraEnv, cwd: tempDir() }).done;

  it('0 with the record as a table, or JSON', async () => {
    const table = await run(['Phone Lookup', '--phone', '(555) 100-0001']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Phone Lookup: Phone 5551000001\n\nFName +\S+/);
    const json = await run(['tcpa-verify', '--PHONE', '5551000001', '--last_name', 'Doe', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      operation: 'tcpa-verify',
      input: { phone: '5551000001', last_name: 'Doe' },
      outcome: 'record',
    });
  });

  it('shows the likely meaning beside a coded value, marked as likely', async () => {
    const table = await run(['tcpa-verify', '--phone', '5551000001', '--last-name', 'Doe']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/phone_type +[LVWO] {2}\(likely: (landline|VoIP|wireless|other)\)/);
    const json = await run(['tcpa-verify', '--phone', '5551000001', '--last-name', 'Doe', '--json']);
    expect(JSON.parse(json.stdout).record.phone_type).toMatch(/^[LVWO]$/);
  });

  it('2 for usage errors: unknown operation, unknown flag, no input', async () => {
    expect((await run(['phone-lookups', '--Phone', '5551000001'])).code).toBe(2);
    expect((await run(['phone-lookup', '--shoe', '5'])).code).toBe(2);
    const none = await run(['phone-lookup']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--Phone/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('a one-off call with --cache pays once: the same call again is answered from the cache', async () => {
    const cwd = tempDir();
    const args = ['phone-lookup', '--Phone', '(555) 100-0002', '--cache', 'answers.jsonl', '--json'];
    const first = await spawnCli(args, { env, cwd }).done;
    expect(first.code).toBe(0);
    expect(server.sandbox.transactions()).toBe(1);
    const again = await spawnCli(
      ['phone-lookup', '--Phone', '5551000002', '--cache', 'answers.jsonl', '--json'],
      {
        env,
        cwd,
      },
    ).done;
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toMatch(/no transaction spent/);
    expect(server.sandbox.requests()).toBe(1);
    expect(readFileSync(join(cwd, 'answers.jsonl'), 'utf8')).not.toContain(DEMO_KEY);
    // A no-match is paid for too, so it is kept as well.
    const none = ['phone-lookup', '--Phone', reservedPhone('no-match'), '--cache', 'answers.jsonl'];
    expect((await spawnCli(none, { env, cwd }).done).code).toBe(6);
    expect((await spawnCli(none, { env, cwd }).done).code).toBe(6);
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('3 for invalid input, caught before anything is sent', async () => {
    const ran = await run(['phone-lookup', '--Phone', '555100001']);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toMatch(/Phone must be 10 digits; got 9/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('4 when no key is set (saying so), or the key is refused', async () => {
    const none = await run(['phone-lookup', '--Phone', '5551000001'], {});
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/No API key and no base URL/);
    expect(none.stderr).toMatch(/--sandbox/);
    const refused = await run(['phone-lookup', '--Phone', '5551000001'], sandboxEnv(server, 'wrong-key'));
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/401/);
    expect(refused.stderr).not.toContain('wrong-key');
  });

  it('5 when the allowance is used up (429)', async () => {
    const ran = await run(['phone-lookup', '--Phone', reservedPhone('allowance'), '--max-attempts', '1']);
    expect(ran.code).toBe(5);
    expect(ran.stderr).toMatch(/429/);
  });

  it('6 for no match (204) and too many matches (440)', async () => {
    const none = await run(['phone-lookup', '--Phone', reservedPhone('no-match')]);
    expect(none.code).toBe(6);
    expect(none.stdout).toMatch(/No match/);
    expect((await run(['phone-lookup', '--Phone', reservedPhone('too-many')])).code).toBe(6);
  });

  it('7 for service errors (500) and an unreachable service', async () => {
    expect((await run(['phone-lookup', '--Phone', reservedPhone('fault'), '--max-attempts', '1'])).code).toBe(
      7,
    );
    const closed = await startServer();
    const url = closed.url;
    await closed.close();
    const down = await run(['phone-lookup', '--Phone', '5551000001', '--max-attempts', '1'], {
      ENRICH_API_KEY: DEMO_KEY,
      ENRICH_BASE_URL: url,
      ENRICH_BASE_URL_V3: url,
    });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/Could not reach the service at 127\.0\.0\.1/);
  });

  it('8 when a bulk run stops at its budget', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const ran = await spawnCli(['phone-lookup', '--in', 'in.csv', '--max-transactions', '1'], {
      env,
      cwd: dir,
    }).done;
    expect(ran.code).toBe(8);
    expect(server.sandbox.transactions()).toBe(1);
    expect(existsSync(join(dir, 'in.phone-lookup.csv'))).toBe(true);
  });

  it('--sandbox needs no key at all', async () => {
    const ran = await run(['phone-lookup', '--sandbox', '--Phone', '5551000001', '--json'], {});
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).outcome).toBe('record');
  });
});

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

describe('disk full while journaling (a 64 KiB tmpfs)', () => {
  const DISTINCT = 200;
  const rows = (): string[][] => [
    ['phone'],
    ...Array.from({ length: DISTINCT }, (_, i) => [phone(2000 + i)]),
  ];
  const mounted: string[] = [];
  const mount = (dir: string, size: string): string | undefined => {
    mkdirSync(dir, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
      mounted.push(dir);
      return undefined;
    } catch (error) {
      return String((error as { stderr?: Buffer }).stderr ?? error).trim();
    }
  };
  afterAll(() => {
    for (const dir of mounted.reverse()) execFileSync('umount', [dir]);
  });

  it('stops cleanly (exit 9); journal + rescue file = what the service billed; the rerun buys nothing twice', async (ctx) => {
    const dir = tempDir();
    const full = join(dir, 'full');
    const problem = mount(full, '64k');
    if (problem) ctx.skip(`cannot mount a tmpfs here (${problem}); run as root to test disk full`);
    const rescueDir = join(dir, 'tmp');
    mkdirSync(rescueDir);
    writeCsv(join(dir, 'in.csv'), rows());
    const billed = recordBilling(server);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--cache', 'full/cache.jsonl'];
    const runEnv = { ...env, TMPDIR: rescueDir };
    const ran = await spawnCli([...args, '--concurrency', '4', '--quiet'], { env: runEnv, cwd: dir }).done;
    expect(ran.code).toBe(9);
    expect(ran.stderr).toMatch(/could not be written \(the disk is full/);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    const journaled = journalKeys(join(full, 'cache.jsonl'));
    const rescueFiles = readdirSync(rescueDir).filter((f) => f.startsWith('enrich-unsaved-'));
    const rescued =
      rescueFiles.length === 1 ? journalKeys(join(rescueDir, rescueFiles[0] as string)) : new Set();
    // Every paid answer is kept: in the journal, or (could not be written there) in the rescue file.
    const kept = new Set([...journaled, ...rescued]);
    expect(kept.size).toBe(server.sandbox.transactions());
    expect(new Set(billed.bodies.map(keyOf))).toEqual(kept);
    expect(journaled.size).toBeGreaterThan(0);
    expect(journaled.size).toBeLessThan(DISTINCT);
    if (rescued.size > 0) expect(ran.stderr).toMatch(/saved in .*enrich-unsaved-/);

    execFileSync('mount', ['-o', 'remount,size=2m', full]);
    const resumed = await spawnCli([...args, '--quiet'], { env: runEnv, cwd: dir }).done;
    expect(resumed.code).toBe(0);
    expect(billed.bodies).toHaveLength(DISTINCT);
    expect(new Set(billed.bodies).size).toBe(DISTINCT);
    expect(journalKeys(join(full, 'cache.jsonl')).size).toBe(DISTINCT);
  });

  it('when even the rescue file cannot be written, says how many answers are lost; the rerun buys at most those again', async (ctx) => {
    const dir = tempDir();
    const full = join(dir, 'full');
    const rescueDir = join(dir, 'tmp');
    const problem = mount(full, '64k') ?? mount(rescueDir, '16k');
    if (problem) ctx.skip(`cannot mount a tmpfs here (${problem}); run as root to test disk full`);
    // Fill the rescue disk.
    try {
      writeFileSync(join(rescueDir, 'filler'), Buffer.alloc(64 * 1024));
    } catch {
      // Full, as wanted.
    }
    writeCsv(join(dir, 'in.csv'), rows());
    const billed = recordBilling(server);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--cache', 'full/cache.jsonl'];
    const runEnv = { ...env, TMPDIR: rescueDir };
    const ran = await spawnCli([...args, '--concurrency', '4', '--quiet'], { env: runEnv, cwd: dir }).done;
    expect(ran.code).toBe(9);
    const journaled = journalKeys(join(full, 'cache.jsonl'));
    const lost = server.sandbox.transactions() - journaled.size;
    if (lost > 0) {
      expect(ran.stderr).toMatch(
        new RegExp(`${lost} paid answers? could not be saved anywhere; a rerun buys`),
      );
    } else {
      expect(ran.stderr).toMatch(/No answer was lost/);
    }
    // The answer whose write failed, and those of the other requests already in flight.
    expect(lost).toBeLessThanOrEqual(4);
    execFileSync('mount', ['-o', 'remount,size=2m', full]);
    const resumed = await spawnCli([...args, '--quiet'], { env: runEnv, cwd: dir }).done;
    expect(resumed.code).toBe(0);
    expect(new Set(billed.bodies).size).toBe(DISTINCT);
    expect(billed.bodies.length - DISTINCT).toBe(lost);
  });
});

describe('disk full under the output (a 16 KiB tmpfs)', () => {
  it('stops cleanly (exit 9) with every paid answer in the journal; the rerun elsewhere buys nothing', async (ctx) => {
    const dir = tempDir();
    const full = join(dir, 'full');
    mkdirSync(full);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', full], { stdio: 'pipe' });
    } catch (error) {
      ctx.skip(
        `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`,
      );
    }
    try {
      const rows = [
        ['phone', 'note'],
        ...Array.from({ length: 400 }, (_, i) => [phone(4000 + i), 'x'.repeat(100)]),
      ];
      writeCsv(join(dir, 'in.csv'), rows);
      const args = ['phone-lookup', '--in', 'in.csv', '--cache', 'cache.jsonl', '--quiet'];
      const ran = await spawnCli([...args, '--out', 'full/out.csv'], { env, cwd: dir }).done;
      expect(ran.code).toBe(9);
      expect(ran.stderr).toMatch(/The output could not be written \(the disk is full\)/);
      expect(journalKeys(join(dir, 'cache.jsonl')).size).toBe(server.sandbox.transactions());
      expect(readdirSync(full)).toEqual([]);
      const before = server.sandbox.transactions();
      const resumed = await spawnCli([...args, '--out', 'out.csv'], { env, cwd: dir }).done;
      expect(resumed.code).toBe(0);
      expect(server.sandbox.transactions() - before).toBe(400 - before);
    } finally {
      execFileSync('umount', [full]);
    }
  });
});

function journalKeys(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  const keys = new Set<string>();
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (line) keys.add(line.key);
  }
  return keys;
}

function keyOf(body: string): string {
  return `phone-lookup:${JSON.stringify([['Phone', JSON.parse(body).Phone]])}`;
}
