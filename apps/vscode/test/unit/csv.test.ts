// "Enrich File..." on a CSV, on the shared bulk engine against a real sandbox over HTTP: the cost
// shown before confirming equals what the run spends, and is its ceiling (a file changed since the
// plan is refused; the run never spends past the plan); it sends where it was reviewed; Cancel, then
// run again, spends nothing twice; the mapping can be changed before anything is sent.
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkSummary } from '@enrich/bulk';
import { PACE_CHANGES, readLedger } from '@enrich/core';
import { startSandboxServer } from '@enrich/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { Config } from '../../src/config';
import { UNFINISHED_KEY } from '../../src/file-run/flow';
import { COMMAND } from '../../src/manifest';
import { LEDGER_FILE } from '../../src/spend/ledger';
import { commands, reply, setSetting, Uri, ui } from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, TEST_KEY, tempDir } from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

// 9 rows: one phone three ways, two more, a reserved no-match (paid), a blank and an invalid phone;
// Mobile holds one number throughout, for the mapping test.
const CSV = [
  'Name,Phone Number,Mobile',
  'A,5550102030,5550102099',
  'B,(555) 010-2030,5550102099',
  'C,555.010.2030,5550102099',
  'D,5550102031,5550102099',
  'E,5550102032,5550102099',
  'F,5550000204,5550102099',
  ',,',
  'H,555010,5550102099',
  'I,5550102031,5550102099',
].join('\n');

function csvFile(text = CSV): string {
  const path = join(tempDir('enrich-csv-'), 'leads.csv');
  writeFileSync(path, `${text}\n`);
  return path;
}

const enrich = (path: string) =>
  commands.executeCommand<BulkSummary | undefined>(COMMAND.enrichCsv, Uri.file(path));
const confirmModal = () => {
  ui.answer = (m) => (m.modal ? m.actions[0] : undefined);
};

describe('Enrich File on a CSV', () => {
  it('shows the cost, and the run spends exactly that; the result opens beside the input', async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    confirmModal();
    const summary = await enrich(path);
    const modal = ui.messages.find((m) => m.modal);
    expect(modal?.text).toBe('Phone Lookup on leads.csv: spend 4 transactions?');
    expect(modal?.detail).toMatch(
      /^9 rows: 4 distinct valid requests, 0 answers already cached, 1 blank, 1 invalid\. Transactions to spend: 4\. Read as UTF-8 \(detected\), comma-separated \(detected\)\. The result goes to leads\.phone-lookup\.csv\. Service: a local sandbox: http:\/\/127\.0\.0\.1:\d+\.$/,
    );
    expect(modal?.actions).toEqual(['Enrich (4 transactions)']);
    expect(summary?.completed).toBe(true);
    expect(summary?.transactions).toBe(4);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(4);
    const out = join(path, '..', 'leads.phone-lookup.csv');
    const written = readFileSync(out, 'utf8');
    expect(ui.documents.at(-1)?.uri.fsPath).toBe(out);
    expect(written.split('\n')[0]).toMatch(/^Name,Phone Number,Mobile,.*FName/);
    expect(written.trimEnd().split('\n').length).toBe(10);
    // Done: nothing left to resume, no lock or partial file left beside the input.
    expect(harness.context.globalState.get(UNFINISHED_KEY)).toEqual({});
    expect(readdirSync(join(path, '..')).sort()).toEqual([
      '.enrich-cache.jsonl',
      'leads.csv',
      'leads.phone-lookup.csv',
    ]);
  });

  it('a CSV that breaks off mid-file is refused in the review, before anything is sent', async () => {
    harness = await activateWithSandbox();
    const path = csvFile(
      ['Name,Phone', 'A,5550102030', 'Bob "The Builder" Smith,5550102031', 'C,5550102032'].join('\n'),
    );
    reply({ pick: 'Phone Lookup' }, { pick: '$(error) Cannot run with this mapping' }, { cancel: true });
    confirmModal();
    expect(await enrich(path)).toBeUndefined();
    // The review shows why it cannot run, in place of the Enrich row; stepping away sends nothing.
    const review = ui.seen.find((s) => s.title === 'Phone Lookup: leads.csv');
    expect(review?.items[0]).toBe('$(error) Cannot run with this mapping');
    expect(review?.items.join('\n')).not.toMatch(/Enrich: spend/);
    expect(harness.server.sandbox.requests()).toBe(0);
  });

  it("a file of the user's where the result goes is replaced only when they say so", async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    const out = join(path, '..', 'leads.phone-lookup.csv');
    writeFileSync(out, 'quarter,revenue\nQ1,100\n');
    // Declined: the file stays as it was, and nothing was sent.
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    ui.answer = (m) => (m.text.includes('spend') ? m.actions[0] : undefined);
    expect(await enrich(path)).toBeUndefined();
    const asked = ui.messages.find((m) => m.text.includes('was not written by Enrich File'));
    expect(asked?.text).toBe(
      'leads.phone-lookup.csv exists and was not written by Enrich File. Replace it with the result?',
    );
    expect(asked?.actions).toEqual(['Replace leads.phone-lookup.csv']);
    expect(readFileSync(out, 'utf8')).toBe('quarter,revenue\nQ1,100\n');
    expect(harness.server.sandbox.requests()).toBe(0);
    // Replace: the run goes on and writes the result there.
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    confirmModal();
    const summary = await enrich(path);
    expect(summary).toMatchObject({ completed: true, transactions: 4 });
    expect(readFileSync(out, 'utf8')).toMatch(/^Name,Phone Number,Mobile,/);
  });

  it('lets the user map a field to another column before anything is sent', async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    reply(
      { pick: 'Phone Lookup' },
      { pick: 'Phone' },
      { pick: 'Mobile' },
      // Mobile holds one number: one request.
      { pick: '$(play) Enrich: spend 1 transaction' },
    );
    confirmModal();
    const summary = await enrich(path);
    expect(summary?.transactions).toBe(1);
    expect(harness.server.sandbox.requests()).toBe(1);
  });

  it('sends nothing when the user declines the cost', async () => {
    harness = await activateWithSandbox();
    reply({ pick: 'Phone Lookup' }, { accept: true });
    expect(await enrich(csvFile())).toBeUndefined();
    expect(harness.server.sandbox.requests()).toBe(0);
  });

  it('resumes after Cancel without buying anything twice', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ latencyMs: 150 });
    const phones = Array.from({ length: 40 }, (_, i) => `55501030${String(i).padStart(2, '0')}`);
    const path = csvFile(['Phone', ...phones, ...phones].join('\n'));
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 40 transactions' });
    confirmModal();
    ui.onProgress = (record) => {
      if (record.title?.includes('leads.csv')) setTimeout(() => record.source.cancel(), 300);
    };
    const first = await enrich(path);
    expect(first?.completed).toBe(false);
    const bought = harness.server.sandbox.transactions(TEST_KEY);
    expect(bought).toBeGreaterThan(0);
    expect(bought).toBeLessThan(40);
    expect(ui.messages.at(-1)?.text).toMatch(/^Enrich File stopped.*again to finish without paying twice/);

    ui.onProgress = () => {};
    // The unfinished run is offered first; its cost counts the answers already bought as cached.
    reply({ pick: '$(debug-continue) Resume Phone Lookup' }, { accept: true });
    const second = await enrich(path);
    const modal = ui.messages.filter((m) => m.modal).at(-1);
    expect(modal?.text).toContain(`spend ${40 - bought} transaction`);
    expect(modal?.detail).toContain(`${bought} answers already cached`);
    expect(second?.completed).toBe(true);
    expect(second?.transactions).toBe(40 - bought);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(40);
    expect(readdirSync(join(path, '..')).sort()).toEqual([
      '.enrich-cache.jsonl',
      'leads.csv',
      'leads.phone-lookup.csv',
    ]);
  });

  it('says what to do when no key is set, and sends nothing', async () => {
    harness = await activateWithSandbox({ setKey: false });
    expect(await enrich(csvFile())).toBeUndefined();
    expect(ui.messages.at(-1)?.actions).toEqual(['Set API Key', 'Try Without a Key']);
    expect(harness.server.sandbox.requests()).toBe(0);
  });
});

// The plan the person confirmed is a ceiling: the run is started with its number as the engine's
// limit (sender.maxTransactions), on the file that was planned, at the bases that were reviewed.
describe('Enrich File spends what it confirmed, where it confirmed', () => {
  const extraRows = Array.from({ length: 200 }, (_, i) => `X${i},5552${String(i).padStart(6, '0')},\n`).join(
    '',
  );

  it('refuses to start when rows were appended to the file while the modal was open', async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    ui.answer = (m) => {
      if (!m.modal) return undefined;
      appendFileSync(path, extraRows);
      return m.actions[0];
    };
    const summary = await enrich(path);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(0);
    expect(summary).toBeUndefined();
    const said = ui.messages.at(-1);
    expect(said?.severity).toBe('warning');
    const before = Buffer.byteLength(`${CSV}\n`);
    const after = before + Buffer.byteLength(extraRows);
    expect(said?.text).toBe(
      `Enrich File: leads.csv changed since the plan (it grew from ${before} to ${after.toLocaleString('en-US')} bytes), so nothing was sent. Run Enrich File again to see the cost of the file as it is now.`,
    );
  });

  it('refuses to start when the file was edited to the same size', async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
    ui.answer = (m) => {
      if (!m.modal) return undefined;
      // One digit changed: as many bytes, another request.
      writeFileSync(path, readFileSync(path, 'utf8').replace('5550102032', '5550102039'));
      return m.actions[0];
    };
    const summary = await enrich(path);
    expect(harness.server.sandbox.requests()).toBe(0);
    expect(summary).toBeUndefined();
    expect(ui.messages.at(-1)?.text).toMatch(
      /^Enrich File: leads\.csv changed since the plan \(its content changed\), so nothing was sent\./,
    );
  });

  it('never spends past the plan: answers the cache lost before the run are not bought beyond it', async () => {
    harness = await activateWithSandbox();
    const path = csvFile();
    // An earlier run in the same folder bought two of the four answers: the plan counts them cached.
    const first = join(path, '..', 'first.csv');
    writeFileSync(first, 'Phone\n5550102030\n5550102031\n');
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 2 transactions' });
    confirmModal();
    expect((await enrich(first))?.transactions).toBe(2);
    // The cost shown is 2; the cache is gone before the person confirms (deleted, or aged out).
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 2 transactions' });
    ui.answer = (m) => {
      if (!m.modal) return undefined;
      rmSync(join(path, '..', '.enrich-cache.jsonl'));
      return m.actions[0];
    };
    const summary = await enrich(path);
    expect(ui.messages.filter((m) => m.modal).at(-1)?.text).toBe(
      'Phone Lookup on leads.csv: spend 2 transactions?',
    );
    expect(summary?.transactions).toBe(2);
    expect(summary?.stopped).toBe('budget');
    // Rows in order: the first two distinct phones were sent, E's and F's were not.
    expect(summary?.notSent).toBe(2);
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(4);
    expect(ui.messages.at(-1)?.text).toBe(
      'Enrich File spent the 2 transactions you confirmed and stopped there: 2 rows were not sent, since the file or the answer cache asked for more than the plan counted. Answers bought are kept; run Enrich File on leads.csv again to see the cost of the rest and confirm it.',
    );
    // Not finished: the next Enrich File on the file offers to resume it.
    expect(Object.keys(harness.context.globalState.get(UNFINISHED_KEY) ?? {})).toEqual([path]);
  });

  it('sends to the bases it reviewed: a v3 base changed before confirming is not billed', async () => {
    harness = await activateWithSandbox();
    const other = await startSandboxServer({ keys: [TEST_KEY] });
    try {
      const path = csvFile();
      reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 4 transactions' });
      ui.answer = (m) => {
        if (!m.modal) return undefined;
        // Another window's "Use Sandbox", or the person in the settings editor.
        void setSetting('enrich.baseUrlV3', other.url);
        return m.actions[0];
      };
      const summary = await enrich(path);
      expect(other.sandbox.transactions(TEST_KEY)).toBe(0);
      const modal = ui.messages.find((m) => m.modal);
      expect(modal?.detail).toMatch(new RegExp(`Service: a local sandbox: ${harness.server.url}\\.$`));
      expect(summary).toMatchObject({ completed: true, transactions: 4 });
      expect(other.sandbox.requests()).toBe(0);
      expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(4);
      // The ledger and the answer cache name the service that was billed.
      const ledger = readLedger(
        readFileSync(join(harness.context.globalStorageUri.fsPath, LEDGER_FILE), 'utf8'),
      ).entries;
      expect(ledger.map((e) => [e.origin, e.count])).toEqual([[harness.server.url, 4]]);
      const cache = readFileSync(join(path, '..', '.enrich-cache.jsonl'), 'utf8');
      expect(cache).toContain(harness.server.url);
      expect(cache).not.toContain(other.url);
    } finally {
      await other.close();
    }
  });
});

// The same controller as the CLI's (core's Pace, through the bulk engine), against a sandbox over
// HTTP that rate-limits like a gateway: 40 requests a second per key (a token bucket), 429 +
// Retry-After: 1 past it, 100 ms an answer.
describe('Enrich File paces itself', () => {
  const RATE_LIMITED = { rate: 40, latencyMs: 100 };
  const phones = Array.from({ length: 400 }, (_, i) => `5551${String(100_000 + i).padStart(6, '0')}`);

  it('with the default settings (auto): under the limit, few 429s, every row answered once', async () => {
    harness = await activateWithSandbox({ sandbox: RATE_LIMITED });
    const path = csvFile(['Phone', ...phones].join('\n'));
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 400 transactions' });
    confirmModal();
    const summary = await enrich(path);
    expect(summary).toMatchObject({ completed: true, ok: 400, transactions: 400, pace: { mode: 'auto' } });
    const stats = harness.server.sandbox.stats();
    console.log(
      `auto against rate 40/s: ${stats.requests} requests, ${stats.throttled} answered 429, ${stats.answersPerSecond} answers/s at the sandbox; summary pace ${JSON.stringify(summary?.pace)}`,
    );
    // One transaction per distinct phone; at most 5 % of what the sandbox saw was turned away.
    expect(stats.transactions).toBe(400);
    expect(stats.throttled).toBe(summary?.throttled);
    expect(stats.throttled / stats.requests).toBeLessThanOrEqual(0.05);
    expect(stats.answersPerSecond).toBeGreaterThanOrEqual(30);
    // The progress notification kept its rows and transactions and told the pace and why it last
    // changed, in core's words (paceText, PACE_CHANGES).
    const reported = ui.progress.find((p) => p.title?.includes('leads.csv'))?.messages ?? [];
    const words = Object.values(PACE_CHANGES);
    expect(reported.length).toBeGreaterThan(0);
    for (const message of reported) {
      expect(message).toMatch(
        /^\d+ of about \d+ rows, \d+ transactions? spent; pace [\d.]+\/s, \d+ in flight(, paced at [\d.]+\/s)? \(.+\)$/,
      );
      expect(words.some((w) => message.endsWith(`(${w})`))).toBe(true);
    }
    // The message after the run: the pace reached, found by itself, and the 429s when there were any.
    const closing = ui.messages.at(-1)?.text ?? '';
    expect(closing).toMatch(/^Enrich File: wrote leads\.phone-lookup\.csv; 400 transactions spent/);
    expect(closing).toMatch(/ Pace: [\d.]+ answers\/s; found by itself: up to \d+ at a time/);
    if (stats.throttled > 0) {
      expect(closing).toContain(`; 429 answers: ${stats.throttled} (`);
    } else expect(closing).not.toContain('429');
  }, 30_000);

  it('with enrich.concurrency set to a number: that many at a time, never more', async () => {
    harness = await activateWithSandbox({ sandbox: RATE_LIMITED });
    await setSetting('enrich.concurrency', 3);
    const path = csvFile(['Phone', ...phones.slice(0, 60)].join('\n'));
    reply({ pick: 'Phone Lookup' }, { pick: '$(play) Enrich: spend 60 transactions' });
    confirmModal();
    const summary = await enrich(path);
    expect(summary).toMatchObject({ completed: true, ok: 60, pace: { mode: 'fixed', concurrency: 3 } });
    const stats = harness.server.sandbox.stats();
    console.log(`fixed at 3: peak in service ${stats.peakInService}, ${stats.throttled} answered 429`);
    // That many at a time: never more, and not fewer (60 requests of 100 ms each, well under the rate).
    expect(stats.peakInService).toBe(3);
    expect(stats.transactions).toBe(60);
    const reported = ui.progress.find((p) => p.title?.includes('leads.csv'))?.messages ?? [];
    expect(reported.some((m) => m.endsWith(`(${PACE_CHANGES.fixed})`))).toBe(true);
    expect(ui.messages.at(-1)?.text).toMatch(/ Pace: [\d.]+ answers\/s; 3 at a time \(fixed\)/);
  }, 30_000);
});

// Settings edited by hand in settings.json: a value out of bounds or of the wrong type never stops
// a run; it falls back to the default (or the nearest bound, as the other number settings do).
describe('the pace settings', () => {
  const config = async (values: Record<string, unknown>) => {
    harness = await activateWithSandbox();
    for (const [name, value] of Object.entries(values)) await setSetting(`enrich.${name}`, value);
    return new Config();
  };

  it('default to auto, 64 at most and no rate cap', async () => {
    const c = await config({});
    expect([c.concurrency, c.maxConcurrency, c.maxRate]).toEqual(['auto', 64, undefined]);
  });

  it('take a whole number of requests at a time, and a rate cap', async () => {
    const c = await config({ concurrency: 12, maxConcurrency: 32, maxRate: 25.5 });
    expect([c.concurrency, c.maxConcurrency, c.maxRate]).toEqual([12, 32, 25.5]);
    expect((await config({ concurrency: ' 8 ' })).concurrency).toBe(8);
  });

  it.each(['fast', 0, -4, 2.5, 257, null, true])(
    'read a hand-edited enrich.concurrency of %j as auto',
    async (value) => {
      expect((await config({ concurrency: value })).concurrency).toBe('auto');
    },
  );

  it('bound enrich.maxConcurrency and read a non-number as 64; a bad enrich.maxRate as no cap', async () => {
    expect((await config({ maxConcurrency: 'many' })).maxConcurrency).toBe(64);
    expect((await config({ maxConcurrency: 1000 })).maxConcurrency).toBe(256);
    expect((await config({ maxConcurrency: 0 })).maxConcurrency).toBe(1);
    for (const maxRate of [0, -5, '40/s', null, Number.NaN]) {
      expect((await config({ maxRate })).maxRate).toBeUndefined();
    }
  });
});
