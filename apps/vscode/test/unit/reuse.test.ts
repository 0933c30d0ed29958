// Answers already paid for: a second identical call offers the History's answer instead of a new
// transaction. Against a real sandbox over HTTP on 127.0.0.1; its transaction counter is the proof
// of what was spent.
import { getOperation } from '@enrich/core';
import { RESERVED, startSandboxServer } from '@enrich/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { CALL_AGAIN, SHOW_EARLIER, timeAgo } from '../../src/call/reuse';
import type { HistoryEntry } from '../../src/history';
import { COMMAND, contributes, operationCommandId } from '../../src/manifest';
import { commands, reply, setSetting, ui } from '../vscode-stub';
import {
  activateWithSandbox,
  closeHarnesses,
  expectedRecord,
  type Harness,
  lastResult,
  repliesFor,
  storedHistory,
  storedHistoryText,
  TEST_KEY,
  writeStoredHistory,
} from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const PHONE = '5550102030';
const HOUR = 3_600_000;
const phoneLookup = getOperation('phone-lookup');

const run = (id: string, ...args: unknown[]) =>
  commands.executeCommand<HistoryEntry | undefined>(id, ...args);
const lookUp = (typed: string) => {
  reply({ type: typed });
  return run(operationCommandId(phoneLookup));
};
const h = () => {
  if (!harness) throw new Error('not activated');
  return harness;
};
const spent = () => h().server.sandbox.transactions(TEST_KEY);
const stored = () => storedHistory(h().context);
/** The reuse questions asked so far. */
const questions = () => ui.messages.filter((m) => m.actions.includes(SHOW_EARLIER));
/** The user's answer to the question (a modal); any other message is dismissed. */
const choose = (action: string) => {
  ui.answer = (m) => (m.modal && m.actions.includes(action) ? action : undefined);
};
const reserved = (outcome: string) => {
  const found = RESERVED.find((r) => r.outcome === outcome);
  if (!found) throw new Error(outcome);
  return found;
};

describe('a second identical call', () => {
  it('asks first; "Show that answer" spends no transaction and shows the same record', async () => {
    harness = await activateWithSandbox();
    const first = await lookUp(PHONE);
    expect(first?.outcome.kind).toBe('record');
    expect(spent()).toBe(1);
    const firstShown = lastResult();
    const requests = h().server.sandbox.requests();
    const documents = ui.documents.length;

    choose(SHOW_EARLIER);
    // Typed differently: the match is on core's clean input, not on the keystrokes.
    const second = await lookUp('(555) 010-2030');
    expect(questions()).toEqual([
      {
        severity: 'info',
        modal: true,
        text: `Phone Lookup for ${PHONE} was answered less than a minute ago. It found a record.`,
        detail: 'Showing that answer spends no transaction; calling again spends one.',
        actions: [SHOW_EARLIER, CALL_AGAIN],
      },
    ]);
    expect(spent()).toBe(1);
    expect(h().server.sandbox.requests()).toBe(requests);
    expect(second?.id).toBe(first?.id);
    expect(ui.documents.length).toBe(documents + 1);
    expect(lastResult()).toEqual(firstShown);
    expect(lastResult().record).toEqual(expectedRecord(phoneLookup, { Phone: PHONE }));
    // No new History entry: the one answer keeps the time it was paid for.
    expect(stored().map((e) => e.id)).toEqual([first?.id]);
    expect(ui.output.at(-1)).toContain('from the History; nothing sent, no transaction spent');
    expect(storedHistoryText(h().context)).not.toContain(TEST_KEY);
    expect(h().context.globalState.dump()).not.toContain(TEST_KEY);
  });

  it('"Call again" spends one transaction and records a new entry', async () => {
    harness = await activateWithSandbox();
    const first = await lookUp(PHONE);
    choose(CALL_AGAIN);
    const again = await lookUp(PHONE);
    expect(questions()).toHaveLength(1);
    expect(spent()).toBe(2);
    expect(again?.id).not.toBe(first?.id);
    expect(stored().map((e) => e.id)).toEqual([again?.id, first?.id]);
    expect(lastResult()).toMatchObject({ result: 'record', transaction: 'spent' });
    expect(lastResult().record).toEqual(expectedRecord(phoneLookup, { Phone: PHONE }));
  });

  it('is cancelled by Escape: nothing sent, nothing shown', async () => {
    harness = await activateWithSandbox();
    await lookUp(PHONE);
    const requests = h().server.sandbox.requests();
    const documents = ui.documents.length;
    const again = await lookUp(PHONE); // ui.answer dismisses the modal, as Escape does
    expect(questions()).toHaveLength(1);
    expect(again).toBeUndefined();
    expect(h().server.sandbox.requests()).toBe(requests);
    expect(spent()).toBe(1);
    expect(ui.documents.length).toBe(documents);
    expect(stored()).toHaveLength(1);
  });

  it('offers a no-match (204) too, which was billed like a record', async () => {
    harness = await activateWithSandbox();
    const phone = reserved('no-match').phone;
    await lookUp(phone);
    expect(spent()).toBe(1);
    choose(SHOW_EARLIER);
    await lookUp(phone);
    expect(questions()[0]?.text).toBe(
      `Phone Lookup for ${phone} was answered less than a minute ago. It found no match (204).`,
    );
    expect(spent()).toBe(1);
    expect(lastResult()).toMatchObject({ status: 204, result: 'no match' });
  });

  it('can show the answer without a key set, since nothing is sent', async () => {
    harness = await activateWithSandbox();
    await lookUp(PHONE);
    await run(COMMAND.clearApiKey);
    choose(SHOW_EARLIER);
    const shown = await lookUp(PHONE);
    expect(shown?.outcome.kind).toBe('record');
    expect(ui.messages.filter((m) => m.severity === 'warning')).toEqual([]);
    expect(spent()).toBe(1);
  });
});

describe('what is not offered', () => {
  it('a different input, a different operation, or the same request to another base URL', async () => {
    harness = await activateWithSandbox();
    choose(SHOW_EARLIER);
    await lookUp(PHONE);
    await lookUp('5550102031');
    const email = { Email: 'jane.doe@example.com' };
    for (const id of ['email-lookup', 'email-verify'] as const) {
      reply(...repliesFor(getOperation(id), email));
      await run(operationCommandId(getOperation(id)));
    }
    expect(spent()).toBe(4);

    const other = await startSandboxServer({ keys: [TEST_KEY] });
    try {
      await setSetting('enrich.baseUrlV3', other.url);
      const elsewhere = await lookUp(PHONE);
      expect(elsewhere?.outcome.kind).toBe('record');
      expect(other.sandbox.transactions(TEST_KEY)).toBe(1);
    } finally {
      await other.close();
    }
    expect(questions()).toEqual([]);
  });

  it('an answer older than enrich.reuseAnswersHours (default 24)', async () => {
    harness = await activateWithSandbox();
    await lookUp(PHONE);
    const [entry] = stored();
    if (!entry) throw new Error('no entry');
    // As if paid for 25 hours ago.
    await writeStoredHistory(h().context, [{ ...entry, at: Date.now() - 25 * HOUR }]);
    choose(SHOW_EARLIER);

    await setSetting('enrich.reuseAnswersHours', 48);
    await lookUp(PHONE);
    expect(questions().map((q) => q.text)).toEqual([
      `Phone Lookup for ${PHONE} was answered 25 hours ago. It found a record.`,
    ]);
    expect(spent()).toBe(1);

    await setSetting('enrich.reuseAnswersHours', 24);
    const fresh = await lookUp(PHONE);
    expect(questions()).toHaveLength(1);
    expect(spent()).toBe(2);
    expect(fresh?.id).not.toBe(entry.id);
  });

  it('anything, when enrich.reuseAnswersHours is 0', async () => {
    harness = await activateWithSandbox();
    await setSetting('enrich.reuseAnswersHours', 0);
    choose(SHOW_EARLIER);
    await lookUp(PHONE);
    await lookUp(PHONE);
    expect(questions()).toEqual([]);
    expect(spent()).toBe(2);
    expect(stored()).toHaveLength(2);
  });

  it('an error: a 500 (which cost nothing) is asked again', async () => {
    harness = await activateWithSandbox();
    h().server.sandbox.configure({ faultRate: 1 });
    const failed = await lookUp(PHONE);
    expect(failed?.outcome).toMatchObject({ kind: 'error', error: { status: 500 } });
    expect(spent()).toBe(0);
    h().server.sandbox.configure({ faultRate: 0 });
    choose(SHOW_EARLIER);
    const again = await lookUp(PHONE);
    expect(questions()).toEqual([]);
    expect(again?.outcome.kind).toBe('record');
    expect(spent()).toBe(1);
  }, 30_000);

  it('an error even when billed: a 440 "too many results" is not shown in place of a call', async () => {
    harness = await activateWithSandbox();
    const phone = reserved('too-many').phone;
    choose(SHOW_EARLIER);
    const first = await lookUp(phone);
    expect(first?.outcome).toMatchObject({ kind: 'error', error: { status: 440 } });
    expect(first?.paid).toBe(true);
    await lookUp(phone);
    expect(questions()).toEqual([]);
    expect(spent()).toBe(2);
  });
});

describe('Re-run from the History', () => {
  it('calls again without asking, and its title says it spends a transaction', async () => {
    harness = await activateWithSandbox();
    const first = await lookUp(PHONE);
    choose(SHOW_EARLIER);
    const again = await run(COMMAND.rerun, first);
    expect(questions()).toEqual([]);
    expect(spent()).toBe(2);
    expect(again?.id).not.toBe(first?.id);
    expect(again?.input).toEqual(first?.input);
    const title = contributes().commands.find((c) => c.command === COMMAND.rerun)?.title;
    expect(title).toBe('Re-run (spends 1 transaction)');
  });
});

describe('timeAgo', () => {
  it('says the age in the largest whole unit', () => {
    expect([0, 59_999, 60_000, 5 * 60_000 + 59_999, HOUR, 47 * HOUR, 49 * HOUR].map(timeAgo)).toEqual([
      'less than a minute',
      'less than a minute',
      '1 minute',
      '5 minutes',
      '1 hour',
      '47 hours',
      '2 days',
    ]);
  });
});
