// Issue 34's edges of the CLI as scenarios, each the real `enrich` binary as a process against a
// sandbox of its own on 127.0.0.1 and a ledger of its own: --force and the files a run must never
// replace (item 4), a budget under the automatic pace (5), FIFOs, sockets and devices (8), a reader
// that closes the pipe (11), a ledger that is a device (13). The tests beside them assert these;
// scripts/hostile-report.ts prints them with the requests, the transactions counted, the journal's
// and the ledger's.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, copyFileSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import type { SandboxServer } from '@enrich/sandbox';
import { cellsOf, HEADER, readWorkbook, richWorkbook } from '../../bulk/test/rich-workbook.js';
import { writeBombWorkbook } from '../../bulk/test/zip-bomb.js';
import { CACHE_FILE } from '../src/main.js';
import {
  BIN,
  isolatedEnv,
  phone,
  type Ran,
  readRecords,
  sandboxEnv,
  spawnCli,
  tempDir,
  writeCsv,
} from './helpers.js';
import {
  type Measured,
  measure,
  type Scenario,
  sandboxCounts,
  scenarioLedger,
  withSandbox,
} from './hostile-measure.js';

/** Far longer than any of these commands takes, far shorter than a command blocked for good. */
export const DEADLINE_MS = 10_000;

/** A process run of `enrich`, killed at the deadline: its exit code, or NaN with `signal` set. */
export async function enrichProcess(
  argv: readonly string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<Ran & { signal: NodeJS.Signals | null }> {
  const child = spawnCli(argv, options);
  const timer = setTimeout(() => child.process.kill('SIGKILL'), DEADLINE_MS);
  const ran = await child.done;
  clearTimeout(timer);
  return { code: ran.code ?? Number.NaN, signal: ran.signal, stdout: ran.stdout, stderr: ran.stderr };
}

/** The first line the command said on standard error, for the report. */
const saidFirst = (ran: Ran) =>
  ran.stderr
    .split('\n')[0]
    ?.replace(/^enrich: /, '')
    .slice(0, 70) ?? '';

function envOf(server: SandboxServer, dir: string): Record<string, string> {
  return { ...sandboxEnv(server), ENRICH_LEDGER: scenarioLedger(dir) };
}

/** in.csv of `distinct` phones, each `times` times. */
function phones(dir: string, distinct: number, times = 1): void {
  writeCsv(join(dir, 'in.csv'), [
    ['phone'],
    ...Array.from({ length: distinct * times }, (_, i) => [phone(i % distinct)]),
  ]);
}

/**
 * A run whose --out (with --force) is a file that must never be replaced, after a first run made the
 * cache and the ledger: what it sent, and whether the file is as it was.
 */
function neverReplaced(id: string, issue: string, outOf: (dir: string) => string): Scenario {
  return {
    id,
    issue,
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        phones(dir, 2);
        const env = envOf(server, dir);
        await enrichProcess(['phone-lookup', '--in', 'in.csv', '--out', 'first.csv'], { env, cwd: dir });
        copyFileSync(join(dir, CACHE_FILE), join(dir, 'copy-of-cache.jsonl'));
        const out = outOf(dir);
        const before = statSync(out);
        const bytes = before.isFile() ? readFileSync(out) : undefined;
        const requests = server.sandbox.requests();
        const startedAt = Date.now();
        const ran = await enrichProcess(['phone-lookup', '--in', 'in.csv', '--out', out, '--force'], {
          env,
          cwd: dir,
        });
        const after = statSync(out);
        const unchanged =
          after.ino === before.ino &&
          after.mode === before.mode &&
          (!bytes || readFileSync(out).equals(bytes));
        return measure(dir, sandboxCounts(server), ran, startedAt, {
          sentByTheRefusedRun: server.sandbox.requests() - requests,
          unchanged: String(unchanged),
          said: saidFirst(ran),
        });
      }),
  };
}

export const FORCE_SCENARIOS = [
  // A device node of the scenario's own, as /dev/null is (the same device): a build that still
  // replaced devices would replace this one, never the machine's /dev/null.
  neverReplaced('force-device', '4. --out a device (/dev/null) --force', (dir) => {
    execFileSync('mknod', ['-m', '666', join(dir, 'null'), 'c', '1', '3']);
    return join(dir, 'null');
  }),
  neverReplaced('force-ledger', '4. --force --out $ENRICH_LEDGER', (dir) => scenarioLedger(dir)),
  neverReplaced('force-cache', '4. --force --out another answer cache', (dir) =>
    join(dir, 'copy-of-cache.jsonl'),
  ),
  neverReplaced('force-input', '4. --force --out the input', (dir) => join(dir, 'in.csv')),
  neverReplaced('force-lock', '4. --force --out a lock file', (dir) => {
    writeFileSync(join(dir, 'o.csv.lock'), JSON.stringify({ pid: 1, start: null }));
    return join(dir, 'o.csv.lock');
  }),
] as const;

/** A FIFO, socket or device as --in or --out: refused at once or blocked until killed. */
function notAFile(id: string, issue: string, args: (dir: string) => string[]): Scenario {
  return {
    id,
    issue,
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        phones(dir, 2);
        execFileSync('mkfifo', [join(dir, 'fifo.csv')]);
        const socket = createNetServer().listen(join(dir, 'sock.csv'));
        await once(socket, 'listening');
        try {
          const startedAt = Date.now();
          const ran = await enrichProcess(['phone-lookup', ...args(dir)], {
            env: envOf(server, dir),
            cwd: dir,
          });
          return measure(dir, sandboxCounts(server), ran, startedAt, {
            killedAtDeadline: String(ran.signal === 'SIGKILL'),
            said: saidFirst(ran),
          });
        } finally {
          socket.close();
        }
      }),
  };
}

export const NOT_A_FILE_SCENARIOS = [
  notAFile('fifo-out', '8. --out a FIFO with no reader', () => ['--in', 'in.csv', '--out', 'fifo.csv']),
  notAFile('fifo-in', '8. --in a FIFO with no writer', () => ['--in', 'fifo.csv', '--out', 'o.csv']),
  notAFile('socket-in', '8. --in a socket', () => ['--in', 'sock.csv', '--out', 'o.csv']),
  notAFile('device-in', '8. --in /dev/zero', () => ['--in', '/dev/zero', '--out', 'o.csv']),
] as const;

/** The sandbox's latency in the budget runs: slow enough that most requests wait for a turn. */
const BUDGET_LATENCY_MS = 40;
export const BUDGET_DISTINCT = 30;

/** --max-transactions `cap` over 30 distinct phones (each twice), with `flags` (none: auto). */
export async function budgetRun(
  server: SandboxServer,
  cap: number,
  flags: readonly string[] = [],
): Promise<Measured> {
  server.sandbox.configure({ latencyMs: BUDGET_LATENCY_MS });
  const dir = tempDir();
  phones(dir, BUDGET_DISTINCT, 2);
  const startedAt = Date.now();
  const ran = await enrichProcess(
    [
      'phone-lookup',
      '--in',
      'in.csv',
      '--out',
      'out.csv',
      '--json',
      ...flags,
      '--max-transactions',
      String(cap),
    ],
    { env: envOf(server, dir), cwd: dir },
  );
  return measure(dir, sandboxCounts(server), ran, startedAt, {
    summary:
      ran.code === 0 || ran.code === 8
        ? (JSON.parse(ran.stdout) as { transactions: number }).transactions
        : '',
    notSentRows: readRecords(join(dir, 'out.csv')).filter((r) =>
      (r.status ?? '').startsWith('error: not sent: the transaction budget'),
    ).length,
  });
}

const budgetScenario = (cap: number): Scenario => ({
  id: `budget-auto-${cap}`,
  issue: `5. --max-transactions ${cap} under --concurrency auto, 30 distinct requests`,
  run: () => withSandbox((server) => budgetRun(server, cap)),
});

/** Rows and distinct phones of the broken-pipe run: some 450 KB out, seven times what a pipe holds. */
export const PIPE_ROWS = 3000;
export const PIPE_DISTINCT = 200;

/**
 * `enrich phone-lookup --in - --out - < leads.csv | head -1`: this process is the reader, reading
 * the first line of standard output and closing its end of the pipe.
 */
export async function brokenPipe(server: SandboxServer): Promise<Measured & { firstLine: string }> {
  const cwd = tempDir();
  phones(cwd, PIPE_DISTINCT, PIPE_ROWS / PIPE_DISTINCT);
  const stdin = openSync(join(cwd, 'in.csv'), 'r');
  const startedAt = Date.now();
  const child = spawn(process.execPath, [BIN, 'phone-lookup', '--in', '-', '--out', '-'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), ...envOf(server, cwd) },
    // Standard input is the file itself, as `< leads.csv` gives it.
    stdio: [stdin, 'pipe', 'pipe'],
  });
  closeSync(stdin);
  const { stdout, stderr: errors } = child;
  if (!stdout || !errors) throw new Error('the child has no pipes');
  let stderr = '';
  errors.on('data', (d) => {
    stderr += String(d);
  });
  let first = '';
  stdout.on('data', (d) => {
    first += String(d);
    if (first.includes('\n')) stdout.destroy();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const measured = await measure(
    cwd,
    sandboxCounts(server),
    { code: code ?? Number.NaN, stdout: '', stderr },
    startedAt,
    {
      stackTrace: String(/unexpected error|EPIPE|\n\s+at /.test(stderr)),
    },
  );
  return { ...measured, firstLine: first.split('\n')[0] ?? '' };
}

/** `enrich spend` with ENRICH_LEDGER naming `ledger` (a device, a FIFO): answered, or killed at the deadline. */
export async function spendWith(ledger: string): Promise<Ran & { signal: NodeJS.Signals | null }> {
  return enrichProcess(['spend'], { env: { ENRICH_LEDGER: ledger }, cwd: tempDir() });
}

/** Item 12: a workbook of about 400 KB whose one shared string unpacks to 400 MiB. */
const xlsxBomb: Scenario = {
  id: 'xlsx-bomb',
  issue: '12. an .xlsx zip bomb (one 400 MiB shared string)',
  run: () =>
    withSandbox(async (server) => {
      const dir = tempDir();
      await writeBombWorkbook(join(dir, 'book.xlsx'), phone(1), 400);
      const startedAt = Date.now();
      const ran = await enrichProcess(['phone-lookup', '--in', 'book.xlsx', '--out', 'out.xlsx'], {
        env: envOf(server, dir),
        cwd: dir,
      });
      return measure(dir, sandboxCounts(server), ran, startedAt, {
        stackTrace: String(/^\s+at |\(a bug\)/m.test(ran.stderr)),
        said: saidFirst(ran),
      });
    }),
};

/** Item 15: every cell of every sheet of a workbook comes back as it was. */
const xlsxKept: Scenario = {
  id: 'xlsx-kept',
  issue: '15. a workbook of three sheets: shared formula, rich text, links, merges, styles',
  run: () =>
    withSandbox(async (server) => {
      const dir = tempDir();
      await richWorkbook(join(dir, 'book.xlsx'));
      const startedAt = Date.now();
      const ran = await enrichProcess(
        ['phone-lookup', '--in', 'book.xlsx', '--sheet', 'Leads', '--out', 'out.xlsx', '--quiet'],
        { env: envOf(server, dir), cwd: dir },
      );
      const input = await readWorkbook(join(dir, 'book.xlsx'));
      const output = await readWorkbook(join(dir, 'out.xlsx'));
      let cells = 0;
      let differ = 0;
      for (const sheet of input.worksheets) {
        const after = output.getWorksheet(sheet.name);
        const now = after
          ? cellsOf(after, sheet.name === 'Leads' ? HEADER.length : Number.POSITIVE_INFINITY)
          : new Map();
        for (const [address, was] of cellsOf(sheet)) {
          cells++;
          if (JSON.stringify(now.get(address)) !== JSON.stringify(was)) differ++;
        }
      }
      return measure(dir, sandboxCounts(server), ran, startedAt, {
        sheets: output.worksheets.map((s) => s.name).join('/'),
        inputCells: cells,
        cellsDiffering: differ,
        merges: String(JSON.stringify(output.getWorksheet('Leads')?.model.merges ?? [])),
      });
    }),
};

/** Item 14: a 100,000-row UTF-8 file with one 0xFC (a Latin-1 "ü") in row 89,999. */
const badByte: Scenario = {
  id: 'utf8-bad-byte',
  issue: '14. one bad byte in a 100,000-row UTF-8 file',
  run: () =>
    withSandbox(async (server) => {
      const dir = tempDir();
      const parts: Buffer[] = [Buffer.from('Name,Phone\n')];
      for (let i = 1; i <= 100_000; i++) {
        const u = i === 89_999 ? Buffer.from([0xfc]) : Buffer.from('ü');
        parts.push(Buffer.from('M'), u, Buffer.from(`ller ${i},${phone(i % 50)}\n`));
      }
      writeFileSync(join(dir, 'in.csv'), Buffer.concat(parts));
      const startedAt = Date.now();
      const ran = await enrichProcess(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
        env: envOf(server, dir),
        cwd: dir,
      });
      return measure(dir, sandboxCounts(server), ran, startedAt, { said: saidFirst(ran) });
    }),
};

export const DOOR_SCENARIOS: readonly Scenario[] = [
  ...FORCE_SCENARIOS,
  ...NOT_A_FILE_SCENARIOS,
  xlsxBomb,
  xlsxKept,
  badByte,
  budgetScenario(5),
  budgetScenario(12),
  budgetScenario(50),
  {
    id: 'broken-pipe',
    issue: '11. --in - --out - | head -1',
    run: () => withSandbox((server) => brokenPipe(server)),
  },
  {
    id: 'spend-dev-full',
    issue: '13. ENRICH_LEDGER=/dev/full enrich spend',
    async run() {
      const startedAt = Date.now();
      const ran = await spendWith('/dev/full');
      return measure(tempDir(), { requests: () => 0, counted: () => 0 }, ran, startedAt, {
        killedAtDeadline: String(ran.signal === 'SIGKILL'),
        said: saidFirst(ran),
      });
    },
  },
];
