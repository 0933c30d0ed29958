// Issue 27, item 5, as a row of the hostile report: escape sequences (a title-setting OSC, a
// screen-clearing CSI) in a CSV header, printed back in the error that lists the columns. What the
// terminal received is counted: control bytes other than tab and newline. neutral-names.test.ts
// asserts this and more (the one-call table, --json).
import { join } from 'node:path';
import { runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';
import { measure, type Scenario, sandboxCounts, withSandbox } from './hostile-measure.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is counted
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const terminalEscapes: Scenario = {
  id: 'terminal-escapes',
  issue: 'escape sequences (ESC]0;...BEL, ESC[2J) in a CSV header, printed in an error',
  run: () =>
    withSandbox(async (server) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [
        ['\u001b]0;pwned\u0007mobile', '\u001b[2Jname'],
        ['5551000001', 'Ada'],
      ]);
      const startedAt = Date.now();
      const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
        env: sandboxEnv(server),
        cwd: dir,
      });
      const printed = ran.stdout + ran.stderr;
      return measure(dir, sandboxCounts(server), ran, startedAt, {
        controlBytesPrinted: printed.match(CONTROL)?.length ?? 0,
        columnsNamed: /columns: mobile, name\)/.test(printed) ? 'readably' : 'no',
      });
    }),
};
