// Issue 34, items 4 and 8 (doors.scenario.ts): the real command as a process. --force replaces only
// a regular file that is not the input, a cache, a ledger, a journal or a lock; a FIFO, socket or
// device is never read or replaced, and never blocks the command.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORCE_SCENARIOS, NOT_A_FILE_SCENARIOS } from './doors.scenario.js';
import { phone, sandboxEnv, spawnCli, tempDir, writeCsv } from './helpers.js';
import { withSandbox } from './hostile-measure.js';

const SAYS: Record<string, RegExp> = {
  'force-device': /null is a device; a run never replaces it\. Nothing was sent/,
  'force-ledger': /ENRICH_LEDGER and --out name the same file.*Nothing was sent/,
  'force-cache': /is an answer cache \(its lines are paid answers\); a run never replaces it/,
  'force-input': /--out and --in name the same file|--in and --out name the same file/,
  'force-lock': /o\.csv\.lock is a lock file; a run never replaces it/,
  'fifo-out': /fifo\.csv is a FIFO \(named pipe\); a run never replaces it/,
  'fifo-in': /fifo\.csv is a FIFO \(named pipe\), not a file.*give - as the input/,
  'socket-in': /sock\.csv is a socket, not a file/,
  'device-in': /\/dev\/zero is a device, not a file/,
};

describe('--force and the files a run must never replace', () => {
  it.each(FORCE_SCENARIOS.map((s) => [s.id, s] as const))(
    '%s: refused even with --force, nothing sent, the file as it was',
    async (id, scenario) => {
      const m = await scenario.run();
      expect(m.code).toBe(2);
      expect(m.stderr).toMatch(SAYS[id] as RegExp);
      expect(m.more).toMatchObject({ sentByTheRefusedRun: 0, unchanged: 'true' });
      // Only the first run (two phones) was paid; the ledger says so too.
      expect({ counted: m.counted, journal: m.journal, ledger: m.ledger }).toEqual({
        counted: 2,
        journal: 2,
        ledger: 2,
      });
    },
  );

  it('still replaces a regular file of the user with --force', async () => {
    await withSandbox(async (server) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [['phone'], [phone(3)]]);
      writeFileSync(join(dir, 'report.csv'), 'a report of the user\n');
      const run = (args: string[]) =>
        spawnCli(['phone-lookup', '--in', 'in.csv', '--out', 'report.csv', ...args], {
          env: sandboxEnv(server),
          cwd: dir,
        }).done;
      expect((await run([])).code).toBe(2);
      expect((await run(['--force'])).code).toBe(0);
      expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toMatch(/^phone,/);
    });
  });
});

describe('FIFOs, sockets and devices', () => {
  it.each(NOT_A_FILE_SCENARIOS.map((s) => [s.id, s] as const))(
    '%s: refused at once (never blocked), nothing sent',
    async (id, scenario) => {
      const m = await scenario.run();
      expect(m.more.killedAtDeadline).toBe('false');
      expect(m.code).toBe(2);
      expect(m.stderr).toMatch(SAYS[id] as RegExp);
      expect(m.requests).toBe(0);
    },
  );
});
