// `pnpm bench`: the enrich command against the sandbox over real HTTP on 127.0.0.1, latency 50 ms,
// the sandbox in one process and enrich in another. Prints a table of figures (not pass/fail).
//   (a) throughput: 20,000 distinct rows at concurrency 32 vs the ideal, and a one-at-a-time loop
//   (b) cost: 1,000,000 rows with 10,000 distinct phones, twice
//   (c) resume: the 20,000-row run SIGKILLed at a random point, then run again
// Inputs are generated in a temp dir. BENCH_ROWS / BENCH_BIG_ROWS / BENCH_BIG_DISTINCT scale it down.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEY } from '@enrich/sandbox';

const CLI_DIR = join(import.meta.dirname, '..');
// The built bundle (what an installed command runs), not the tsx launcher: see scripts/build.mjs.
const BIN = join(CLI_DIR, 'dist', 'enrich.mjs');
const LATENCY_MS = 50;
const CONCURRENCY = 32;
const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const NAIVE_ROWS = Math.min(200, ROWS);
const BIG_ROWS = Number(process.env.BENCH_BIG_ROWS ?? 1_000_000);
const BIG_DISTINCT = Number(process.env.BENCH_BIG_DISTINCT ?? 10_000);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

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

interface Sandbox {
  url: string;
  process: ChildProcess;
  stats(): Promise<{ transactions: number; requests: number }>;
  reset(): Promise<void>;
}

async function startSandbox(): Promise<Sandbox> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(CLI_DIR, 'bench', 'sandbox-process.ts'), String(LATENCY_MS)],
    {
      cwd: CLI_DIR,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const { url } = JSON.parse(String(line).split('\n')[0] ?? '{}') as { url: string };
  return {
    url,
    process: child,
    stats: async () =>
      (await (await fetch(`${url}/__sandbox/stats`)).json()) as { transactions: number; requests: number },
    reset: async () => {
      await fetch(`${url}/__sandbox/reset`, { method: 'POST' });
    },
  };
}

interface Run {
  wallMs: number;
  summary: Record<string, number | string | boolean> & {
    elapsedMs: number;
    transactions: number;
    maxRssBytes: number;
  };
  timeRssKb: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function enrich(sandbox: Sandbox, args: string[], options: { killAfterMs?: number } = {}): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    ENRICH_API_KEY: DEMO_KEY,
    ENRICH_BASE_URL: sandbox.url,
    ENRICH_BASE_URL_V3: sandbox.url,
  };
  const command = [process.execPath, BIN, 'phone-lookup', ...args, '--json', '--quiet'];
  const [file, ...argv] = TIME ? [TIME, '-v', ...command] : command;
  const started = performance.now();
  const child = spawn(file as string, argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  if (options.killAfterMs !== undefined) {
    // Kill node itself (under /usr/bin/time the child is time, whose child is node).
    setTimeout(() => {
      const pid = TIME ? findChildPid(child.pid) : child.pid;
      if (pid) process.kill(pid, 'SIGKILL');
    }, options.killAfterMs);
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const wallMs = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const summaryLine = stdout.trim().split('\n').pop() ?? '';
      let summary = {} as Run['summary'];
      try {
        summary = JSON.parse(summaryLine);
      } catch {
        if (options.killAfterMs === undefined) process.stderr.write(`${stdout}\n${stderr}\n`);
      }
      // Under /usr/bin/time, the killed process is time's child: time reports its signal.
      const timeSignal = /Command terminated by signal (\d+)/.exec(stderr);
      const killedBy = signal ?? (timeSignal?.[1] === '9' ? 'SIGKILL' : null);
      resolve({ wallMs, summary, timeRssKb: rss ? Number(rss[1]) : undefined, code, signal: killedBy });
    });
  });
}

function findChildPid(parent: number | undefined): number | undefined {
  if (!parent) return undefined;
  try {
    const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    return children[0] ? Number(children[0]) : undefined;
  } catch {
    return undefined;
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const n = (x: number) => x.toLocaleString('en-US');

const rows: [string, string][] = [];
const row = (what: string, value: string) => {
  rows.push([what, value]);
  log(`${what}: ${value}`);
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
for (const args of [['--help'], ['--version']]) {
  const { median, min } = startupMs(args);
  row(
    `(s) enrich ${args.join(' ')}: wall time, median of 15 (target < 150 ms)`,
    `${median.toFixed(0)} ms (min ${min.toFixed(0)} ms)`,
  );
}

const sandbox = await startSandbox();
try {
  log(`sandbox at ${sandbox.url}, latency ${LATENCY_MS} ms; inputs in ${dir}`);
  await writeRows(join(dir, 'a.csv'), ROWS, (i) => phone(i));
  await writeRows(join(dir, 'naive.csv'), NAIVE_ROWS, (i) => phone(ROWS + i));

  // (a) throughput
  await sandbox.reset();
  const a = await enrich(sandbox, [
    '--in',
    'a.csv',
    '--out',
    'a.out.csv',
    '--cache',
    'a.cache',
    '--concurrency',
    String(CONCURRENCY),
  ]);
  const aStats = await sandbox.stats();
  const ideal = (ROWS * LATENCY_MS) / CONCURRENCY;
  row(`(a) ${n(ROWS)} distinct rows, concurrency ${CONCURRENCY}: wall time (whole process)`, s(a.wallMs));
  row('(a) run time (summary, without process start-up)', s(a.summary.elapsedMs));
  row('(a) ideal = rows x 50 ms / 32', s(ideal));
  row(
    '(a) efficiency = ideal / wall',
    `${(ideal / a.wallMs).toFixed(3)} (run time only: ${(ideal / a.summary.elapsedMs).toFixed(3)})`,
  );
  row('(a) transactions (sandbox count)', n(aStats.transactions));
  row('(a) enrich CPU time / peak RSS', `${s(Number(a.summary.cpuMs))} / ${mb(a.summary.maxRssBytes)}`);

  await sandbox.reset();
  const naive = await enrich(sandbox, [
    '--in',
    'naive.csv',
    '--out',
    'naive.out.csv',
    '--cache',
    'naive.cache',
    '--concurrency',
    '1',
  ]);
  const perRow = naive.summary.elapsedMs / NAIVE_ROWS;
  row(`(a) naive one-at-a-time loop, measured on ${NAIVE_ROWS} rows: per row`, `${perRow.toFixed(1)} ms`);
  row(
    `(a) naive loop extrapolated to ${n(ROWS)} rows (not run)`,
    `${s(perRow * ROWS)} (${((perRow * ROWS) / a.wallMs).toFixed(1)}x the concurrent run)`,
  );

  // (b) cost
  log(`writing ${n(BIG_ROWS)} rows with ${n(BIG_DISTINCT)} distinct phones`);
  await writeRows(join(dir, 'big.csv'), BIG_ROWS, (i) => {
    const k = (i * 7919) % BIG_DISTINCT;
    return (FORMATS[i % FORMATS.length] as (p: string) => string)(phone(500_000 + k));
  });
  await sandbox.reset();
  const bigArgs = [
    '--in',
    'big.csv',
    '--out',
    'big.out.csv',
    '--cache',
    'big.cache',
    '--concurrency',
    String(CONCURRENCY),
  ];
  const b1 = await enrich(sandbox, bigArgs);
  const b1Stats = await sandbox.stats();
  row(
    `(b) ${n(BIG_ROWS)} rows, ${n(BIG_DISTINCT)} distinct: transactions`,
    `${n(b1Stats.transactions)} (summary: ${n(b1.summary.transactions)}, distinct ${n(Number(b1.summary.distinct))})`,
  );
  row('(b) wall time', s(b1.wallMs));
  row(
    '(b) peak RSS of the enrich process',
    `${mb(b1.summary.maxRssBytes)}${b1.timeRssKb ? ` (/usr/bin/time: ${mb(b1.timeRssKb * 1024)})` : ''}`,
  );
  const b2 = await enrich(sandbox, bigArgs);
  const b2Stats = await sandbox.stats();
  row(
    '(b) same command again: transactions',
    `${n(b2Stats.transactions - b1Stats.transactions)} (summary: ${n(b2.summary.transactions)})`,
  );
  row('(b) second run: wall time / peak RSS', `${s(b2.wallMs)} / ${mb(b2.summary.maxRssBytes)}`);
  rmSync(join(dir, 'big.csv'));
  rmSync(join(dir, 'big.out.csv'), { force: true });

  // (c) resume
  await sandbox.reset();
  const killAfterMs = Math.round(ideal * (0.2 + 0.6 * Math.random()));
  const cArgs = [
    '--in',
    'a.csv',
    '--out',
    'c.out.csv',
    '--cache',
    'c.cache',
    '--concurrency',
    String(CONCURRENCY),
  ];
  const killed = await enrich(sandbox, cArgs, { killAfterMs });
  const killedStats = await sandbox.stats();
  const resumed = await enrich(sandbox, cArgs);
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
  rmSync(dir, { recursive: true, force: true });
}

const width = Math.max(...rows.map(([w]) => w.length));
const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(Math.max(...rows.map(([, v]) => v.length)) + 2)}+`;
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
process.stdout.write(
  `\nenrich benchmark: sandbox over HTTP on 127.0.0.1 (separate process), latency ${LATENCY_MS} ms; enrich = dist/enrich.mjs\n` +
    `machine: ${cpus().length} CPUs, load average at the end ${load} (before: ${loadBefore})\n`,
);
process.stdout.write(`${line}\n`);
for (const [what, value] of rows)
  process.stdout.write(`| ${what.padEnd(width)} | ${value.padEnd(line.length - width - 7)} |\n`);
process.stdout.write(`${line}\n`);
