// Issue 27's scenarios at the edges of a run's files, against a real sandbox over HTTP: a CSV that
// breaks off mid-file, an --out that is not ours (another program's document, a read-only report,
// a journal) and an --out that is a directory. test/edge-files.test.ts asserts them;
// scripts/hostile-report.ts prints them with the others.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { phone, runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';
import { bulkArgs, measure, type Scenario, sandboxCounts, withSandbox } from './hostile-measure.js';

export const BROKEN_ROWS = 5000;
/** The row (as a spreadsheet numbers it, the header being row 1) whose stray quote breaks the file. */
export const BROKEN_AT = 4001;

/** 5,000 distinct phones with a name column; row 4,001's name has a stray quote, or not (`mended`). */
export function writeBrokenCsv(path: string, mended = false): void {
  const lines = ['name,phone'];
  for (let i = 1; i <= BROKEN_ROWS; i++) {
    const name = i + 1 === BROKEN_AT && !mended ? 'Bob "The Builder" Smith' : `Lead ${i}`;
    lines.push(`${name},${phone(i)}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const runArgs = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet', '--json'];

export const EDGE_FILE_SCENARIOS: readonly Scenario[] = [
  {
    id: 'broken-row-mid-file',
    issue: 'a stray quote at row 4,001 of 5,000 (Bob "The Builder" Smith)',
    run: () =>
      withSandbox(async (server) => {
        server.sandbox.configure({ latencyMs: 40 });
        const dir = tempDir();
        writeBrokenCsv(join(dir, 'in.csv'));
        const env = sandboxEnv(server);
        const startedAt = Date.now();
        const ran = await runCli(runArgs, { env, cwd: dir });
        const summary = JSON.parse(ran.stdout) as { transactions: number; inputError?: string };
        const first = await measure(dir, sandboxCounts(server), ran, startedAt, {
          summaryTransactions: summary.transactions,
        });
        // Mended, the same command buys the rest and nothing twice.
        writeBrokenCsv(join(dir, 'in.csv'), true);
        const mended = await runCli(runArgs, { env, cwd: dir });
        return {
          ...first,
          more: {
            ...first.more,
            mendedCode: mended.code,
            totalCounted: server.sandbox.transactions(),
          },
        };
      }),
  },
  {
    id: 'excel-csv-utf8',
    issue: 'Excel "CSV UTF-8" in (a BOM, CRLF, José Ñúñez): the output keeps both',
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        writeFileSync(
          join(dir, 'in.csv'),
          `\uFEFFname,phone\r\nJosé Ñúñez,${phone(1)}\r\nZoë,${phone(2)}\r\n`,
        );
        const startedAt = Date.now();
        const ran = await runCli(bulkArgs, { env: sandboxEnv(server), cwd: dir });
        const out = readFileSync(join(dir, 'out.csv'), 'utf8');
        return measure(dir, sandboxCounts(server), ran, startedAt, {
          bom: out.startsWith('\uFEFF') ? 'kept' : 'lost',
          lineEnds: /\r\n/.test(out) && !/[^\r]\n/.test(out) ? 'CRLF' : 'changed',
          names: out.includes('José Ñúñez,') && out.includes('Zoë,') ? 'unchanged' : 'changed',
        });
      }),
  },
  outScenario('out-not-ours', 'an existing --out that is not ours (a .docx)', (dir) => {
    writeFileSync(join(dir, TARGET), Buffer.from('PK\u0003\u0004 a Word document'));
  }),
  outScenario('out-read-only', 'an existing --out that is a read-only report', (dir) => {
    writeFileSync(join(dir, TARGET), 'quarter,revenue\nQ1,100\n');
    chmodSync(join(dir, TARGET), 0o444);
  }),
  outScenario('out-is-journal', "an --out naming another run's paid journal", (dir) => {
    writeFileSync(join(dir, TARGET), '{"v":1,"ns":"sandbox","key":"phone-lookup 5551000001","at":1}\n');
  }),
  outScenario('out-is-directory', 'an --out that is a directory', (dir) => {
    mkdirSync(join(dir, TARGET));
  }),
];

/** The --out of these scenarios: not out.csv, which `measure` would read as an output of ours. */
const TARGET = 'report.csv';

/** A bulk run of three phones whose --out is prepared by `prepare` (after the input is written). */
function outScenario(id: string, issue: string, prepare: (dir: string) => void): Scenario {
  return {
    id,
    issue,
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)], [phone(3)]]);
        prepare(dir);
        const before = readBytes(join(dir, TARGET));
        const args = bulkArgs.map((arg) => (arg === 'out.csv' ? TARGET : arg));
        const startedAt = Date.now();
        const ran = await runCli(args, { env: sandboxEnv(server), cwd: dir });
        const after = readBytes(join(dir, TARGET));
        return measure(dir, sandboxCounts(server), ran, startedAt, {
          outUnchanged: before === after ? 'yes' : 'no',
        });
      }),
  };
}

function readBytes(path: string): string {
  try {
    return readFileSync(path).toString('base64');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'unreadable';
  }
}
