// `enrich spend` with ENRICH_LEDGER naming something that is not a regular file, as a real process
// with a deadline: /dev/full and /dev/zero give endless zeros to whoever reads them, and a FIFO
// blocks whoever opens it for reading until a writer comes, so reading either whole never ended.
// The command must answer at once, refusing it with a message naming the variable and the path.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnCli, tempDir } from './helpers.js';

/** Far longer than the command takes to start and answer (under a second), far shorter than forever. */
const DEADLINE_MS = 10_000;
/** Each test's own limit: past the deadline, with time to kill the command. */
const TEST_MS = DEADLINE_MS + 10_000;

/** `enrich spend` with ENRICH_LEDGER set to `ledger`: its exit code and stderr, or 'timed out'. */
async function spendWith(ledger: string): Promise<{ code: number | null; stderr: string } | 'timed out'> {
  const child = spawnCli(['spend'], { env: { ENRICH_LEDGER: ledger }, cwd: tempDir() });
  // Whatever ends the test, a command still reading (endless zeros fill memory) does not outlive it.
  onTestFinished(() => {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), DEADLINE_MS);
  });
  const ended = await Promise.race([child.done, deadline]);
  clearTimeout(timer);
  if (ended === 'timed out') {
    child.process.kill('SIGKILL');
    await child.done;
  }
  return ended;
}

describe('enrich spend refuses a ledger that is not a regular file', () => {
  const devices = ['/dev/full', '/dev/zero'].filter((path) => existsSync(path));

  it.each(devices)(
    'ENRICH_LEDGER=%s: answers at once, exit 2, naming the variable and the path',
    async (path) => {
      const ended = await spendWith(path);
      expect(ended).not.toBe('timed out');
      if (ended === 'timed out') return;
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
      expect(ended).not.toBe('timed out');
      if (ended === 'timed out') return;
      expect(ended.code).toBe(2);
      expect(ended.stderr).toContain(`ENRICH_LEDGER=${fifo}`);
      expect(ended.stderr).toMatch(/names a FIFO \(named pipe\), not a regular file/);
    },
    TEST_MS,
  );
});
