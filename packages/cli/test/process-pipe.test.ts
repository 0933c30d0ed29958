// The real `enrich` binary in a pipeline whose reader goes away: `enrich ... --in - --out - < leads.csv
// | head -1`. The test is the reader: it reads the first line of standard output and closes its end
// of the pipe. The output is far larger than a pipe holds (64 KiB), so the command is still writing
// when the reader leaves and its next write fails (EPIPE). It must end as shells expect of a program
// whose reader left (141, 128 + SIGPIPE), with no stack trace, and the money must hold: the answers
// the journal holds, the ledger's count and the sandbox's count agree.
import { describe, expect, it } from 'vitest';
import { brokenPipe, PIPE_DISTINCT } from './doors.scenario.js';
import { server, useSandbox } from './process-setup.js';

useSandbox();

describe('a reader that closes the pipe', () => {
  it('--out - read by `head -1`: exit 141, no stack trace, and journal = ledger = sandbox', async () => {
    const m = await brokenPipe(server);
    expect(m.firstLine).toMatch(/^phone,/);
    expect(m.more.stackTrace).toBe('false');
    expect(m.code).toBe(141);
    expect({ counted: m.counted, journal: m.journal, ledger: m.ledger }).toEqual({
      counted: PIPE_DISTINCT,
      journal: PIPE_DISTINCT,
      ledger: PIPE_DISTINCT,
    });
  });
});
