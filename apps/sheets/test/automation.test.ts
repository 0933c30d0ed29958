// Issue 39, item 2: "Keep this range enriched". An hourly installable trigger, created by the user
// who turned it on and running as them, enriches only the rows whose target cells are empty, within
// that user's allowance. A range kept enriched for 30 days with 50 new rows on weekdays spends
// exactly the new distinct inputs, and nothing on the days without new rows.
import { expect, test } from 'vitest';
import { COLLABORATOR_KEY, newRuntime, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The sidebar's run over Sheet1!A1:B(last): Phone Lookup of column B, results from column D. */
function request(rt: Runtime, lastRow: number) {
  return {
    selection: { sheetId: rt.sheet().id, row: 1, column: 1, numRows: lastRow, numColumns: 2 },
    operation: 'phone-lookup',
    mapping: { Phone: 1 },
    columns: ['FName', 'City'],
    targetColumn: 4,
  };
}

interface State {
  on: boolean;
  what: string;
  history: string[];
  lastRun: string;
}

test('30 days, 50 new rows on weekdays: the hourly trigger spends exactly the new distinct inputs, 0 on other days', {
  timeout: 300_000,
}, () => {
  const rt = newRuntime({ allowance: 'default', latencyMs: 150 });
  rt.sheet().maxRows = 2_000;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  const seen = new Set<string>();
  let last = 1;
  let serial = 0;
  /** Appends rows as a person pastes them; returns how many of their phones were never seen before. */
  const paste = (rows: (string | number)[][]) => {
    rt.type('Sheet1', `A${last + 1}:B${last + rows.length}`, rows);
    last += rows.length;
    let fresh = 0;
    for (const [, p] of rows) {
      const text = String(p);
      if (/^\d{10}$/.test(text) && !seen.has(text)) {
        seen.add(text);
        fresh++;
      }
    }
    return fresh;
  };
  const day = (d: number) => {
    // 41 new phones, 4 repeated from earlier days, 3 repeated within the day, one typed as a number,
    // one invalid, one empty row.
    const news = Array.from({ length: 41 }, () => phone(1_000 + serial++));
    // (Day 0 has no earlier days: its own first phones again.)
    const earlier = seen.size >= 4 ? [...seen].slice(d, d + 4) : news.slice(10, 14);
    const rows: (string | number)[][] = [
      ...news.map((p, i) => [`Lead ${d}.${i}`, i === 7 ? Number(p) : p]),
      ...earlier.map((p, i) => [`Again ${d}.${i}`, p]),
      ...news.slice(0, 3).map((p, i) => [`Twice ${d}.${i}`, p]),
      [`Typo ${d}`, '12345'],
      ['', ''],
    ];
    expect(rows).toHaveLength(50);
    return paste(rows);
  };

  const firstFresh = day(0);
  const turnedOn = rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, last)) as State;
  expect(turnedOn.on).toBe(true);
  expect(turnedOn.what).toBe('Phone Lookup on the rows below A1:B1, results from column D');
  expect(rt.triggers.live()).toMatchObject([
    { user: rt.owner.email, handler: 'runAutomation', type: 'CLOCK' },
  ]);

  const spentByDay: number[] = [];
  let expected = firstFresh;
  let handRow = 0;
  for (let d = 0; d < 30; d++) {
    const before = rt.sandbox.transactions();
    const runs = rt.passTime(DAY);
    const spent = rt.sandbox.transactions() - before;
    spentByDay.push(spent);
    expect(spent).toBe(expected);
    expect(runs).toHaveLength(24);
    expect(runs.every((r) => r.ran && r.error === null)).toBe(true);
    // Far inside the day's 90 minutes of trigger time.
    expect(runs.reduce((sum, r) => sum + r.ms, 0)).toBeLessThan(10 * 60_000);
    rt.documentCache.evictEarly(0.3, rt.random);
    // Weekends (days 5, 6, 12, 13…) bring no new rows.
    const weekend = d % 7 === 5 || d % 7 === 6;
    expected = weekend || d === 29 ? 0 : day(d + 1);
    // On day 3 a person fills in a new row's result by hand before the next run: it is theirs.
    // (That row repeats a phone of an earlier day, so the day's spend is the same.)
    if (d === 2) {
      handRow = last - 5;
      expect(String(rt.values('Sheet1', `A${handRow}`)[0]?.[0])).toMatch(/^Again /);
      rt.type('Sheet1', `D${handRow}`, [['checked by hand']]);
    }
  }
  // Every row with input was written once, with its status; the empty rows stay empty.
  const out = rt.values('Sheet1', `A2:D${last}`);
  for (const [name, p, , status] of out) {
    if (status === 'checked by hand') continue;
    if (name === '') expect(status).toBe('');
    else if (String(p) === '12345') expect(String(status)).toMatch(/^invalid: /);
    else expect(status).toBe('ok');
  }
  expect(rt.sandbox.transactions()).toBe(seen.size);
  expect(spentByDay.filter((n) => n === 0)).toHaveLength(8);
  // Only rows whose result cells were empty: each result cell written once in 30 days (720 runs),
  // and the row a person filled in by hand on day 3 left as it was.
  const sheet = rt.sheet();
  for (let row = 2; row <= last; row++) {
    if (row === handRow) continue;
    for (let column = 4; column <= 6; column++)
      expect(sheet.cell(row, column)?.writes ?? 0).toBeLessThanOrEqual(1);
  }
  expect(rt.values('Sheet1', `D${handRow}:F${handRow}`)).toEqual([['checked by hand', '', '']]);
  const state = rt.scriptRun(rt.owner, 'getAutomation') as State;
  expect(state.history[0]).toMatch(/^2026-12-\d\d 1\d:00 UTC · 4\d rows · 4\d spent · done$/);
  console.log(
    `30 days kept enriched: ${rt.sandbox.transactions()} transactions for ${seen.size} distinct phones; ` +
      `per day: ${spentByDay.join(' ')}; trigger runs: ${rt.triggers.runs.length}`,
  );
});

test('it runs only for the user who turned it on, who alone can turn it off; another editor sees none', () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:B3', [
    ['Name', 'Phone'],
    ['A', phone(1)],
    ['B', phone(2)],
  ]);
  rt.run(rt.collaborator, 'saveSettings', { apiKey: COLLABORATOR_KEY });
  rt.scriptRun(rt.collaborator, 'turnOnAutomation', request(rt, 3));
  // The owner's sidebar shows no automation of theirs, and cannot delete the collaborator's trigger.
  expect((rt.scriptRun(rt.owner, 'getAutomation') as State).on).toBe(false);
  rt.scriptRun(rt.owner, 'turnOffAutomation');
  expect(rt.triggers.live()).toHaveLength(1);
  const runs = rt.passTime(HOUR);
  expect(runs).toMatchObject([{ user: rt.collaborator.email, ran: true, error: null }]);
  // It ran as the collaborator: their key paid.
  expect(rt.http.every((h) => h.user === rt.collaborator.email)).toBe(true);
  expect(rt.http.map((h) => h.headers['x-api-key'])).toEqual([COLLABORATOR_KEY, COLLABORATOR_KEY]);
  const off = rt.scriptRun(rt.collaborator, 'turnOffAutomation') as State;
  expect(off.on).toBe(false);
  expect(off.history[0]).toMatch(/ · turned off$/);
  expect(rt.triggers.live()).toHaveLength(0);
  expect(rt.passTime(3 * HOUR)).toHaveLength(0);
});

test('the allowance stops a run, not the automation: 600 new rows with 500 a day, the rest the next day', () => {
  const rt = newRuntime({ allowance: 'default' });
  rt.sheet().maxRows = 700;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  rt.type(
    'Sheet1',
    'A2:B601',
    Array.from({ length: 600 }, (_, i) => [`Lead ${i}`, phone(i)]),
  );
  rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, 601));
  rt.passTime(5 * HOUR);
  expect(rt.sandbox.transactions()).toBe(500);
  const state = rt.scriptRun(rt.owner, 'getAutomation') as State;
  // One record of the stop, not one an hour.
  expect(state.history.filter((h) => h.includes("today's allowance is spent"))).toHaveLength(1);
  expect(state.history[0]).toMatch(
    /· 500 rows · 500 spent · stopped: today's allowance is spent; goes on tomorrow \(UTC\)/,
  );
  expect(rt.values('Sheet1', 'D502:D502')).toEqual([['']]);
  rt.passTime(DAY);
  expect(rt.sandbox.transactions()).toBe(600);
  expect(rt.values('Sheet1', 'D2:D601').every((r) => r[0] === 'ok')).toBe(true);
});

test('it turns itself off, saying why, when the key is removed or refused', () => {
  const rt = newRuntime();
  rt.type('Sheet1', 'A1:B2', [
    ['Name', 'Phone'],
    ['A', phone(1)],
  ]);
  rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, 2));
  rt.run(rt.owner, 'saveSettings', { apiKey: '' });
  rt.passTime(HOUR);
  let state = rt.scriptRun(rt.owner, 'getAutomation') as State;
  expect(state.on).toBe(false);
  expect(state.history[0]).toMatch(
    /turned off: your API key is missing or was refused; set it, then turn this on again$/,
  );
  expect(rt.triggers.live()).toHaveLength(0);

  // A key the service refuses (401): the run stops at once, nothing is written, and it turns off.
  rt.run(rt.owner, 'saveSettings', { apiKey: 'a-key-the-service-does-not-know' });
  rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, 2));
  rt.passTime(HOUR);
  state = rt.scriptRun(rt.owner, 'getAutomation') as State;
  expect(state.on).toBe(false);
  expect(state.history[0]).toMatch(/turned off: your API key/);
  expect(rt.values('Sheet1', 'D2')).toEqual([['']]);
  expect(rt.sandbox.transactions()).toBe(0);
});

test('the day’s trigger time: a run Apps Script stops is recorded by the next one, and nothing is paid twice', () => {
  const rt = newRuntime({ latencyMs: 2_000 });
  rt.sheet().maxRows = 3_100;
  rt.type('Sheet1', 'A1:B1', [['Name', 'Phone']]);
  rt.type(
    'Sheet1',
    'A2:B3001',
    Array.from({ length: 3_000 }, (_, i) => [`Lead ${i}`, phone(i)]),
  );
  rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, 3001));
  // Other scripts of the owner used 88 of the day's 90 minutes of trigger time before the first run.
  rt.triggers.spend(rt.owner.email, rt.clock.now(), 88 * 60_000);
  const firstDay = rt.passTime(3 * HOUR);
  expect(firstDay[0]).toMatchObject({ ran: true, error: 'Service using too much computer time for one day' });
  expect(firstDay.slice(1).every((r) => !r.ran)).toBe(true);
  const paidThen = rt.sandbox.transactions();
  const writtenThen = rt.values('Sheet1', 'D2:D3001').filter((r) => r[0] === 'ok').length;
  expect(paidThen).toBeGreaterThan(writtenThen);
  // The next day the first run finds the one that never ended, says so, and goes on.
  rt.passTime(DAY);
  const state = rt.scriptRun(rt.owner, 'getAutomation') as State;
  const killed = state.history.find((h) => h.includes('stopped by Apps Script before it ended'));
  expect(killed).toBe(
    `2026-11-22 10:00 UTC · ${writtenThen} rows · ${writtenThen} spent · stopped by Apps Script before it ended ` +
      "(its 6 minutes, or the day's trigger time ran out); the next run goes on from there",
  );
  rt.passTime(DAY);
  expect(rt.values('Sheet1', 'D2:D3001').every((r) => r[0] === 'ok')).toBe(true);
  // Paid twice: only what the stopped run had bought and not yet written (its last batch; the
  // answers waited in the cache, which forgets them after 6 hours, and the next run was a day later).
  expect(rt.sandbox.transactions()).toBe(3_000 + (paidThen - writtenThen));
  expect(paidThen - writtenThen).toBeLessThanOrEqual(500);
  console.log(
    `trigger time cut off: ${rt.sandbox.transactions()} transactions for 3,000 rows; history: ${state.history.join(' | ')}`,
  );
});

test('if Apps Script runs the hourly trigger outside the document (not documented either way), the sidebar says so', () => {
  const rt = newRuntime();
  rt.timeTriggersHaveDocument = false;
  rt.type('Sheet1', 'A1:B2', [
    ['Name', 'Phone'],
    ['A', phone(1)],
  ]);
  rt.scriptRun(rt.owner, 'turnOnAutomation', request(rt, 2));
  expect(rt.passTime(HOUR)).toMatchObject([{ ran: true, error: null }]);
  expect(rt.sandbox.transactions()).toBe(0);
  const state = rt.scriptRun(rt.owner, 'getAutomation') as State & { problem: string };
  expect(state.on).toBe(true);
  expect(state.problem).toBe(
    'Apps Script ran the hourly trigger outside this spreadsheet (2026-11-22 10:00 UTC), so it could not enrich anything. Use Start above for new rows meanwhile.',
  );
});
