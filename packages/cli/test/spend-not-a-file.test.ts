// `enrich spend` with ENRICH_LEDGER naming something that is not a regular file, as a real process
// with a deadline: /dev/full and /dev/zero give endless zeros to whoever reads them, and a FIFO
// blocks whoever opens it for reading until a writer comes, so reading either whole never ended.
// The command must answer at once, refusing it with a message naming the variable and the path.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEADLINE_MS, spendWith } from './doors.scenario.js';
import { tempDir } from './helpers.js';

/** Each test's own limit: past the deadline at which the command is killed. */
const TEST_MS = DEADLINE_MS + 10_000;

describe('enrich spend refuses a ledger that is not a regular file', () => {
  const devices = ['/dev/full', '/dev/zero'].filter((path) => existsSync(path));

  it.each(devices)(
    'ENRICH_LEDGER=%s: answers at once, exit 2, naming the variable and the path',
    async (path) => {
      const ended = await spendWith(path);
      expect(ended.signal).toBeNull();
      expect(ended.code).toBe(2);
      expect(ended.stderr).toContain(`ENRICH_LEDGER=${path}`);
      expect(ended.stderr).toMatch(
        /names a device, not a regular file: the spend ledger must be a regular file/,
      );
      expect(ended.stderr).not.toMatch(/unexpected error|\n\s+at /);
    },
    TEST_MS,
  );

  it(
    'ENRICH_LEDGER naming a FIFO: answers at once (never waits for a writer), exit 2',
    async () => {
      const fifo = join(tempDir(), 'ledger.jsonl');
      const made = spawnSync('mkfifo', [fifo]);
      if (made.status !== 0) return; // no mkfifo on this system: nothing to test
      const ended = await spendWith(fifo);
      expect(ended.signal).toBeNull();
      expect(ended.code).toBe(2);
      expect(ended.stderr).toContain(`ENRICH_LEDGER=${fifo}`);
      expect(ended.stderr).toMatch(/names a FIFO \(named pipe\), not a regular file/);
    },
    TEST_MS,
  );
});
