// How a hostile scenario runs and what it measures: a bulk run of the CLI against the sandbox
// misbehaving, or against a small node:http server, then what the service received and billed, what
// the journal kept, what the output holds, and the exit code. The scenarios are in
// hostile-scenarios.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDocumented, LedgerFile, parseLine } from '@enrich/bulk';
import { getOperation } from '@enrich/core';
import { DEMO_KEY, type SandboxServer } from '@enrich/sandbox';
import { CACHE_FILE } from '../src/main.js';
import {
  phone,
  type Ran,
  readCsv,
  readRecords,
  runCli,
  sandboxEnv,
  startServer,
  tempDir,
  writeCsv,
} from './helpers.js';
import { type Hostile, startHostile } from './hostile-servers.js';

export interface Measured {
  /** Requests that reached the service (and, for a redirect, the host it pointed to). */
  readonly requests: number;
  /** Transactions the service billed: the 200s it started to send. */
  readonly counted: number;
  /** Paid answers in the journal (records, no-match, unreadable). */
  readonly journal: number;
  /** Of those, paid-unreadable answers. */
  readonly journalUnreadable: number;
  /** Transactions in the scenario's own spend ledger (dir/ledger.jsonl), when it names one. */
  readonly ledger?: number;
  /** Output rows by status, or undefined when no output was written. */
  readonly statuses: Readonly<Record<string, number>> | undefined;
  /** Output header, when written. */
  readonly header: readonly string[] | undefined;
  /** Columns of the output that are neither input columns, documented ones, nor status. */
  readonly extraColumns: readonly string[];
  readonly rows: readonly Record<string, string>[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** Anything else the scenario measured (decoy hits, a second run...). */
  readonly more: Readonly<Record<string, number | string>>;
  readonly dir: string;
}

export interface Scenario {
  readonly id: string;
  /** The row of the issue's table, or the item of "What to build". */
  readonly issue: string;
  run(): Promise<Measured>;
}

export const PHONES = [phone(1), phone(2), phone(3)];
export const bulkArgs = [
  'phone-lookup',
  '--in',
  'in.csv',
  '--out',
  'out.csv',
  '--quiet',
  '--concurrency',
  '1',
];

function journalOf(dir: string): { paid: number; unreadable: number } {
  const path = join(dir, CACHE_FILE);
  if (!existsSync(path)) return { paid: 0, unreadable: 0 };
  let paid = 0;
  let unreadable = 0;
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (!line) continue;
    paid++;
    if (line.outcome.kind === 'unreadable') unreadable++;
  }
  return { paid, unreadable };
}

/** The scenario's own ledger file: ENRICH_LEDGER=<dir>/ledger.jsonl in its environment. */
export const scenarioLedger = (dir: string) => join(dir, 'ledger.jsonl');

function ledgerOf(dir: string): number | undefined {
  const path = scenarioLedger(dir);
  if (!existsSync(path)) return undefined;
  return new LedgerFile(path).read().entries.reduce((sum, e) => sum + e.count, 0);
}

function outputOf(
  dir: string,
  opId: string,
): Pick<Measured, 'statuses' | 'header' | 'rows' | 'extraColumns'> {
  const path = join(dir, 'out.csv');
  if (!existsSync(path)) return { statuses: undefined, header: undefined, rows: [], extraColumns: [] };
  const rows = readRecords(path);
  const statuses: Record<string, number> = {};
  for (const row of rows) {
    const status = (row.status ?? '').replace(/:.*/, '');
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const header = Object.keys(rows[0] ?? {});
  const op = getOperation(opId as Parameters<typeof getOperation>[0]);
  const input = existsSync(join(dir, 'in.csv')) ? (readCsv(join(dir, 'in.csv'))[0] ?? []) : [];
  const extraColumns = header.filter(
    (h) => ![...input, 'status'].includes(h) && !h.endsWith(` (${opId})`) && !isDocumented(op, h),
  );
  return { statuses, header, rows, extraColumns };
}

export async function measure(
  dir: string,
  service: { requests(): number; counted(): number },
  ran: Ran,
  startedAt: number,
  more: Record<string, number | string> = {},
  opId = 'phone-lookup',
): Promise<Measured> {
  const journal = journalOf(dir);
  const ledger = ledgerOf(dir);
  return {
    requests: service.requests(),
    counted: service.counted(),
    journal: journal.paid,
    journalUnreadable: journal.unreadable,
    ...(ledger === undefined ? {} : { ledger }),
    ...outputOf(dir, opId),
    code: ran.code,
    stdout: ran.stdout,
    stderr: ran.stderr,
    ms: Date.now() - startedAt,
    more,
    dir,
  };
}

/** What the service saw, for `measure`: the requests and transactions of the scenario's own sandbox. */
export function sandboxCounts(server: SandboxServer): { requests(): number; counted(): number } {
  return { requests: () => server.sandbox.requests(), counted: () => server.sandbox.transactions() };
}

/** Runs a scenario against a sandbox of its own, closed afterwards whatever happens. */
export async function withSandbox<T>(run: (server: SandboxServer) => Promise<T>): Promise<T> {
  const server = await startServer();
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

/** A bulk run of Phone Lookup over three phones against the sandbox misbehaving in `modes`. */
export function sandboxScenario(
  id: string,
  issue: string,
  modes: string[],
  extraArgs: string[] = [],
  after?: (
    dir: string,
    server: SandboxServer,
    env: Record<string, string>,
  ) => Promise<Record<string, number | string>>,
): Scenario {
  return {
    id,
    issue,
    async run() {
      const server = await startServer({ misbehave: modes as never });
      try {
        const dir = tempDir();
        const env = sandboxEnv(server);
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        const startedAt = Date.now();
        const ran = await runCli([...bulkArgs, ...extraArgs], { env, cwd: dir });
        const service = {
          requests: () => server.sandbox.requests() + server.decoy.hits(),
          counted: () => server.sandbox.transactions(),
        };
        const first = await measure(dir, service, ran, startedAt, { decoyHits: server.decoy.hits() });
        if (!after) return first;
        const more = await after(dir, server, env);
        return { ...first, more: { ...first.more, ...more } };
      } finally {
        await server.close();
      }
    },
  };
}

/** A bulk run against a small node:http server. */
export function hostileScenario(
  id: string,
  issue: string,
  behaviour: Parameters<typeof startHostile>[0],
  extraArgs: string[] = [],
  phones: string[] = PHONES,
): Scenario {
  return {
    id,
    issue,
    async run() {
      const hostile: Hostile = await startHostile(behaviour);
      try {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], ...phones.map((p) => [p])]);
        const env = {
          ENRICH_API_KEY: DEMO_KEY,
          ENRICH_BASE_URL: hostile.url,
          ENRICH_BASE_URL_V3: hostile.url,
        };
        const startedAt = Date.now();
        const ran = await runCli([...bulkArgs, ...extraArgs], { env, cwd: dir });
        return measure(
          dir,
          { requests: () => hostile.requests, counted: () => hostile.transactions },
          ran,
          startedAt,
        );
      } finally {
        await hostile.close();
      }
    },
  };
}

/** Runs the same command again and says what it sent and spent. */
export async function rerun(
  dir: string,
  server: SandboxServer,
  env: Record<string, string>,
  extra: string[] = [],
) {
  const before = { requests: server.sandbox.requests(), counted: server.sandbox.transactions() };
  const ran = await runCli([...bulkArgs, ...extra], { env, cwd: dir });
  return {
    code: ran.code,
    requests: server.sandbox.requests() - before.requests,
    counted: server.sandbox.transactions() - before.counted,
    stderr: ran.stderr,
  };
}

/**
 * A row of the report that is not a CLI run (the SDK, the sandbox alone): what the service counted
 * and what was seen (`more`); no journal, no output, and no exit code (NaN: the report leaves it
 * empty).
 */
export function notARun(
  service: { readonly requests: number; readonly counted: number },
  startedAt: number,
  more: Measured['more'],
): Measured {
  return {
    ...service,
    journal: 0,
    journalUnreadable: 0,
    statuses: undefined,
    header: undefined,
    extraColumns: [],
    rows: [],
    code: Number.NaN,
    stdout: '',
    stderr: '',
    ms: Date.now() - startedAt,
    more,
    dir: '',
  };
}
