// The progress bar as a person sees it (issue 40), in a pseudo-terminal of 80 columns: the built
// command (dist/enrich.mjs) runs under `script`, so that its standard error is a terminal, and
// Ctrl-C is typed into it (the terminal turns it into SIGINT, as a keyboard does). What is drawn is
// read back frame by frame, each cut at the terminal's width as the terminal cuts it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_DIR, isolatedEnv, phone, sandboxEnv, startServer, tempDir, writeCsv } from './helpers.js';

const DIST = join(CLI_DIR, 'dist', 'enrich.mjs');
const COLUMNS = 80;

let server: SandboxServer;
beforeAll(async () => {
  // Slow enough (a bucket of 40/s) that the run is still going when Ctrl-C comes.
  server = await startServer({ rate: 40 });
});
afterAll(() => server?.close());

interface Screen {
  readonly code: number | null;
  /** Everything written to the terminal, control sequences included. */
  readonly raw: string;
}

/** Runs the command in an 80-column terminal; types Ctrl-C once `typeCtrlC` says so. */
function inTerminal(
  args: readonly string[],
  cwd: string,
  typeCtrlC: (raw: string) => boolean,
): Promise<Screen> {
  const command = `stty cols ${COLUMNS} rows 24; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(DIST)} ${args.join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...isolatedEnv(), ...sandboxEnv(server) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  let typed = false;
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      raw += String(d);
      if (!typed && typeCtrlC(raw)) {
        typed = true;
        child.stdin.write('\u0003');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, raw }));
  });
}

/** The bar's frames (each drawn from column 1), as the terminal shows them: plain text, cut at its width. */
function frames(raw: string): string[] {
  return (
    raw
      .split('\u001b[1G')
      .slice(1)
      .map((frame) => frame.split('\r\n')[0] ?? '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: taking the terminal's controls out is the point
      .map((frame) => frame.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]|\^C/g, '').slice(0, COLUMNS))
  );
}

describe('the progress bar in an 80-column terminal', () => {
  it('shows transactions and the time left; Ctrl-C leaves the bar as it stood and the summary on its own line', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['name', 'phone'],
      ...Array.from({ length: 400 }, (_, i) => [`P${i}`, phone(i)]),
    ]);
    const screen = await inTerminal(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv'], dir, (raw) =>
      /[1-9]\d* transactions \| \d+s left/.test(raw),
    );
    expect(screen.code).toBe(130);
    const stop = screen.raw.indexOf('Stopping: nothing more is sent');
    expect(stop).toBeGreaterThan(0);
    const before = frames(screen.raw.slice(0, stop));
    // At 80 columns, every frame shows the share, the rows, the transactions and the time left.
    expect(before.length).toBeGreaterThan(2);
    for (const frame of before)
      expect(frame).toMatch(
        /^Phone Lookup [█░]+ \d+% \| [\d,]+ rows \| [\d,]+ transactions \| (\S+ left|stopped)/,
      );
    // The last frame, drawn when Ctrl-C came: its real share (not 100 %), "stopped", and the pace as
    // it was (the stop the person asked for is no failure of the service).
    const last = before.at(-1) ?? '';
    expect(last).toMatch(/ \d+% \| .* \| stopped \|/);
    expect(last).not.toContain('100%');
    const after = screen.raw.slice(stop);
    expect(screen.raw).not.toContain('failed or timed out');
    // Nothing is drawn after the stop: "Stopping" and the summary each start a line of their own.
    expect(after).not.toContain('\u001b[1G');
    expect(screen.raw.slice(0, stop)).toMatch(/\n$/);
    expect(after).toMatch(/\r\nPhone Lookup: in\.csv -> out\.csv\r\n {2}rows {16}400\r\n/);
    expect(after).toMatch(/Interrupted: \d+ answers from this run are saved/);
  });
});
