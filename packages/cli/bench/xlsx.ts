// The xlsx section of `pnpm bench` (BENCH_SECTIONS=xlsx runs it alone): Excel workbooks against
// the same rows as CSV. It writes a workbook of 100,000 rows as an office tool writes it (a shared
// strings table; ids, phones and dates typed as numbers and dates) and the same rows as CSV, fills
// the answer cache with one run of the CSV, then enriches from that cache, side by side, the CSV to
// a CSV and the workbook to a workbook (no request sent: every answer is cached), and prints the
// wall time and peak RSS of each. The engine streams workbooks (exceljs's WorkbookReader and
// WorkbookWriter, the sheet through a temp file) and holds only the shared-strings table whole: the
// same rows with their text inline, and a quarter of them, show that the peak RSS does not grow with
// the rows.
// BENCH_XLSX_ROWS and BENCH_XLSX_DISTINCT scale it.
import { once } from 'node:events';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { enrich, type Run, startSandbox } from './processes.js';

const ROWS = Number(process.env.BENCH_XLSX_ROWS ?? 100_000);
const DISTINCT = Number(process.env.BENCH_XLSX_DISTINCT ?? 10_000);
const CONCURRENCY = 32;

const phone = (i: number) => 5_550_000_000 + 500_000 + ((i * 7919) % DISTINCT);
const joined = (i: number) => new Date(Date.UTC(2020, 0, 1) + (i % 1500) * 86_400_000);

/** The rows as a workbook: typed cells, the text in a shared-strings table as Excel keeps it, or inline. */
async function writeWorkbook(path: string, rows: number, sharedStrings: boolean): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useSharedStrings: sharedStrings,
    useStyles: true,
  });
  const sheet = workbook.addWorksheet('Leads');
  sheet.addRow(['id', 'name', 'phone', 'joined', 'notes']).commit();
  for (let i = 0; i < rows; i++) {
    const row = sheet.addRow([i, `Lead ${i}`, phone(i), joined(i), `row ${i}, from the bench`]);
    row.getCell(4).numFmt = 'yyyy-mm-dd';
    row.commit();
  }
  sheet.commit();
  await workbook.commit();
}

/** The same rows as CSV: their text, as the engine reads the workbook's cells. */
async function writeCsv(path: string, rows: number): Promise<void> {
  const csv = createWriteStream(path);
  csv.write('id,name,phone,joined,notes\n');
  for (let i = 0; i < rows; i++) {
    const day = joined(i).toISOString().slice(0, 10);
    if (!csv.write(`${i},Lead ${i},${phone(i)},${day},"row ${i}, from the bench"\n`))
      await once(csv, 'drain');
  }
  csv.end();
  await once(csv, 'finish');
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const n = (x: number) => x.toLocaleString('en-US');
const rss = (run: Run) => (run.timeRssKb ? run.timeRssKb * 1024 : run.summary.maxRssBytes);

export async function xlsxBench(
  dir: string,
  latencyMs: number,
  row: (what: string, value: string) => void,
  log: (text: string) => void,
): Promise<void> {
  const quarter = Math.round(ROWS / 4);
  log(`xlsx: writing ${n(ROWS)} rows (${n(DISTINCT)} distinct phones) as CSV and as workbooks`);
  const started = performance.now();
  await writeCsv(join(dir, 'x.csv'), ROWS);
  await writeWorkbook(join(dir, 'x.xlsx'), ROWS, true);
  await writeWorkbook(join(dir, 'x-inline.xlsx'), ROWS, false);
  await writeWorkbook(join(dir, 'x-inline-quarter.xlsx'), quarter, false);
  log(`xlsx: inputs written in ${s(performance.now() - started)}`);
  const sandbox = await startSandbox(latencyMs);
  const args = (input: string, output: string) => [
    '--in',
    input,
    '--out',
    output,
    '--cache',
    'x.cache',
    '--concurrency',
    String(CONCURRENCY),
  ];
  // A run from the warm cache: it must spend nothing.
  const cached = async (input: string, output: string): Promise<Run> => {
    const before = (await sandbox.stats()).transactions;
    const run = await enrich(sandbox, dir, args(input, output));
    const spent = (await sandbox.stats()).transactions - before;
    if (run.code !== 0 || spent !== 0 || Number(run.summary.rows) === 0) {
      throw new Error(
        `xlsx: ${input} -> ${output} exited ${run.code}, spent ${spent}, ${run.summary.rows} rows`,
      );
    }
    return run;
  };
  try {
    // One run fills the cache: the workbook's rows read as the CSV's text, so they ask the same.
    const warm = await enrich(sandbox, dir, args('x.csv', 'x.warm.csv'));
    row(
      `(x) cache filled by one CSV run of ${n(ROWS)} rows`,
      `${n(Number(warm.summary.transactions))} transactions, ${s(warm.wallMs)}`,
    );
    const csv = await cached('x.csv', 'x.out.csv');
    const xlsx = await cached('x.xlsx', 'x.out.xlsx');
    const inline = await cached('x-inline.xlsx', 'x-inline.out.xlsx');
    const inlineQuarter = await cached('x-inline-quarter.xlsx', 'x-inline-quarter.out.xlsx');
    const size = (name: string) => `${(statSync(join(dir, name)).size / 1024 / 1024).toFixed(1)} MB`;
    row(
      `(x) ${n(ROWS)} rows from the warm cache, CSV -> CSV (${size('x.csv')} in, ${size('x.out.csv')} out): wall / peak RSS`,
      `${s(csv.wallMs)} / ${mb(rss(csv))}`,
    );
    row(
      `(x) the same rows, xlsx -> xlsx (${size('x.xlsx')} in, ${size('x.out.xlsx')} out): wall / peak RSS`,
      `${s(xlsx.wallMs)} / ${mb(rss(xlsx))}`,
    );
    row('(x) xlsx wall / CSV wall', (xlsx.wallMs / csv.wallMs).toFixed(2));
    // The workbook's shared-strings table is held whole (every row points into it); without one,
    // what is left is the streaming: the same peak for a quarter of the rows as for all of them.
    row(
      `(x) xlsx -> xlsx with inline strings (no shared table): peak RSS, ${n(quarter)} rows | ${n(ROWS)} rows`,
      `${mb(rss(inlineQuarter))} | ${mb(rss(inline))} (${s(inline.wallMs)} for ${n(ROWS)})`,
    );
  } finally {
    sandbox.process.kill('SIGTERM');
    for (const name of ['x.out.xlsx', 'x-quarter.out.xlsx', 'x.out.csv', 'x.warm.csv'])
      rmSync(join(dir, name), { force: true });
  }
}
