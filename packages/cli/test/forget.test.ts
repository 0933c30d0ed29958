// `enrich forget`, `enrich held`, `enrich cache` (issue 38), in-process against the sandbox over real
// HTTP on 127.0.0.1: runs and calls leave the person in several answer caches (beside an output, a
// --cache of one's own, the cache folder's like the MCP server's); held shows them and writes
// nothing; forget removes them (a byte scan of every store in every spelling finds nothing), adds
// the person to the suppression list (hashes only), records the request without personal data; a
// rerun of the original file sends nothing for the person; the spend ledger never held them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxServer } from '@enrich/sandbox';
import { startSandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteScan } from '../../bulk/test/byte-scan.js';
import { readRecords, runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';

const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };
let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ host: '127.0.0.1', port: 0 });
});
afterAll(() => server.close());

/** A user of their own: data folder, cache folder, ledger, and a folder of work with a leads file. */
function user() {
  const home = tempDir();
  const work = tempDir();
  const env = {
    ...sandboxEnv(server),
    ENRICH_DATA_DIR: join(home, 'data'),
    ENRICH_CACHE_DIR: join(home, 'cache'),
    ENRICH_LEDGER: join(home, 'data', 'ledger.jsonl'),
  };
  const leads = writeCsv(join(work, 'leads.csv'), [
    ['Name', 'Phone'],
    ['Jane', '(555) 010-2030'],
    ...Array.from({ length: 12 }, (_, i) => [`Lead ${i}`, `555${String(2_000_000 + i)}`]),
  ]);
  const run = (argv: readonly string[]) => runCli(argv, { env, cwd: work });
  return { home, work, env, leads, run };
}

/** Every store a user's runs and calls left: the run's cache, a --cache of one's own, the cache folder. */
async function leaveThePersonEverywhere(u: ReturnType<typeof user>) {
  expect((await u.run(['phone-lookup', '--in', u.leads, '--quiet'])).code).toBe(0);
  const own = join(u.work, 'mine.jsonl');
  expect((await u.run(['email-verify', '--Email', 'Jane.Doe@Example.com', '--cache', own])).code).toBe(0);
  // As the MCP server keeps it: answers.jsonl in the cache folder.
  const mcp = join(u.env.ENRICH_CACHE_DIR, 'answers.jsonl');
  expect((await u.run(['phone-lookup', '--Phone', '555.010.2030', '--cache', mcp])).code).toBe(0);
  return { runCache: join(u.work, '.enrich-cache.jsonl'), own, mcp };
}

/** The stores: every file but the CSV files (the user's own input, output and lists of people). */
function stores(u: ReturnType<typeof user>): string[] {
  return [
    u.home,
    ...readdirSync(u.work)
      .filter((n) => !n.endsWith('.csv'))
      .map((n) => join(u.work, n)),
  ];
}

describe('enrich held, then enrich forget', () => {
  it('held shows every store, forget empties them all, the rerun sends nothing for the person', async () => {
    const u = user();
    const caches = await leaveThePersonEverywhere(u);
    expect(byteScan(stores(u), PERSON).length).toBeGreaterThan(0);

    // held: every store, when bought, what; and nothing written.
    const sizes = () => stores(u).map((p) => `${p}:${statSync(p).isFile() ? readFileSync(p).length : '-'}`);
    const before = sizes();
    const held = await u.run(['held', '--phone', '+1 555 010 2030', '--email', 'JANE.DOE@example.com']);
    expect(held.code).toBe(0);
    for (const path of Object.values(caches)) expect(held.stdout).toContain(`journal ${path}`);
    expect(held.stdout).toMatch(
      /Phone Lookup, bought \d{4}-\d{2}-\d{2}T[\d:.]+Z from http:\/\/127\.0\.0\.1:\d+; asked: Phone 5550102030/,
    );
    expect(held.stdout).toContain('Email Verify, bought');
    expect(sizes()).toEqual(before);
    const heldJson = JSON.parse((await u.run(['held', '--Phone', '5550102030', '--json'])).stdout);
    expect(heldJson.answers).toHaveLength(2);

    // forget: per store, then nothing of the person anywhere.
    const forgot = await u.run(['forget', '--Phone', '(555) 010 2030', '--Email', 'jane.doe@EXAMPLE.COM']);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toMatch(/Forgotten on \d{4}-\d{2}-\d{2} \(UTC\): 1 phone, 1 e-mail\./);
    expect(forgot.stdout).toMatch(new RegExp(`journal ${caches.runCache} +1 answer removed`));
    expect(forgot.stdout).toMatch(new RegExp(`journal ${caches.own} +1 answer removed`));
    expect(forgot.stdout).toMatch(new RegExp(`journal ${caches.mcp} +1 answer removed`));
    expect(byteScan(stores(u), PERSON)).toEqual([]);
    const list = readFileSync(join(u.env.ENRICH_DATA_DIR, 'suppression.json'), 'utf8');
    expect(list).not.toMatch(/5550102030|010-2030|jane|example/i); // hex may hold a bare 555 by chance
    // The other leads' answers are kept: 12 lines.
    expect(readFileSync(caches.runCache, 'utf8').trim().split('\n')).toHaveLength(12);

    // The rerun of the original file: nothing sent for the person; the row says why.
    server.sandbox.reset();
    const rerun = await u.run(['phone-lookup', '--in', u.leads, '--quiet', '--json']);
    expect(rerun.code).toBe(0);
    expect(server.sandbox.requests()).toBe(0);
    const rows = readRecords(join(u.work, 'leads.phone-lookup.csv'));
    expect(rows[0]?.status).toMatch(
      /^invalid: forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent$/,
    );
    expect(byteScan(stores(u), PERSON)).toEqual([]);
    // A dry run plans nothing for them either.
    const dry = JSON.parse((await u.run(['phone-lookup', '--in', u.leads, '--dry-run', '--json'])).stdout);
    expect(dry.transactions).toBe(0);

    // held now: nothing, and on the list.
    const after = await u.run(['held', '--Phone', '5550102030']);
    expect(after.stdout).toContain('no kept answer in any store of yours');
    expect(after.stdout).toMatch(/On your suppression list since \d{4}-\d{2}-\d{2} \(phone\)/);
  });

  it('the spend ledger holds no personal data: only time, operation, origin, client, run, file, count', async () => {
    const u = user();
    await leaveThePersonEverywhere(u);
    const ledger = readFileSync(u.env.ENRICH_LEDGER, 'utf8');
    expect(byteScan([u.env.ENRICH_LEDGER], PERSON)).toEqual([]);
    expect(ledger).not.toMatch(/jane|doe|555/i);
    for (const line of ledger.trim().split('\n')) {
      expect(Object.keys(JSON.parse(line)).sort()).toEqual(
        expect.arrayContaining(['at', 'client', 'count', 'operation', 'origin', 'run', 'v']),
      );
      expect(
        Object.keys(JSON.parse(line)).every((k) =>
          ['v', 'at', 'operation', 'origin', 'client', 'run', 'file', 'count'].includes(k),
        ),
      ).toBe(true);
    }
  });
});

describe('enrich forget: people, undo, the record', () => {
  it('--in people.csv forgets each row; a row that names no one stops it all before anything is done', async () => {
    const u = user();
    const caches = await leaveThePersonEverywhere(u);
    const bad = writeCsv(join(u.work, 'bad.csv'), [
      ['Id', 'Phone', 'E-mail'],
      ['1', '5550102030', ''],
      ['2', '555010203', ''],
    ]);
    const refused = await u.run(['forget', '--in', bad]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('row 3: Phone must be 10 digits');
    expect(refused.stderr).toContain('Nothing was done');
    expect(readFileSync(caches.runCache, 'utf8')).toContain(PERSON.phone);

    const people = writeCsv(join(u.work, 'people.csv'), [
      ['Id', 'Phone Number', 'E-mail'],
      ['1', '555-010-2030', ''],
      ['2', '', 'Jane.Doe@example.com'],
      ['', '', ''],
    ]);
    const done = await u.run(['forget', '--in', people]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('1 phone, 1 e-mail');
    expect(byteScan(stores(u), PERSON)).toEqual([]);
  });

  it('--undo only the same day; --log records every request without personal data', async () => {
    const u = user();
    expect((await u.run(['forget', '--Phone', '5550102030'])).code).toBe(0);
    const undo = await u.run(['forget', '--undo', '--Phone', '555 010 2030']);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain('Undone: 1 suppression entry taken out');
    // Forgotten "yesterday": the list says so; undo refuses.
    expect((await u.run(['forget', '--Email', 'jane.doe@example.com'])).code).toBe(0);
    const path = join(u.env.ENRICH_DATA_DIR, 'suppression.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"on":"[\d-]+"/, '"on":"2020-01-01"'));
    const late = await u.run(['forget', '--undo', '--Email', 'Jane.Doe@example.com']);
    expect(late.code).toBe(2);
    expect(late.stdout).toContain('An e-mail forgotten on 2020-01-01 stays forgotten');
    const log = await u.run(['forget', '--log']);
    expect(log.stdout.match(/ (forget|undo) /g)).toEqual([' forget ', ' undo ', ' forget ', ' undo ']);
    expect(log.stdout).toContain('1 phone; suppression +1');
    const text = readFileSync(join(u.env.ENRICH_DATA_DIR, 'forget-log.jsonl'), 'utf8');
    expect(text).not.toMatch(/5550102030|jane/i);
    expect(JSON.parse((await u.run(['forget', '--log', '--json'])).stdout).entries).toHaveLength(4);
  });

  it('a one-off call of a forgotten person is refused, nothing sent', async () => {
    const u = user();
    expect((await u.run(['forget', '--Phone', '5550102030'])).code).toBe(0);
    server.sandbox.reset();
    const call = await u.run(['tcpa-verify', '--phone', '(555) 010-2030', '--last-name', 'Doe']);
    expect(call.code).toBe(3);
    expect(call.stderr).toMatch(/forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('a person not given, or given badly, is refused before anything is done', async () => {
    const u = user();
    const none = await u.run(['forget']);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('give the person: Phone, Email, or a name');
    const half = await u.run(['forget', '--FName', 'Jane', '--LName', 'Doe']);
    expect(half.stderr).toContain('needs the name (FullName, or FName and LName) and Address1');
  });
});

describe('enrich cache', () => {
  it('retention is 30 days unless set (1 to 365); prune removes older answers from every store', async () => {
    const u = user();
    const caches = await leaveThePersonEverywhere(u);
    expect((await u.run(['cache', 'retention'])).stdout).toContain('kept 30 days');
    expect((await u.run(['cache', 'retention', '400'])).code).toBe(2);
    expect((await u.run(['cache', 'retention', '7d'])).stdout).toContain('now kept 7 days');
    const old = Date.now() - 8 * 86_400_000;
    const lines = readFileSync(caches.runCache, 'utf8').trim().split('\n');
    writeFileSync(
      caches.runCache,
      `${lines.map((l, i) => (i < 4 ? l.replace(/"at":\d+/, `"at":${old}`) : l)).join('\n')}\n`,
    );
    const pruned = await u.run(['cache', 'prune']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(new RegExp(`journal ${caches.runCache} +4 removed`));
    expect(pruned.stdout).toMatch(new RegExp(`journal ${caches.mcp} +0 removed`));
    expect(readFileSync(caches.runCache, 'utf8').trim().split('\n')).toHaveLength(lines.length - 4);
  });
});
