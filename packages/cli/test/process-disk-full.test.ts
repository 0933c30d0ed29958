// The real `enrich` binary as a child process, on a disk that fills up (a tmpfs: needs root) under the
// journal or under the output, and then run again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { phone, recordBilling, spawnCli, tempDir, writeCsv } from './helpers.js';
import { env, journalKeys, keyOf, server, useSandbox } from './process-setup.js';

useSandbox();

// Where these tests must run, mounting a tmpfs is required, not optional: in CI (which runs as root
// on a clean machine; `CI` is set there) and wherever ENRICH_REQUIRE_TMPFS=1. Elsewhere (a developer
// who is not root) they are skipped, saying why.
const TMPFS_REQUIRED = ['CI', 'ENRICH_REQUIRE_TMPFS'].some((name) => {
  const value = process.env[name];
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
});

const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted.reverse()) execFileSync('umount', [dir]);
});

/** Mounts a tmpfs of `size` at `dir`; returns why it could not, or undefined once mounted. */
function mount(dir: string, size: string): string | undefined {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounted.push(dir);
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

/** A tmpfs that could not be mounted fails the test where it is required, and skips it elsewhere. */
function needTmpfs(ctx: TestContext, problem: string | undefined): void {
  if (problem === undefined) return;
  const why = `cannot mount a tmpfs here (${problem}); run as root to test disk full`;
  if (TMPFS_REQUIRED) throw new Error(`${why}. Required here (CI or ENRICH_REQUIRE_TMPFS is set).`);
  ctx.skip(why);
}

describe('disk full while journaling (a 64 KiB tmpfs)', () => {
  const DISTINCT = 200;
  const rows = (): string[][] => [
    ['phone'],
    ...Array.from({ length: DISTINCT }, (_, i) => [phone(2000 + i)]),
  ];

  it('stops cleanly (exit 9); journal + rescue file = what the service billed; the rerun buys nothing twice', async (ctx) => {
    const dir = tempDir();
    const full = join(dir, 'full');
    const problem = mount(full, '64k');
    needTmpfs(ctx, problem);
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
    needTmpfs(ctx, problem);
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
    needTmpfs(ctx, mount(full, '16k'));
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
  });
});
