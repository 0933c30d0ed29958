// Forgetting a person in the local stores (src/forget/): real journals written by real runs against
// the sandbox on 127.0.0.1, a cache folder like the MCP server's, answers set aside beside a journal;
// then forget, and a byte scan of every folder for the person in every spelling finds nothing, while
// every other answer is kept. Also: the suppression list holds no clear text, undo only the same
// day, held reads without writing, the record of requests, retention and compaction.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  getOperation,
  type Identity,
  identitiesOf,
  type Outcome,
  outputColumns,
  requestKey,
} from '@enrich/core';
import { describe, expect, it } from 'vitest';
import {
  AnswerStore,
  cacheNamespace,
  DEFAULT_MAX_AGE_MS,
  forgetEverywhere,
  heldEverywhere,
  keepCache,
  loadSuppression,
  type PrivacyTargets,
  parseLine,
  planBulk,
  pruneEverywhere,
  readForgetLog,
  registeredCaches,
  retentionDays,
  retentionMs,
  runBulk,
  setRetentionDays,
  undoForget,
} from '../src/index.js';
import { byteScan } from './byte-scan.js';
import { tempDir, useSandboxServer, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandboxServer();
const PERSON = { phone: '5550102030', email: 'jane.doe@example.com' };

function ids(raw: Record<string, string>): readonly Identity[] {
  const read = identitiesOf(raw);
  if (!read.ok) throw new Error(read.message);
  return read.identities;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

function keysOf(path: string): string[] {
  return lines(path).map((l) => parseLine(l)?.key ?? '(not an answer)');
}

/** Two journals written by runs (phones, e-mails), registered as a client registers them. */
async function twoRuns(dataDir: string) {
  const work = tempDir();
  const phones = [['Phone'], ['(555) 010-2030'], ...Array.from({ length: 20 }, (_, i) => [phone(i)])];
  const inPath = writeCsv(join(work, 'leads.csv'), phones);
  const options = sandboxRun(at.server, { inPath, outPath: join(work, 'out.csv') });
  await keepCache(dataDir, options.cachePath);
  await runBulk(options);

  const work2 = tempDir();
  const emailOp = getOperation('email-verify');
  const emails = [
    ['Email'],
    ['Jane.Doe@Example.com'],
    ...Array.from({ length: 10 }, (_, i) => [`lead${i}@example.com`]),
  ];
  const emailsIn = writeCsv(join(work2, 'emails.csv'), emails);
  const emailRun = sandboxRun(at.server, { inPath: emailsIn, outPath: join(work2, 'out.csv') });
  const emailOptions = {
    ...emailRun,
    op: emailOp,
    columns: outputColumns(emailOp),
    namespace: cacheNamespace(emailOp, { baseUrl: at.server.url, baseUrlV3: at.server.url, sandbox: true }),
  };
  await keepCache(dataDir, emailOptions.cachePath);
  await runBulk(emailOptions);
  return { phones: options.cachePath, emails: emailOptions.cachePath, folders: [work, work2], options };
}

function targets(): PrivacyTargets & { rescueDir: string } {
  return { dataDir: tempDir(), cacheDir: tempDir(), rescueDir: tempDir() };
}

/** An MCP-like cache in the cache folder holding the person's phone lookup, and one other answer. */
async function mcpCache(cacheDir: string, outcome: Outcome) {
  const op = getOperation('phone-lookup');
  const path = join(cacheDir, 'answers.jsonl');
  const store = AnswerStore.open({ path, namespace: 'sandbox', maxAgeMs: Number.POSITIVE_INFINITY });
  await store.put(requestKey(op, { Phone: PERSON.phone }), outcome);
  await store.put(requestKey(op, { Phone: '5559990000' }), { kind: 'no-match', status: 204 });
  store.close();
  return path;
}

describe('forget: every local store', () => {
  it('removes every answer holding the person, in every spelling; a byte scan finds 0; the rest is kept', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    const personLine = lines(runs.phones).find((l) => l.includes(PERSON.phone)) as string;
    const mcp = await mcpCache(t.cacheDir, parseLine(personLine)?.outcome as Outcome);
    // An answer set aside for the first journal (an MCP call while a run held it).
    AnswerStore.setAside({ path: runs.phones, namespace: 'sandbox', rescueDir: t.rescueDir }, [
      {
        key: requestKey(getOperation('phone-lookup'), { Phone: PERSON.phone }),
        outcome: { kind: 'no-match', status: 204 },
      },
    ]);
    // The stores: every file but the user's own input and output (not kept answers: the user's files).
    const folders = [runs.phones, runs.emails, t.cacheDir, t.dataDir, t.rescueDir];
    expect(byteScan(folders, PERSON).length).toBeGreaterThan(3);
    const before = {
      phones: keysOf(runs.phones),
      emails: keysOf(runs.emails),
      mcp: keysOf(mcp),
    };

    const report = await forgetEverywhere(
      t,
      ids({ Phone: '+1 (555) 010-2030', Email: 'JANE.DOE@EXAMPLE.COM' }),
    );

    expect(byteScan(folders, PERSON)).toEqual([]);
    expect(report.complete).toBe(true);
    expect(report.suppressed.local).toBe(2);
    const removed = Object.fromEntries(
      report.stores.map((s) => [s.store.replace(/^journal /, ''), s.removed]),
    );
    expect(removed).toEqual({ [runs.phones]: 2, [runs.emails]: 1, [mcp]: 1 });
    // Every other answer is kept, in its order.
    expect(keysOf(runs.phones)).toEqual(before.phones.filter((k) => !k.includes(PERSON.phone)));
    expect(keysOf(runs.emails)).toEqual(before.emails.filter((k) => !k.toLowerCase().includes(PERSON.email)));
    expect(keysOf(mcp)).toEqual(before.mcp.filter((k) => !k.includes(PERSON.phone)));
    expect(keysOf(runs.phones)).toHaveLength(20);

    // The suppression list: hashes only; it refuses the person in any spelling, from the day it was made.
    const list = readFileSync(join(t.dataDir, 'suppression.json'), 'utf8');
    expect(list).not.toMatch(/5550102030|010-2030|jane|doe|example/i); // hex may hold a bare 555 by chance
    const check = loadSuppression(t.dataDir);
    expect(check.refusal(getOperation('tcpa-verify'), { phone: PERSON.phone, last_name: 'X' })).toMatch(
      /^forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent$/,
    );
    expect(check.refusal(getOperation('email-verify'), { Email: 'Jane.Doe@example.com' })).toBeDefined();
    expect(check.refusal(getOperation('phone-lookup'), { Phone: phone(1) })).toBeUndefined();

    // The record of the request: kinds and counts, no value.
    const log = readForgetLog(t.dataDir);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'forget', kinds: { phone: 1, email: 1 }, suppression: 2 });
    expect(readFileSync(join(t.dataDir, 'forget-log.jsonl'), 'utf8')).not.toMatch(/5550102030|jane/i);

    // Again: nothing more to remove, nothing added, and a second record.
    const again = await forgetEverywhere(t, ids({ Phone: '5550102030' }));
    expect(again.stores.every((s) => s.removed === 0)).toBe(true);
    expect(again.suppressed.local).toBe(0);
    expect(readForgetLog(t.dataDir)).toHaveLength(2);
  });

  it('a journal with nothing to remove is not written; a journal moved away is said as missing', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    const mtime = statSync(runs.emails).mtimeMs;
    const bytes = readFileSync(runs.emails);
    const report = await forgetEverywhere(t, ids({ Phone: '5550102030' }));
    expect(readFileSync(runs.emails)).toEqual(bytes);
    expect(statSync(runs.emails).mtimeMs).toBe(mtime);
    expect(report.stores.find((s) => s.store.endsWith(runs.emails))?.removed).toBe(0);
    writeFileSync(
      join(t.dataDir, 'caches.jsonl'),
      `${JSON.stringify({ path: '/nowhere/.enrich-cache.jsonl', at: 1 })}\n`,
      { flag: 'a' },
    );
    const second = await forgetEverywhere(t, ids({ Phone: '5550102030' }));
    expect(second.stores.find((s) => s.store.includes('/nowhere/'))).toMatchObject({
      removed: 0,
      missing: true,
    });
  });

  it('a journal held by a run is waited for, then said as not done (failed), and the suppression is added anyway', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    const held = AnswerStore.open({
      path: runs.phones,
      namespace: 'sandbox',
      maxAgeMs: Number.POSITIVE_INFINITY,
    });
    try {
      const report = await forgetEverywhere({ ...t, lockWaitMs: 200 }, ids({ Phone: '5550102030' }));
      expect(report.complete).toBe(false);
      expect(report.stores.find((s) => s.store.endsWith(runs.phones))?.failed).toContain(
        'Another enrich run',
      );
      expect(loadSuppression(t.dataDir).size).toBe(1);
      expect(readForgetLog(t.dataDir)[0]?.stores.some((s) => s.failed)).toBe(true);
    } finally {
      held.close();
    }
  });
});

describe('a rerun of the original file', () => {
  it('sends nothing for the person, keeps nothing, says why on their rows; a dry run plans none', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    await forgetEverywhere(t, ids({ Phone: '5550102030' }));
    // A new answer would be bought if the journal had lost the others: take one more away by hand.
    at.server.sandbox.reset();
    const refuse = loadSuppression(t.dataDir).refusal.bind(loadSuppression(t.dataDir));
    const plan = await planBulk({ ...runs.options, refuse });
    expect(plan.transactions).toBe(0);
    const summary = await runBulk({ ...runs.options, refuse });
    expect(at.server.sandbox.requests()).toBe(0);
    expect(summary.transactions).toBe(0);
    const rows = readFileSync(runs.options.outPath, 'utf8').split('\n');
    const row = rows.find((r) => r.startsWith('(555) 010-2030'));
    expect(row).toMatch(/invalid: forgotten at the person's request on \d{4}-\d{2}-\d{2}; nothing was sent/);
    expect(byteScan([runs.phones, t.dataDir], PERSON)).toEqual([]);
  });
});

describe('undo, held', () => {
  it('undo takes the suppression out the same day only', async () => {
    const t = targets();
    const day1 = Date.UTC(2026, 10, 25, 12);
    await forgetEverywhere(
      { ...t, now: () => day1 },
      ids({ Phone: '5550102030', Email: 'jane.doe@example.com' }),
    );
    const next = await undoForget({ ...t, now: () => day1 + 86_400_000 }, ids({ Phone: '5550102030' }));
    expect(next).toMatchObject({ undone: 0, tooOld: [{ kind: 'phone', on: '2026-11-25' }] });
    expect(loadSuppression(t.dataDir).size).toBe(2);
    const same = await undoForget({ ...t, now: () => day1 + 3_600_000 }, ids({ Phone: '555-010-2030' }));
    expect(same).toMatchObject({ undone: 1, tooOld: [] });
    expect(loadSuppression(t.dataDir).size).toBe(1);
    expect(readForgetLog(t.dataDir).map((e) => e.action)).toEqual(['forget', 'undo', 'undo']);
  });

  it('held lists what each store keeps and when it was bought, and writes nothing', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    const snapshot = () =>
      [...runs.folders, t.dataDir].flatMap((dir) =>
        readdirSync(dir).map((name) => `${name}:${readFileSync(join(dir, name)).length}`),
      );
    const before = snapshot();
    const { held } = await heldEverywhere(t, ids({ Phone: '555 010 2030', Email: 'jane.doe@EXAMPLE.com' }));
    expect(snapshot()).toEqual(before);
    expect(held.map((h) => [h.store, h.key]).sort()).toEqual(
      [
        [`journal ${runs.phones}`, 'phone-lookup:[["Phone","5550102030"]]'],
        [`journal ${runs.emails}`, 'email-verify:[["Email","Jane.Doe@example.com"]]'],
      ].sort(),
    );
    for (const h of held) expect(Date.now() - h.at).toBeLessThan(60_000);
  });
});

describe('retention', () => {
  it('is 30 days unless set, 1 to 365', () => {
    const dir = tempDir();
    expect(retentionDays(dir)).toBe(30);
    setRetentionDays(dir, 365);
    expect(retentionDays(dir)).toBe(365);
    expect(() => setRetentionDays(dir, 0)).toThrow(/from 1 to 365; got 0/);
    expect(() => setRetentionDays(dir, 366)).toThrow(/got 366/);
    expect(() => setRetentionDays(dir, 1.5)).toThrow(/whole number/);
  });

  it("is every client's default maximum age when none was set: 30 days", () => {
    expect(DEFAULT_MAX_AGE_MS).toBe(retentionMs(tempDir()));
    expect(DEFAULT_MAX_AGE_MS).toBe(30 * 86_400_000);
  });

  it('prune removes older answers from every store; a run compacts its journal once a day', async () => {
    const t = targets();
    const runs = await twoRuns(t.dataDir);
    // Make the first five answers of the phone journal 40 days old.
    const old = Date.now() - 40 * 86_400_000;
    const text = lines(runs.phones).map((l, i) => (i < 5 ? l.replace(/"at":\d+/, `"at":${old}`) : l));
    writeFileSync(runs.phones, `${text.join('\n')}\n`);
    const pruned = await pruneEverywhere(t);
    expect(pruned.days).toBe(30);
    expect(pruned.stores.find((s) => s.store.endsWith(runs.phones))?.removed).toBe(5);
    expect(lines(runs.phones)).toEqual(text.slice(5));

    // The next run that compacts: keepCache prunes a journal not compacted today, then not again today.
    writeFileSync(
      runs.emails,
      `${lines(runs.emails)
        .map((l, i) => (i < 2 ? l.replace(/"at":\d+/, `"at":${old}`) : l))
        .join('\n')}\n`,
    );
    const first = await keepCache(t.dataDir, runs.emails);
    expect(first).toMatchObject({ pruned: 2, retentionMs: 30 * 86_400_000 });
    writeFileSync(
      runs.emails,
      `${lines(runs.emails)
        .map((l, i) => (i < 1 ? l.replace(/"at":\d+/, `"at":${old}`) : l))
        .join('\n')}\n`,
    );
    expect((await keepCache(t.dataDir, runs.emails)).pruned).toBe(0);
    expect((await keepCache(t.dataDir, runs.emails, Date.now() + 86_400_000)).pruned).toBe(1);
    expect(
      registeredCaches(t.dataDir)
        .map((c) => c.path)
        .sort(),
    ).toEqual([runs.emails, runs.phones].sort());
  });
});
