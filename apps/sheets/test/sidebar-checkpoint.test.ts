// Where a sidebar run stands (src/server/run/checkpoint.ts): one checkpoint per spreadsheet in the
// runner's user properties, which Apps Script keeps per user and script, not per document. So one
// user's runs in two spreadsheets each resume their own; and a checkpoint the add-on cannot read
// (saved by another version of it, or damaged) offers no run to resume and buys nothing twice.
import { describe, expect, test } from 'vitest';
import { anotherSpreadsheet, newRuntime, OWNER_KEY, phone, referenceRecord } from './helpers.js';
import type { Runtime, User } from './runtime/index.js';
import { type Plan, type Progress, request, type State, setUp } from './sidebar-run-helpers.js';

/** Rows of leads whose phones start at `from`. */
function leads(count: number, from: number): string[][] {
  return Array.from({ length: count }, (_, i) => [`Lead ${from + i}`, phone(from + i)]);
}

function runToEnd(rt: Runtime, user: User, progress: Progress): Progress {
  let at = progress;
  while (!at.finished) at = rt.scriptRun(user, 'runChunk', at.runId) as Progress;
  return at;
}

/** The checkpoint as saved, where INTERNALS.md ("Checkpoint and resume") says it is. */
function savedCheckpoint(rt: Runtime, user: User): string | undefined {
  return rt.userProperties(user).values.get(`enrich.run.${rt.spreadsheet.id}`);
}

function holdsRun(text: string, runId: string): boolean {
  try {
    return JSON.parse(text)?.id === runId;
  } catch {
    return false;
  }
}

/** Phone Lookup's first name for each row, as the sandbox answers it. */
function firstNames(rows: readonly string[][]): string[] {
  return rows.map((row) => referenceRecord('/v3/lookup/phone', { Phone: row[1] as string }).Name.FName);
}

describe("one user's runs in two spreadsheets", () => {
  test('each spreadsheet resumes its own run, and each row is bought once, in its own spreadsheet', () => {
    const first = newRuntime();
    const second = anotherSpreadsheet(first, '1SecondSpreadsheetId');
    const user = first.owner;
    const firstRows = leads(600, 0);
    const secondRows = leads(400, 5000);
    setUp(first, firstRows);
    setUp(second, secondRows);

    // A chunk in each (250 rows), then the sidebars are closed.
    const started = [first, second].map((rt) => {
      const begun = rt.scriptRun(user, 'startRun', request(rt, user), false) as Progress;
      const progress = rt.scriptRun(user, 'runChunk', begun.runId) as Progress;
      expect(progress.counts.done).toBe(250);
      return progress;
    });
    const [firstRun, secondRun] = started as [Progress, Progress];
    expect(firstRun.runId).not.toBe(secondRun.runId);
    // Discarding the first spreadsheet's run from the second leaves the second's alone.
    second.scriptRun(user, 'discardRun', firstRun.runId);

    // Reopened, each sidebar offers its own run, where it stood.
    const offered = [first, second].map((rt) => (rt.scriptRun(user, 'getSidebarState') as State).run);
    expect(offered[0]).toMatchObject({ runId: firstRun.runId, total: 600, counts: { done: 250 } });
    expect(offered[1]).toMatchObject({ runId: secondRun.runId, total: 400, counts: { done: 250 } });

    // One checkpoint each, under the name INTERNALS.md gives: the next version of the add-on finds
    // a run this one left unfinished by that name.
    expect(JSON.parse(savedCheckpoint(first, user) ?? 'null')).toMatchObject({
      id: firstRun.runId,
      next: 250,
    });
    expect(JSON.parse(savedCheckpoint(second, user) ?? 'null')).toMatchObject({
      id: secondRun.runId,
      next: 250,
    });

    const ends = [
      runToEnd(first, user, offered[0] as Progress),
      runToEnd(second, user, offered[1] as Progress),
    ];
    expect(ends.map((end) => end.counts)).toEqual([
      expect.objectContaining({ done: 600, spent: 600, cached: 0 }),
      expect.objectContaining({ done: 400, spent: 400, cached: 0 }),
    ]);
    expect(first.sandbox.transactions(OWNER_KEY)).toBe(600);
    expect(second.sandbox.transactions(OWNER_KEY)).toBe(400);
    expect(first.values('Sheet1', 'D2:D601').flat()).toEqual(firstNames(firstRows));
    expect(second.values('Sheet1', 'D2:D401').flat()).toEqual(firstNames(secondRows));
    expect(savedCheckpoint(first, user)).toBeUndefined();
    expect(savedCheckpoint(second, user)).toBeUndefined();
  });
});

describe('a checkpoint the add-on cannot read', () => {
  const unreadable = {
    'saved by another version of the add-on': (text: string) => JSON.stringify({ ...JSON.parse(text), v: 2 }),
    'damaged (cut short: not JSON)': (text: string) => text.slice(0, text.length / 2),
  };

  test.each(Object.entries(unreadable))('%s: no run is offered, and nothing is bought twice', (_, spoil) => {
    const rt = newRuntime();
    const user = rt.owner;
    setUp(rt, leads(600, 0));
    const req = request(rt, user);
    const begun = rt.scriptRun(user, 'startRun', req, false) as Progress;
    const stopped = rt.scriptRun(user, 'runChunk', begun.runId) as Progress;
    expect(stopped.counts.done).toBe(250);
    expect(rt.sandbox.transactions()).toBe(250);
    // The checkpoint: the user property that holds the run, by its id.
    const props = rt.userProperties(user).values;
    const [key, text] = [...props].find(([, value]) => holdsRun(value, stopped.runId)) ?? [];
    props.set(key as string, spoil(text as string));

    // Reopened, the sidebar opens and offers no run to resume.
    expect((rt.scriptRun(user, 'getSidebarState') as State).run).toBeNull();
    // A sidebar still showing the run is told plainly on its next step, and buys nothing.
    expect(() => rt.scriptRun(user, 'runChunk', stopped.runId)).toThrow(
      'This run is no longer current (it finished, or another one replaced it).',
    );
    expect(rt.sandbox.transactions()).toBe(250);

    // Started again, the rows already bought come from the cache: 600 transactions in all.
    const plan = rt.scriptRun(user, 'planRun', req) as Plan;
    expect(plan).toMatchObject({ rows: 600, cached: 250, transactions: 350 });
    const end = runToEnd(rt, user, rt.scriptRun(user, 'startRun', req, true) as Progress);
    expect(end.counts).toMatchObject({ done: 600, spent: 350, cached: 250 });
    expect(rt.sandbox.transactions()).toBe(600);
    expect(savedCheckpoint(rt, user)).toBeUndefined();
  });
});
