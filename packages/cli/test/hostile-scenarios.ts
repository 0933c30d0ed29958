// Every misbehaviour of issue 8 that the CLI meets, as a scenario run against a real HTTP service
// (the sandbox's misbehave modes, or a small node:http server where the sandbox cannot say it):
// what the service received and billed, what the journal kept, what the output holds, and the
// exit code. test/hostile.test.ts asserts each; scripts/hostile-report.ts prints them all.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation } from '@enrich/core';
import { DEMO_KEY, type SandboxServer } from '@enrich/sandbox';
import { parseLine } from '../src/answer-store.js';
import { CACHE_FILE } from '../src/main.js';
import { isDocumented } from '../src/row-result.js';
import {
  phone,
  type Ran,
  readRecords,
  runCli,
  sandboxEnv,
  startServer,
  tempDir,
  writeCsv,
} from './helpers.js';
import { type Hostile, phoneRecord, startHostile } from './hostile-servers.js';

export interface Measured {
  /** Requests that reached the service (and, for a redirect, the host it pointed to). */
  readonly requests: number;
  /** Transactions the service billed: the 200s it started to send. */
  readonly counted: number;
  /** Paid answers in the journal (records, no-match, unreadable). */
  readonly journal: number;
  /** Of those, paid-unreadable answers. */
  readonly journalUnreadable: number;
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

const PHONES = [phone(1), phone(2), phone(3)];
const bulkArgs = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet', '--concurrency', '1'];

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
  const extraColumns = header.filter(
    (h) => !['phone', 'Email', 'status'].includes(h) && !h.endsWith(` (${opId})`) && !isDocumented(op, h),
  );
  return { statuses, header, rows, extraColumns };
}

async function measure(
  dir: string,
  service: { requests(): number; counted(): number },
  ran: Ran,
  startedAt: number,
  more: Record<string, number | string> = {},
  opId = 'phone-lookup',
): Promise<Measured> {
  const journal = journalOf(dir);
  return {
    requests: service.requests(),
    counted: service.counted(),
    journal: journal.paid,
    journalUnreadable: journal.unreadable,
    ...outputOf(dir, opId),
    code: ran.code,
    stdout: ran.stdout,
    stderr: ran.stderr,
    ms: Date.now() - startedAt,
    more,
    dir,
  };
}

/** A bulk run of Phone Lookup over three phones against the sandbox misbehaving in `modes`. */
function sandboxScenario(
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
function hostileScenario(
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
async function rerun(dir: string, server: SandboxServer, env: Record<string, string>, extra: string[] = []) {
  const before = { requests: server.sandbox.requests(), counted: server.sandbox.transactions() };
  const ran = await runCli([...bulkArgs, ...extra], { env, cwd: dir });
  return {
    code: ran.code,
    requests: server.sandbox.requests() - before.requests,
    counted: server.sandbox.transactions() - before.counted,
    stderr: ran.stderr,
  };
}

export const SCENARIOS: readonly Scenario[] = [
  sandboxScenario('redirect', '307/302 to another host: key and body re-sent there', ['redirect']),
  sandboxScenario('other-case', '200 with documented fields in another case', ['other-case']),
  sandboxScenario('extra-fields', 'unknown fields in a 200 (DID, telcoName...)', ['extra-fields']),
  sandboxScenario('wrong-types', '200 with a value of an unexpected type (Deliverable "Y", Name a string)', [
    'wrong-types',
  ]),
  sandboxScenario('html-200', '200 with an HTML page', ['html-200'], [], async (dir, server, env) => {
    const again = await rerun(dir, server, env);
    const dry = await runCli([...bulkArgs, '--dry-run', '--retry-unreadable', '--json'], { env, cwd: dir });
    const dryRun = JSON.parse(dry.stdout) as { unreadable: number; transactions: number };
    const retried = await rerun(dir, server, env, ['--retry-unreadable']);
    return {
      dryRunTransactions: dryRun.transactions,
      rerunRequests: again.requests,
      retryRequests: retried.requests,
      retryCounted: retried.counted,
      retryNote:
        /each costs one more transaction/.test(retried.stderr) &&
        /asked for again \(one transaction each\)/.test(retried.stderr)
          ? 'cost stated'
          : 'no cost stated',
    };
  }),
  sandboxScenario(
    'cut-body',
    '200 whose body breaks off mid-way',
    ['cut-body'],
    [],
    async (dir, server, env) => {
      const again = await rerun(dir, server, env);
      return { rerunRequests: again.requests };
    },
  ),
  sandboxScenario('huge-body', '200 too big to become a string (2 MB)', ['huge-body']),
  sandboxScenario('retry-after-huge', '429 with Retry-After: 99999', ['retry-after-huge']),
  hostileScenario(
    'retry-after-date',
    'Retry-After as an HTTP date',
    (req, res, bill) => {
      if (req.count === 1) {
        res.writeHead(429, { 'retry-after': new Date(Date.now() + 2000).toUTCString() });
        res.end('{}');
        return;
      }
      bill();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(phoneRecord(JSON.parse(req.body).Phone)));
    },
    [],
    [phone(1)],
  ),
  sandboxScenario(
    'trickle',
    'a body that trickles one byte every 2 s (--timeout 3)',
    ['trickle'],
    ['--timeout', '3'],
  ),
  {
    id: 'key-newline',
    issue: 'a key holding a newline ($(cat keyfile))',
    async run() {
      const server = await startServer();
      try {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        const env = sandboxEnv(server, `${DEMO_KEY}\nsecond-line-of-keyfile`);
        const startedAt = Date.now();
        const ran = await runCli(bulkArgs, { env, cwd: dir });
        const service = {
          requests: () => server.sandbox.requests(),
          counted: () => server.sandbox.transactions(),
        };
        return measure(dir, service, ran, startedAt);
      } finally {
        await server.close();
      }
    },
  },
  {
    id: 'journal-null-line',
    issue: 'a null line in the answer journal',
    async run() {
      const server = await startServer();
      try {
        const dir = tempDir();
        const env = sandboxEnv(server);
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        await runCli(bulkArgs, { env, cwd: dir });
        const cache = join(dir, CACHE_FILE);
        const [first] = readFileSync(cache, 'utf8').split('\n');
        writeFileSync(cache, `null\n${first}\n{"v":1,"ns":null}\n`);
        server.sandbox.reset();
        const startedAt = Date.now();
        const ran = await runCli(bulkArgs, { env, cwd: dir });
        const service = {
          requests: () => server.sandbox.requests(),
          counted: () => server.sandbox.transactions(),
        };
        return measure(dir, service, ran, startedAt);
      } finally {
        await server.close();
      }
    },
  },
  {
    id: 'cache-is-input',
    issue: '--cache pointed at the input CSV',
    async run() {
      const server = await startServer();
      try {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        const before = readFileSync(join(dir, 'in.csv'), 'utf8');
        const startedAt = Date.now();
        const ran = await runCli([...bulkArgs, '--cache', 'in.csv'], { env: sandboxEnv(server), cwd: dir });
        const service = {
          requests: () => server.sandbox.requests(),
          counted: () => server.sandbox.transactions(),
        };
        const unchanged = readFileSync(join(dir, 'in.csv'), 'utf8') === before ? 'unchanged' : 'CHANGED';
        return measure(dir, service, ran, startedAt, { input: unchanged });
      } finally {
        await server.close();
      }
    },
  },
  {
    id: 'huge-email-cell',
    issue: 'an e-mail cell of 120 KB (and invisible characters in a phone)',
    async run() {
      const server = await startServer();
      try {
        const dir = tempDir();
        const huge = `${'a'.repeat(120 * 1024)}@example.com`;
        writeCsv(join(dir, 'in.csv'), [
          ['Email'],
          [huge],
          ['jane\u200b.doe@example.com'],
          ['jane.doe@example.com'],
        ]);
        const startedAt = Date.now();
        const ran = await runCli(['email-verify', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
          env: sandboxEnv(server),
          cwd: dir,
        });
        const service = {
          requests: () => server.sandbox.requests(),
          counted: () => server.sandbox.transactions(),
        };
        return measure(dir, service, ran, startedAt, {}, 'email-verify');
      } finally {
        await server.close();
      }
    },
  },
];
