// Every misbehaviour of issue 8 that the CLI meets, as a scenario run against a real HTTP service
// (the sandbox's misbehave modes, or a small node:http server where the sandbox cannot say it):
// what the service received and billed, what the journal kept, what the output holds, and the
// exit code. test/hostile.test.ts asserts each; scripts/hostile-report.ts prints them all.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_KEY } from '@enrich/sandbox';
import { CACHE_FILE } from '../src/main.js';
import { phone, runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';
import {
  bulkArgs,
  hostileScenario,
  measure,
  PHONES,
  rerun,
  type Scenario,
  sandboxCounts,
  sandboxScenario,
  withSandbox,
} from './hostile-measure.js';
import { phoneRecord } from './hostile-servers.js';

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
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        const env = sandboxEnv(server, `${DEMO_KEY}\nsecond-line-of-keyfile`);
        const startedAt = Date.now();
        const ran = await runCli(bulkArgs, { env, cwd: dir });
        return measure(dir, sandboxCounts(server), ran, startedAt);
      }),
  },
  {
    id: 'journal-null-line',
    issue: 'a null line in the answer journal',
    run: () =>
      withSandbox(async (server) => {
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
        return measure(dir, sandboxCounts(server), ran, startedAt);
      }),
  },
  {
    id: 'cache-is-input',
    issue: '--cache pointed at the input CSV',
    run: () =>
      withSandbox(async (server) => {
        const dir = tempDir();
        writeCsv(join(dir, 'in.csv'), [['phone'], ...PHONES.map((p) => [p])]);
        const before = readFileSync(join(dir, 'in.csv'), 'utf8');
        const startedAt = Date.now();
        const ran = await runCli([...bulkArgs, '--cache', 'in.csv'], { env: sandboxEnv(server), cwd: dir });
        const unchanged = readFileSync(join(dir, 'in.csv'), 'utf8') === before ? 'unchanged' : 'CHANGED';
        return measure(dir, sandboxCounts(server), ran, startedAt, { input: unchanged });
      }),
  },
  {
    id: 'huge-email-cell',
    issue: 'an e-mail cell of 120 KB (and invisible characters in a phone)',
    run: () =>
      withSandbox(async (server) => {
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
        return measure(dir, sandboxCounts(server), ran, startedAt, {}, 'email-verify');
      }),
  },
];
