// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1: the answer cache file (cannot be opened, a torn last line, the lock).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { env, server, useSandbox } from './bulk-setup.js';
import { phone, runCli, tempDir, writeCsv } from './helpers.js';

useSandbox();

describe('the answer cache file', () => {
  it('stops before sending anything when the cache cannot be opened', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--cache', '.'], {
      env,
      cwd: dir,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/Cannot use the answer cache/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('skips a torn last line (a run killed mid-write) and asks for that answer again', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const args = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--json'];
    await runCli(args, { env, cwd: dir });
    const cache = join(dir, CACHE_FILE);
    const lines = readFileSync(cache, 'utf8').split('\n');
    // Cut the second answer in half.
    writeFileSync(cache, `${lines[0]}\n${lines[1]?.slice(0, 40)}`);
    const ran = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(ran.stdout)).toMatchObject({ fromCache: 1, transactions: 1, ok: 2 });
    const again = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
    appendFileSync(cache, 'not json\n');
    const third = await runCli(args, { env, cwd: dir });
    expect(JSON.parse(third.stdout)).toMatchObject({ fromCache: 2, transactions: 0 });
  });

  it("refuses a second run on a cache another live run holds, and takes over a dead run's lock", async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const lock = join(dir, `${CACHE_FILE}.lock`);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, start: null }));
    const refused = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Another enrich run/);
    expect(server.sandbox.requests()).toBe(0);
    writeFileSync(lock, JSON.stringify({ pid: 999999999, start: null }));
    const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'o.csv'], { env, cwd: dir });
    expect(ran.code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });
});
