// `pnpm bench` (turbo builds the server and the CLI first): enrich-functions against the sandbox over
// real HTTP on 127.0.0.1, the sandbox in a process of its own. Prints a table of figures:
//   (t) throughput: one instance answering BIGQUERY batches of 500 rows (4 in flight, as a query's
//       workers send them) against the `enrich` command on the same rows, the same sandbox, in the
//       same run (each twice, in turn; the best of each), every row a distinct request;
//   (s) a 500-row batch answered wholly from the store, sent 300 times one after another: the
//       server's own time for it (its log line: what it adds to a query) and the round trip the
//       caller sees, with the journal and with PostgreSQL (a cluster of the bench's own, started by
//       @enrich/bulk's harness).
//   (i) three instances sharing one store and one key on a gateway of 40 requests a second (the
//       sandbox's token bucket, 429 past it): six batches of 20 each, one after another, three
//       times; how near the bucket's rate they finish together, and how many requests it refused.
// BENCH_ROWS scales (t) (6,000 by default); BENCH_SECTIONS=throughput, store or instances runs one section.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startPostgresCluster } from '@enrich/bulk/test-postgres';
import { DEMO_KEY } from '@enrich/sandbox';

const ROOT = join(import.meta.dirname, '..');
const SERVER = join(ROOT, 'dist', 'enrich-functions.mjs');
const CLI = join(ROOT, '..', 'cli', 'dist', 'enrich.mjs');
const ROWS = Number(process.env.BENCH_ROWS ?? 6000);
const BATCH = 500;
const IN_FLIGHT = 4;
const REPEATS = 300;
const TOKEN = 'bench-token-0123456789abcdef';
/** A service that queues past 48 at once, 40 ms median with a log-normal tail: the pace matters. */
const MODEL = { latencyMs: 40, latencySigma: 0.5, capacity: 48 };
const sections = process.env.BENCH_SECTIONS ?? 'all';
const dir = mkdtempSync(join(tmpdir(), 'enrich-functions-bench-'));
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);
const phone = (i: number) => `555${String(3_000_000 + i).padStart(7, '0')}`;

/** A child whose stdout lines are read one at a time. */
function child(command: string, args: readonly string[], env: Record<string, string> = {}) {
  const proc = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: proc.stdout });
  const waiting: ((line: string) => void)[] = [];
  const seen: string[] = [];
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else seen.push(line);
  });
  proc.stderr.on('data', () => {});
  /** Every line printed so far, read or not. */
  const all: string[] = [];
  lines.on('line', (line) => all.push(line));
  const nextLine = () =>
    new Promise<string>((resolve) => {
      const line = seen.shift();
      if (line !== undefined) resolve(line);
      else waiting.push(resolve);
    });
  return { proc, nextLine, printed: () => all };
}

async function startSandbox(model: object = MODEL) {
  const sandbox = child(process.execPath, [
    '--import',
    'tsx',
    join(ROOT, 'bench', 'sandbox-process.ts'),
    JSON.stringify(model),
  ]);
  const { url } = JSON.parse(await sandbox.nextLine()) as { url: string };
  const stats = async () => {
    sandbox.proc.stdin.write('stats\n');
    return JSON.parse(await sandbox.nextLine()) as {
      transactions: number;
      requests: number;
      throttled: number;
    };
  };
  return { url, stats, stop: () => sandbox.proc.kill('SIGTERM') };
}

function exited(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

/** The enrich command on a CSV of the rows; its wall time in ms. */
async function cliRun(url: string, rows: readonly string[]): Promise<number> {
  const run = mkdtempSync(join(dir, 'cli-'));
  writeFileSync(join(run, 'in.csv'), `phone\n${rows.join('\n')}\n`);
  const env = {
    ENRICH_API_KEY: DEMO_KEY,
    ENRICH_BASE_URL: url,
    ENRICH_BASE_URL_V3: url,
    ENRICH_CACHE_DIR: run,
    ENRICH_LEDGER: join(run, 'ledger.jsonl'),
    // The registry of caches and the suppression list: the bench's, not the user's data folder.
    ENRICH_DATA_DIR: run,
  };
  const started = performance.now();
  const { proc } = child(
    process.execPath,
    [CLI, 'phone-lookup', '--in', join(run, 'in.csv'), '--out', join(run, 'out.csv'), '--no-remember-pace'],
    env,
  );
  const code = await exited(proc);
  if (code !== 0) throw new Error(`enrich exited ${code}`);
  return performance.now() - started;
}

/** An instance of the server; resolves with its URL once it listens. */
async function startServer(url: string, args: readonly string[] = []) {
  const run = mkdtempSync(join(dir, 'functions-'));
  const env = {
    ENRICH_API_KEY: DEMO_KEY,
    ENRICH_BASE_URL: url,
    ENRICH_BASE_URL_V3: url,
    ENRICH_FUNCTIONS_TOKEN: TOKEN,
    ENRICH_CACHE_DIR: run,
    ENRICH_LEDGER: join(run, 'ledger.jsonl'),
    // The registry of caches and the suppression list: the bench's, not the user's data folder.
    ENRICH_DATA_DIR: run,
  };
  const server = child(process.execPath, [SERVER, '--port', '0', '--host', '127.0.0.1', ...args], env);
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(await server.nextLine());
    if (match?.[1])
      return {
        url: match[1],
        printed: server.printed,
        stop: async () => {
          server.proc.kill('SIGTERM');
          await exited(server.proc);
        },
      };
  }
}

async function bigQuery(url: string, rows: readonly string[]): Promise<void> {
  const status = await bigQueryStatus(url, rows);
  if (status !== 200) throw new Error(`batch answered ${status}`);
}

/** A batch sent as BigQuery sends it; the status it was answered with (200: every row replied). */
async function bigQueryStatus(url: string, rows: readonly string[]): Promise<number> {
  const response = await fetch(`${url}/bigquery`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      requestId: 'b',
      caller: '//bigquery.googleapis.com/projects/p/jobs/p:US.bench',
      sessionUser: 'bench@example.com',
      userDefinedContext: { operation: 'phone-lookup' },
      calls: rows.map((r) => [r]),
    }),
  });
  const body = (await response.json()) as { replies?: unknown[] };
  if (response.status === 200 && body.replies?.length !== rows.length) throw new Error('rows left unreplied');
  return response.status;
}

/** One instance answering the rows in batches, IN_FLIGHT at a time; its wall time in ms. */
async function functionsRun(url: string, rows: readonly string[]): Promise<number> {
  const server = await startServer(url);
  const batches = Array.from({ length: Math.ceil(rows.length / BATCH) }, (_, i) =>
    rows.slice(i * BATCH, (i + 1) * BATCH),
  );
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let b = next++; b < batches.length; b = next++) await bigQuery(server.url, batches[b] as string[]);
    }),
  );
  const ms = performance.now() - started;
  await server.stop();
  return ms;
}

async function throughput(): Promise<string[][]> {
  const sandbox = await startSandbox();
  const rows = Array.from({ length: ROWS }, (_, i) => phone(i));
  const cli: number[] = [];
  const functions: number[] = [];
  try {
    for (let round = 0; round < 2; round++) {
      const before = (await sandbox.stats()).transactions;
      cli.push(ROWS / ((await cliRun(sandbox.url, rows)) / 1000));
      functions.push(ROWS / ((await functionsRun(sandbox.url, rows)) / 1000));
      const spent = (await sandbox.stats()).transactions - before;
      if (spent !== 2 * ROWS) throw new Error(`round ${round} spent ${spent}, not ${2 * ROWS}`);
      log(
        `round ${round + 1}: CLI ${cli.at(-1)?.toFixed(0)} rows/s, functions ${functions.at(-1)?.toFixed(0)} rows/s`,
      );
    }
  } finally {
    sandbox.stop();
  }
  const [bestCli, bestFunctions] = [Math.max(...cli), Math.max(...functions)];
  return [
    ['(t) the enrich command, rows/s', cli.map((r) => r.toFixed(0)).join(', '), ''],
    ['(t) one enrich-functions instance, rows/s', functions.map((r) => r.toFixed(0)).join(', '), ''],
    ['(t) functions / CLI (best of each)', (bestFunctions / bestCli).toFixed(2), '>= 0.9'],
  ];
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

interface StoreFigures {
  /** The round trip as the caller sees it (ms): p50, p99. */
  readonly trip: [number, number];
  /** The server's own time for the batch, from its log line (whole ms): p50, p99. */
  readonly server: [number, number];
}

/** A 500-row batch the store holds wholly, sent REPEATS times one after another. */
async function fromStore(url: string, args: readonly string[]): Promise<StoreFigures> {
  const server = await startServer(url, args);
  const rows = Array.from({ length: BATCH }, (_, i) => phone(100_000 + i));
  try {
    await bigQuery(server.url, rows);
    for (let i = 0; i < 20; i++) await bigQuery(server.url, rows);
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const started = performance.now();
      await bigQuery(server.url, rows);
      times.push(performance.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = server
      .printed()
      .flatMap((line) => /: 500 rows, .* 200 in (\d+) ms/.exec(line)?.[1] ?? [])
      .map(Number)
      .slice(-REPEATS);
    times.sort((a, b) => a - b);
    logged.sort((a, b) => a - b);
    return {
      trip: [percentile(times, 50), percentile(times, 99)],
      server: [percentile(logged, 50), percentile(logged, 99)],
    };
  } finally {
    await server.stop();
  }
}

async function store(): Promise<string[][]> {
  const sandbox = await startSandbox();
  const cluster = await startPostgresCluster({ database: 'bench' });
  try {
    const journal = await fromStore(sandbox.url, []);
    const postgres = await fromStore(sandbox.url, ['--store', cluster.url]);
    const said = ([p50, p99]: [number, number]) => `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`;
    return [
      ['(s) 500 rows from the store, journal: in the server', said(journal.server), '< 50 ms p99'],
      ['(s) 500 rows from the store, journal: round trip', said(journal.trip), ''],
      ['(s) 500 rows from the store, PostgreSQL: in the server', said(postgres.server), '< 50 ms p99'],
      ['(s) 500 rows from the store, PostgreSQL: round trip', said(postgres.trip), ''],
    ];
  } finally {
    sandbox.stop();
    await cluster.remove();
  }
}

/** Three instances, one store, one key on a bucket of 40/s: six batches of 20 each, one after another. */
const INSTANCES = { count: 3, batches: 6, rows: 20, rate: 40 };

/** One run of (i): when each instance had its last batch answered, in ms from the start. */
async function instancesRun(url: string, store: string, from: number) {
  const servers = await Promise.all(
    Array.from({ length: INSTANCES.count }, () => startServer(url, ['--store', store])),
  );
  const started = performance.now();
  try {
    const ends = await Promise.all(
      servers.map(async (server, i) => {
        for (let b = 0; b < INSTANCES.batches; b++) {
          const first = from + (i * INSTANCES.batches + b) * INSTANCES.rows;
          const rows = Array.from({ length: INSTANCES.rows }, (_, r) => phone(first + r));
          // As BigQuery does: a 503 is sent again (what was bought is free the second time).
          for (let attempt = 1; ; attempt++) {
            const status = await bigQueryStatus(server.url, rows);
            if (status === 200) break;
            if (status !== 503 || attempt === 5)
              throw new Error(`batch answered ${status} (attempt ${attempt})`);
          }
        }
        return performance.now() - started;
      }),
    );
    return ends;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function instances(): Promise<string[][]> {
  const sandbox = await startSandbox({ latencyMs: 40, rate: INSTANCES.rate });
  const cluster = await startPostgresCluster({ database: 'bench_instances' });
  const total = INSTANCES.count * INSTANCES.batches * INSTANCES.rows;
  const best = (total / INSTANCES.rate) * 1000;
  const shares: number[] = [];
  const spreads: string[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      const before = await sandbox.stats();
      const ends = await instancesRun(sandbox.url, cluster.url, 200_000 + round * total);
      const after = await sandbox.stats();
      if (after.transactions - before.transactions !== total)
        throw new Error(`round ${round} spent ${after.transactions - before.transactions}, not ${total}`);
      const refused = after.throttled - before.throttled;
      shares.push(best / Math.max(...ends));
      spreads.push(ends.map((ms) => (ms / 1000).toFixed(1)).join('/'));
      log(
        `instances round ${round + 1}: ends ${spreads.at(-1)} s, ${refused} of ${after.requests - before.requests} requests refused`,
      );
    }
    const counts = await sandbox.stats();
    return [
      [
        `(i) ${INSTANCES.count} instances, ${total} rows at ${INSTANCES.rate}/s: best / last end`,
        shares.map((r) => r.toFixed(2)).join(', '),
        '>= 0.5',
      ],
      ['(i) each instance done at, s', spreads.join('; '), ''],
      ['(i) requests refused (429)', `${counts.throttled} of ${counts.requests}`, '< 10 %'],
    ];
  } finally {
    sandbox.stop();
    await cluster.remove();
  }
}

const table: string[][] = [['measure', 'figure', 'target']];
try {
  if (sections === 'all' || sections === 'throughput') table.push(...(await throughput()));
  if (sections === 'all' || sections === 'store') table.push(...(await store()));
  if (sections === 'all' || sections === 'instances') table.push(...(await instances()));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const widths = [0, 1, 2].map((c) => Math.max(...table.map((row) => (row[c] ?? '').length)));
const line = (row: readonly string[]) =>
  `| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`;
process.stdout.write(
  `enrich-functions bench: ${ROWS} distinct rows, batches of ${BATCH} (${IN_FLIGHT} in flight); sandbox ${JSON.stringify(MODEL)}; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(2)}\n`,
);
process.stdout.write(
  `${[line(table[0] ?? []), line(widths.map((w) => '-'.repeat(w))), ...table.slice(1).map(line)].join('\n')}\n`,
);
