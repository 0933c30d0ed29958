// Ctrl-C and SIGTERM end a run within 10 s whatever it waits for (issue 8, item 4): a long
// Retry-After pause, a body that trickles in; requests in flight are abandoned after the grace and
// reported as "may have been paid"; a second Ctrl-C stops at once. The real binary, real signals.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../src/main.js';
import { phone, spawnCli, tempDir, writeCsv } from './helpers.js';
import { type Hostile, phoneRecord, retryAfter, startHostile, trickle } from './hostile-servers.js';

let hostile: Hostile | undefined;
afterEach(async () => {
  await hostile?.close();
  hostile = undefined;
});

function envFor(h: Hostile): Record<string, string> {
  return { ENRICH_API_KEY: 'signals-test-key', ENRICH_BASE_URL: h.url, ENRICH_BASE_URL_V3: h.url };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const journalLines = (dir: string) =>
  existsSync(join(dir, CACHE_FILE))
    ? readFileSync(join(dir, CACHE_FILE), 'utf8').split('\n').filter(Boolean)
    : [];

describe('stopping a run', () => {
  it('Ctrl-C during a long Retry-After pause ends the run at once: nothing paid, nothing lost', async () => {
    hostile = await startHostile(retryAfter('50'));
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)], [phone(3)]]);
    const child = spawnCli(
      [
        'phone-lookup',
        '--in',
        'in.csv',
        '--out',
        'out.csv',
        '--concurrency',
        '1',
        '--max-retry-after',
        '3600',
      ],
      { env: envFor(hostile), cwd: dir },
    );
    const h = hostile;
    await until(() => h.requests >= 1);
    await new Promise((r) => setTimeout(r, 300));
    const signalledAt = Date.now();
    child.process.kill('SIGINT');
    const done = await child.done;
    const tookMs = Date.now() - signalledAt;
    expect(done.code).toBe(130);
    expect(tookMs).toBeLessThan(3000);
    expect(hostile.requests).toBe(1);
    expect(hostile.transactions).toBe(0);
    expect(journalLines(dir)).toHaveLength(0);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
  });

  it('SIGTERM while a body trickles in: the request gets the grace, then is abandoned and reported as possibly paid; under 10 s', async () => {
    hostile = await startHostile(trickle(2000));
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const child = spawnCli(
      ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--concurrency', '1', '--timeout', '3600'],
      { env: envFor(hostile), cwd: dir },
    );
    const h = hostile;
    await until(() => h.requests >= 1);
    await new Promise((r) => setTimeout(r, 500));
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const done = await child.done;
    const tookMs = Date.now() - signalledAt;
    expect(done.code).toBe(130);
    expect(tookMs).toBeLessThan(10_000);
    expect(tookMs).toBeGreaterThan(7000); // it did wait the grace for the answer
    expect(done.stderr).toMatch(
      /1 request was still in flight .* abandoned: the service may have been paid for it/,
    );
    // The service billed one answer that never arrived; the journal holds nothing it did not get.
    expect(hostile.transactions).toBe(1);
    expect(hostile.requests).toBe(1);
    expect(journalLines(dir)).toHaveLength(0);
  }, 20_000);

  it('a second Ctrl-C stops at once', async () => {
    hostile = await startHostile(trickle(2000));
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const child = spawnCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], {
      env: envFor(hostile),
      cwd: dir,
    });
    const h = hostile;
    await until(() => h.requests >= 1);
    child.process.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    const secondAt = Date.now();
    child.process.kill('SIGINT');
    const done = await child.done;
    expect(Date.now() - secondAt).toBeLessThan(1000);
    expect(done.code).toBe(130);
    expect(done.stderr).toMatch(/Quit at once/);
  });

  it('a second Ctrl-C still writes the spend ledger: the answer paid a moment before is recorded', async () => {
    // The first request is answered at once (paid); the second trickles, so the run is still going.
    const slow = trickle(2000);
    hostile = await startHostile((request, res, bill) => {
      if (request.count > 1) return slow(request, res, bill);
      bill();
      const text = JSON.stringify(phoneRecord(JSON.parse(request.body).Phone));
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
    const dir = tempDir();
    const ledger = join(dir, 'ledger.jsonl');
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const child = spawnCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--concurrency', '1'], {
      env: { ...envFor(hostile), ENRICH_LEDGER: ledger },
      cwd: dir,
    });
    const h = hostile;
    await until(() => journalLines(dir).length >= 1 && h.requests >= 2);
    child.process.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    child.process.kill('SIGINT');
    const done = await child.done;
    expect(done.stderr).toMatch(/Quit at once/);
    // Well inside the recorder's 2 s batch: only a flush at the quit wrote it.
    const entries = readFileSync(ledger, 'utf8').split('\n').filter(Boolean);
    expect(entries.map((line) => JSON.parse(line).count)).toEqual([1]);
  });
});
