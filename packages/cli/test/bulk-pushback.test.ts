// Bulk runs through the command's own entry (main), in this process, against the sandbox over real
// HTTP on 127.0.0.1: progress lines and the summary, --max-rate, a refused key (exit 4). How the engine
// meets 429s, 500s, faults and an allowance gone for good: packages/bulk/test/pushback.test.ts.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { env, server, useSandbox } from './bulk-setup.js';
import { phone, runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';

useSandbox();

describe('when the service pushes back', () => {
  it('prints plain progress lines when not on a terminal, and a summary at the end', async () => {
    server.sandbox.configure({ latencyMs: 100 });
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 30 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--concurrency', '2', '--progress-every', '1'],
      { env, cwd: dir },
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(
      /^Phone Lookup: \d+ rows written \(about \d+% of the file\), \d+ transactions, (about \d+s left|time left not known yet), \d+ rows\/s; pace [\d.]+\/s, \d+ in flight \(a fixed number at a time, as set\)$/m,
    );
    expect(ran.stdout).toMatch(/^Phone Lookup: in\.csv -> o\.csv$/m);
    for (const label of [
      'rows',
      'distinct requests',
      'transactions spent',
      'ok',
      'no match',
      'invalid',
      'errors',
      'time',
    ]) {
      expect(ran.stdout).toMatch(new RegExp(`^  ${label} +\\S`, 'm'));
    }
    expect(ran.stdout).toMatch(/transactions spent +30/);
  });

  it('--max-rate keeps requests apart', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 11 }, (_, i) => [phone(i)])]);
    const started = Date.now();
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--max-rate', '20/s', '--concurrency', '8'],
      {
        env,
        cwd: dir,
      },
    );
    expect(ran.code).toBe(0);
    // 11 requests at 20 a second: the last one starts 500 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
  });

  it('under --max-rate, the pace says it is held at the rate set, not "starting small" (issue 40)', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 60 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--max-rate', '20/s', '--progress-every', '1'],
      { env, cwd: dir },
    );
    expect(ran.code).toBe(0);
    const lines = ran.stderr.split('\n').filter((line) => line.startsWith('Phone Lookup: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(/paced at 20\/s \(held at the maximum rate you set\)$/);
  });

  it('stops sending when the key is refused, and exits with the auth code', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])]);
    const ran = await runCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'o.csv', '--json', '--concurrency', '1'],
      {
        env: sandboxEnv(server, 'not-the-key'),
        cwd: dir,
      },
    );
    expect(ran.code).toBe(4);
    expect(JSON.parse(ran.stdout)).toMatchObject({ stopped: 'auth', errors: 1, notSent: 9 });
    expect(server.sandbox.requests()).toBe(1);
    expect(ran.stdout + ran.stderr).not.toContain('not-the-key');
  });
});
