// `pnpm bench`: the enrich command against the sandbox over real HTTP on 127.0.0.1, latency 50 ms,
// the sandbox in one process and enrich in another, side by side with three references run on the
// same files and sandbox (see references.ts): a straightforward peer script, the CSV libraries' own
// parse + stringify pass, and a bare loop of requests. Prints a table of figures and of ratios
// against the targets of issue 11.
//   (a) throughput: 20,000 distinct rows at concurrency 32 vs the ideal, the peer and a bare loop of
//   requests (the ceiling); the same on its first 6,400 rows alone, for the CPU per request once
//   started (the difference of the two runs); the naive loop
//   (b) cost: 1,000,000 rows with 10,000 distinct phones, twice (the second all cached), vs the CSV pass
//   (c) resume: the 20,000-row run SIGKILLed at a random point, then run again
//   (p) pacing: default settings against the best of fixed concurrencies 8 to 64, on each of the
//   sandbox's service families (pacing.ts, pacing-families.ts)
//   (x) xlsx: a 100,000-row Excel workbook and the same rows as CSV, each enriched from a warm cache
//   (xlsx.ts): wall time and peak RSS side by side
// Inputs are generated in a temp dir. BENCH_ROWS / BENCH_BIG_ROWS / BENCH_BIG_DISTINCT scale it down;
// BENCH_SECTIONS=pacing runs the pacing section alone, BENCH_SECTIONS=throughput (a), (b), (c) and
// (s) alone, BENCH_SECTIONS=xlsx (x) alone. BENCH_ENRICH_BIN runs another build of enrich (see
// processes.ts).
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEY } from '@enrich/sandbox';
import { type FamilyResult, pacingBench, pacingTable } from './pacing.js';
import { BIN, enrich, type Run, script, startSandbox } from './processes.js';
import { writeReferences } from './references.js';
import { xlsxBench } from './xlsx.js';

const LATENCY_MS = 50;
const CONCURRENCY = 32;
const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const NAIVE_ROWS = Math.min(200, ROWS);
// The short run whose CPU is subtracted from (a)'s: what is left is the cost of the later requests
// alone, without the process's start-up and the JIT's warm-up, which every run pays once.
const SHORT_ROWS = Math.round(ROWS * 0.32);
const BIG_ROWS = Number(process.env.BENCH_BIG_ROWS ?? 1_000_000);
const BIG_DISTINCT = Number(process.env.BENCH_BIG_DISTINCT ?? 10_000);

const sections = process.env.BENCH_SECTIONS ?? 'all';
const throughputSection = sections === 'all' || sections === 'throughput';
const pacingSection = sections === 'all' || sections === 'pacing';
const xlsxSection = sections === 'all' || sections === 'xlsx';
const dir = mkdtempSync(join(tmpdir(), 'enrich-bench-'));
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);
const phone = (i: number) => `555${String(1_000_000 + i).padStart(7, '0')}`;
const FORMATS = [
  (p: string) => p,
  (p: string) => `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`,
  (p: string) => `${p.slice(0, 3)}-${p.slice(3, 6)}-${p.slice(6)}`,
  (p: string) => `+1 ${p.slice(0, 3)} ${p.slice(3, 6)} ${p.slice(6)}`,
];

async function writeRows(path: string, count: number, phoneOf: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,name,phone,notes\n');
  for (let i = 0; i < count; i++) {
    if (!out.write(`${i},Lead ${i},${phoneOf(i)},"row ${i}, from the bench"\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const n = (x: number) => x.toLocaleString('en-US');
const r = (x: number) => x.toFixed(2);
// Targets show one more digit: a ratio of 0.967 against a target of 0.97 must not print as 0.97.
const r3 = (x: number) => x.toFixed(3);
const rss = (run: Run) => (run.timeRssKb ? run.timeRssKb * 1024 : run.summary.maxRssBytes);
const cpu = (run: Run) => Number(run.summary.cpuMs);

const rows: [string, string][] = [];
const row = (what: string, value: string) => {
  rows.push([what, value]);
  log(`${what}: ${value}`);
};
const targets: [string, string, boolean][] = [];
const target = (what: string, figure: string, met: boolean) => {
  targets.push([what, figure, met]);
  log(`target ${what}: ${figure} ${met ? 'met' : 'NOT met'}`);
};

const loadBefore = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
// (s) start-up: `enrich --help` as an installed command runs it (the bundle, node's own start-up
// included), the median of 15 runs; the target is under 150 ms.
function startupMs(args: string[], runs = 15): { median: number; min: number } {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const ran = spawnSync(process.execPath, [BIN, ...args], { stdio: 'ignore' });
    if (ran.status !== 0) throw new Error(`enrich ${args.join(' ')} exited ${ran.status}`);
    times.push(performance.now() - started);
  }
  times.sort((x, y) => x - y);
  return { median: times[Math.floor(runs / 2)] ?? 0, min: times[0] ?? 0 };
}
async function throughputAndCost(): Promise<void> {
  for (const args of [['--help'], ['--version']]) {
    const { median, min } = startupMs(args);
    row(
      `(s) enrich ${args.join(' ')}: wall time, median of 15 (target < 150 ms)`,
      `${median.toFixed(0)} ms (min ${min.toFixed(0)} ms)`,
    );
  }

  const { peer, csvPass, bareLoop } = writeReferences(dir);
  const sandbox = await startSandbox(LATENCY_MS);
  const runArgs = (input: string, output: string, cache: string) => [
    '--in',
    input,
    '--out',
    output,
    '--cache',
    cache,
    '--concurrency',
    String(CONCURRENCY),
  ];
  try {
    log(`sandbox at ${sandbox.url}, latency ${LATENCY_MS} ms; inputs in ${dir}`);
    await writeRows(join(dir, 'a.csv'), ROWS, (i) => phone(i));
    await writeRows(join(dir, 'naive.csv'), NAIVE_ROWS, (i) => phone(ROWS + i));
    await writeRows(join(dir, 'short.csv'), SHORT_ROWS, (i) => phone(i));

    // (a) throughput, side by side with the peer script on the same file.
    await sandbox.reset();
    const a = await enrich(sandbox, dir, runArgs('a.csv', 'a.out.csv', 'a.cache'));
    const aStats = await sandbox.stats();
    await sandbox.reset();
    const aPeer = await script(
      peer,
      [join(dir, 'a.csv'), join(dir, 'a.peer.csv'), sandbox.url, DEMO_KEY],
      dir,
    );
    const peerStats = await sandbox.stats();
    await sandbox.reset();
    const bare = await script(bareLoop, [sandbox.url, DEMO_KEY, String(ROWS)], dir);
    await sandbox.reset();
    const short = await enrich(sandbox, dir, runArgs('short.csv', 'short.out.csv', 'short.cache'));
    const ideal = (ROWS * LATENCY_MS) / CONCURRENCY;
    row(`(a) ${n(ROWS)} distinct rows, concurrency ${CONCURRENCY}: ideal = rows x 50 ms / 32`, s(ideal));
    row(
      '(a) bare loop (32 x node:http, no file, answers unread): wall / ideal over wall',
      `${s(bare.wallMs)} / ${r(ideal / bare.wallMs)} (the most this machine and sandbox give)`,
    );
    row(
      '(a) enrich: wall (whole process) / run time (summary)',
      `${s(a.wallMs)} / ${s(a.summary.elapsedMs)}`,
    );
    row('(a) peer script: wall', `${s(aPeer.wallMs)} (${n(peerStats.transactions)} transactions)`);
    row('(a) ideal / wall: enrich | peer', `${r(ideal / a.wallMs)} | ${r(ideal / aPeer.wallMs)}`);
    row('(a) enrich wall / peer wall', r(a.wallMs / aPeer.wallMs));
    // Target 3 compares enrich with the ideal, which the sandbox's own answer time (about 50.4 ms) keeps
    // out of any client's reach, and the bare loop's ratio to it moves with the machine's load from run
    // to run; this ratio is what enrich's own work costs in time, whatever the load.
    row('(a) enrich wall / bare loop wall (what files, journal and answers add)', r3(a.wallMs / bare.wallMs));
    row('(a) transactions (sandbox count)', n(aStats.transactions));
    const cpuPerRequest = cpu(a) / ROWS;
    // The bare loop's CPU is node:http's own share of every client's (it reads no file and no answer).
    row(
      '(a) CPU per request: enrich | peer | bare loop',
      `${cpuPerRequest.toFixed(3)} ms | ${(cpu(aPeer) / ROWS).toFixed(3)} ms | ${(cpu(bare) / ROWS).toFixed(3)} ms (enrich CPU ${s(cpu(a))}, peak RSS ${mb(rss(a))})`,
    );
    const onceStarted = (cpu(a) - cpu(short)) / (ROWS - SHORT_ROWS);
    row(
      `(a) enrich CPU per request past the first ${n(SHORT_ROWS)} (a ${n(SHORT_ROWS)}-row run's CPU subtracted)`,
      `${onceStarted.toFixed(3)} ms (the ${n(SHORT_ROWS)}-row run alone: ${(cpu(short) / SHORT_ROWS).toFixed(3)} ms per request)`,
    );
    target('3. 20,000 distinct: ideal / wall >= 0.97', r3(ideal / a.wallMs), ideal / a.wallMs >= 0.97);
    target(
      '3. ... and not slower than the peer: enrich / peer wall <= 1',
      r3(a.wallMs / aPeer.wallMs),
      a.wallMs <= aPeer.wallMs,
    );
    target('4. CPU per request <= 0.35 ms', `${cpuPerRequest.toFixed(3)} ms`, cpuPerRequest <= 0.35);

    await sandbox.reset();
    const naive = await enrich(sandbox, dir, [
      ...runArgs('naive.csv', 'naive.out.csv', 'naive.cache').slice(0, 6),
      '--concurrency',
      '1',
    ]);
    const perRow = naive.summary.elapsedMs / NAIVE_ROWS;
    row(`(a) naive one-at-a-time loop, measured on ${NAIVE_ROWS} rows: per row`, `${perRow.toFixed(1)} ms`);
    row(
      `(a) naive loop extrapolated to ${n(ROWS)} rows (not run)`,
      `${s(perRow * ROWS)} (${((perRow * ROWS) / a.wallMs).toFixed(1)}x the concurrent run)`,
    );

    // (b) cost, side by side with the CSV libraries' own pass over the same file.
    log(`writing ${n(BIG_ROWS)} rows with ${n(BIG_DISTINCT)} distinct phones`);
    await writeRows(join(dir, 'big.csv'), BIG_ROWS, (i) => {
      const k = (i * 7919) % BIG_DISTINCT;
      return (FORMATS[i % FORMATS.length] as (p: string) => string)(phone(500_000 + k));
    });
    const pass = await script(csvPass, [join(dir, 'big.csv'), join(dir, 'big.pass.csv')], dir);
    rmSync(join(dir, 'big.pass.csv'), { force: true });
    row(
      `(b) CSV pass (csv-parse -> csv-stringify) over ${n(BIG_ROWS)} rows: wall / peak RSS`,
      `${s(pass.wallMs)} / ${mb(rss(pass))}`,
    );
    await sandbox.reset();
    const bigArgs = runArgs('big.csv', 'big.out.csv', 'big.cache');
    const b1 = await enrich(sandbox, dir, bigArgs);
    const b1Stats = await sandbox.stats();
    const network = (BIG_DISTINCT * LATENCY_MS) / CONCURRENCY;
    const bound = Math.max(network, pass.wallMs);
    row(
      `(b) ${n(BIG_ROWS)} rows, ${n(BIG_DISTINCT)} distinct: transactions`,
      `${n(b1Stats.transactions)} (summary: ${n(b1.summary.transactions)}, distinct ${n(Number(b1.summary.distinct))})`,
    );
    row(
      '(b) bound = max(network ideal, CSV pass)',
      `${s(bound)} (network ${s(network)}, CSV pass ${s(pass.wallMs)})`,
    );
    row('(b) enrich: wall / CPU / peak RSS', `${s(b1.wallMs)} / ${s(cpu(b1))} / ${mb(rss(b1))}`);
    const b2 = await enrich(sandbox, dir, bigArgs);
    const b2Stats = await sandbox.stats();
    row(
      '(b) same command again (all cached): transactions',
      `${n(b2Stats.transactions - b1Stats.transactions)} (summary: ${n(b2.summary.transactions)})`,
    );
    row('(b) second run: wall / peak RSS', `${s(b2.wallMs)} / ${mb(rss(b2))}`);
    target('1. 1M rows, 10k distinct: bound / wall >= 0.9', r3(bound / b1.wallMs), bound / b1.wallMs >= 0.9);
    target(
      '2. same file fully cached: wall / CSV pass <= 1.3',
      r3(b2.wallMs / pass.wallMs),
      b2.wallMs / pass.wallMs <= 1.3,
    );
    const peak = Math.max(rss(b1), rss(b2));
    target('4. peak RSS on the 1M-row file <= 128 MiB', mb(peak), peak <= 128 * 1024 * 1024);
    rmSync(join(dir, 'big.csv'));
    rmSync(join(dir, 'big.out.csv'), { force: true });

    // (c) resume
    await sandbox.reset();
    const killAfterMs = Math.round(ideal * (0.2 + 0.6 * Math.random()));
    const cArgs = runArgs('a.csv', 'c.out.csv', 'c.cache');
    const killed = await enrich(sandbox, dir, cArgs, { killAfterMs });
    const killedStats = await sandbox.stats();
    const resumed = await enrich(sandbox, dir, cArgs);
    const total = await sandbox.stats();
    const same = readFileSync(join(dir, 'c.out.csv')).equals(readFileSync(join(dir, 'a.out.csv')));
    row(
      `(c) ${n(ROWS)}-row run SIGKILLed after ${s(killAfterMs)}`,
      `${killed.signal ?? `exit ${killed.code}`}; ${n(killedStats.transactions)} transactions before the kill`,
    );
    row(
      '(c) rerun: transactions',
      `${n(resumed.summary.transactions)} (${n(Number(resumed.summary.fromCache))} answers from the journal)`,
    );
    row(
      '(c) total transactions over both runs',
      `${n(total.transactions)} for ${n(ROWS)} distinct (${n(total.transactions - ROWS)} in flight at the kill, paid twice)`,
    );
    row('(c) output equals the uninterrupted run (a)', same ? 'yes, byte for byte' : 'NO');
  } finally {
    sandbox.process.kill('SIGTERM');
  }
}

let pacing: FamilyResult[] = [];
try {
  if (throughputSection) await throughputAndCost();
  if (xlsxSection) await xlsxBench(dir, LATENCY_MS, row, log);
  if (pacingSection) pacing = await pacingBench(dir, log);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const table = (entries: readonly (readonly string[])[]) => {
  const columns = Math.max(...entries.map((e) => e.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(0, ...entries.map((e) => (e[i] ?? '').length)),
  );
  const line = `+${widths
    .filter((w) => w > 0)
    .map((w) => '-'.repeat(w + 2))
    .join('+')}+`;
  const body = entries.map((e) => `| ${e.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`);
  return [line, ...body, line].join('\n');
};
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
process.stdout.write(
  `\nenrich benchmark: sandbox over HTTP on 127.0.0.1 (separate process), latency ${LATENCY_MS} ms; enrich = ${BIN}\n` +
    `machine: ${cpus().length} CPUs, load average at the end ${load} (before: ${loadBefore})\n`,
);
if (rows.length > 0) process.stdout.write(`${table(rows)}\n`);
if (targets.length > 0) {
  process.stdout.write('\ntargets (issue 11), from this run:\n');
  process.stdout.write(
    `${table(targets.map(([what, figure, met]) => [what, figure, met ? 'met' : 'NOT met']))}\n`,
  );
}
if (pacing.length > 0) {
  process.stdout.write(
    '\npacing (issues 22 and 36): the defaults against the best fixed --concurrency (*), in this run;\n' +
      'answers/s exclude refusals (429, 503); the ceiling is what the service allows; refused = (429 + 503) / requests\n',
  );
  process.stdout.write(`${table(pacingTable(pacing))}\n`);
}
