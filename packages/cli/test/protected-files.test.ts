// Issue 34, items 4 and 8: the built command as a process. --force replaces only a regular file
// that is not the input, a cache, a ledger, a journal or a lock; a FIFO, socket or device is never
// read or replaced, and never blocks the command.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phone, sandboxEnv, spawnCli, startServer, tempDir, writeCsv } from './helpers.js';

let server: SandboxServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

async function enrich(dir: string, args: readonly string[], env: Record<string, string> = {}) {
  const child = spawnCli(['phone-lookup', ...args], { env: { ...sandboxEnv(server), ...env }, cwd: dir });
  // A command that blocks (a FIFO opened with no writer) would never end: 10 s is far past any answer here.
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 10_000);
  const ran = await child.done;
  clearTimeout(timer);
  return ran;
}

describe('--force and the files a run must never replace', () => {
  it('refuses a device, the spend ledger, an answer cache and a lock as --out, even with --force; nothing sent', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const ledger = join(dir, 'ledger.jsonl');
    const env = { ENRICH_LEDGER: ledger };
    // A first run makes the cache and the ledger.
    expect((await enrich(dir, ['--in', 'in.csv', '--out', 'first.csv'], env)).code).toBe(0);
    const cache = join(dir, '.enrich-cache.jsonl');
    writeFileSync(join(dir, 'copy-of-cache.jsonl'), readFileSync(cache));
    const before = server.sandbox.requests();
    const kept = { ledger: readFileSync(ledger, 'utf8'), cache: readFileSync(cache, 'utf8') };
    const nullBefore = statSync('/dev/null');
    for (const [out, says] of [
      ['/dev/null', /\/dev\/null is a device; a run never replaces it/],
      [ledger, /ENRICH_LEDGER and --out name the same file/],
      [cache, /--cache and --out name the same file/],
      ['copy-of-cache.jsonl', /is an answer cache \(its lines are paid answers\); a run never replaces it/],
      ['first.csv.lock', /is a lock file; a run never replaces it/],
      ['in.csv', /--out and --in name the same file|--in and --out name the same file/],
    ] as const) {
      const ran = await enrich(dir, ['--in', 'in.csv', '--out', out, '--force'], env);
      expect(ran.code, out).toBe(2);
      expect(ran.stderr, out).toMatch(says);
      expect(ran.stderr, out).toMatch(/Nothing was sent/);
    }
    expect(server.sandbox.requests()).toBe(before);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(statSync('/dev/null').ino).toBe(nullBefore.ino);
    expect(readFileSync(ledger, 'utf8')).toBe(kept.ledger);
    expect(readFileSync(cache, 'utf8')).toBe(kept.cache);
  });

  it('still replaces a regular file of the user with --force', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(3)]]);
    writeFileSync(join(dir, 'report.csv'), 'a report of the user\n');
    expect((await enrich(dir, ['--in', 'in.csv', '--out', 'report.csv'])).code).toBe(2);
    const forced = await enrich(dir, ['--in', 'in.csv', '--out', 'report.csv', '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toMatch(/^phone,/);
  });
});

describe('FIFOs, sockets and devices', () => {
  it('a FIFO as --out or --in, a socket or a device as --in: refused at once, nothing sent', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(4)]]);
    execFileSync('mkfifo', [join(dir, 'fifo.csv')]);
    const socket = createNetServer().listen(join(dir, 'sock.csv'));
    await once(socket, 'listening');
    const before = server.sandbox.requests();
    try {
      for (const [args, says] of [
        [
          ['--in', 'in.csv', '--out', 'fifo.csv'],
          /fifo\.csv is a FIFO \(named pipe\); a run never replaces it/,
        ],
        [
          ['--in', 'fifo.csv', '--out', 'o.csv'],
          /fifo\.csv is a FIFO \(named pipe\), not a file.*give - as the input/,
        ],
        [['--in', 'sock.csv', '--out', 'o.csv'], /sock\.csv is a socket, not a file/],
        [['--in', '/dev/zero', '--out', 'o.csv'], /\/dev\/zero is a device, not a file/],
      ] as const) {
        const started = Date.now();
        const ran = await enrich(dir, args);
        expect(ran.signal, args.join(' ')).toBeNull();
        expect(ran.code, args.join(' ')).toBe(2);
        expect(ran.stderr, args.join(' ')).toMatch(says);
        expect(Date.now() - started, args.join(' ')).toBeLessThan(9_000);
      }
    } finally {
      socket.close();
    }
    expect(server.sandbox.requests()).toBe(before);
  });
});
