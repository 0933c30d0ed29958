// One question through the purchase path (call/one-call.ts), as the CLI's one-off call and the MCP
// server's operation tools ask it: against the sandbox over real HTTP, the answer cache a real
// journal, the shared store a real PostgreSQL. Each test counts what the sandbox billed.
import { join } from 'node:path';
import {
  type CleanInput,
  callOperation,
  DEFAULT_RETRY_POLICY,
  getOperation,
  type Outcome,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { heldCache } from '../src/call/call-cache.js';
import { type CallSteps, type Held, OneCalls } from '../src/call/one-call.js';
import { AnswerStore } from '../src/store/answer-store.js';
import { useSandbox } from './fixtures.js';
import { freshSchema, NS, openFront, usePostgres } from './postgres-fixtures.js';

const op = getOperation('phone-lookup');
const at = useSandbox();
const pg = usePostgres();

/** The steps of a client with its journal in the test's folder; `more` on top. */
function client(more: Partial<CallSteps> = {}, { apiKey = DEMO_KEY, journal = 'answers.jsonl' } = {}) {
  const store = AnswerStore.open({ path: join(at.dir, journal), namespace: NS, maxAgeMs: 86_400_000 });
  const paid: string[] = [];
  const sent: CleanInput[] = [];
  const settings = { apiKey, baseUrl: at.server.url, baseUrlV3: at.server.url };
  const steps: CallSteps = {
    namespace: NS,
    cache: heldCache(store),
    send: async (input) => {
      sent.push(input);
      const report = await callOperation(op, input, {
        transport: createFetchTransport({ timeoutMs: 5000 }),
        settings,
        policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
        sleep: async () => undefined,
        now: Date.now,
      });
      return report.outcome;
    },
    onPaid: () => paid.push('1'),
    ...more,
  };
  return { store, paid, sent, prepare: async () => steps };
}

describe('one call', () => {
  it('refuses invalid input before anything is prepared, opened or sent', async () => {
    let prepared = 0;
    const asked = await new OneCalls().ask(op, { Phone: '555010203' }, async () => {
      prepared++;
      return client().prepare();
    });
    expect(asked).toMatchObject({ kind: 'invalid', issues: [{ field: 'Phone' }] });
    expect(prepared).toBe(0);
    expect(at.server.sandbox.requests()).toBe(0);
  });

  it('buys a question once: paid, recorded, journaled; asked again in another spelling, free', async () => {
    const { store, paid, sent, prepare } = client();
    const calls = new OneCalls();
    const first = await calls.ask(op, { phone: '(555) 010-2030' }, prepare);
    expect(first).toMatchObject({
      kind: 'answered',
      source: 'bought',
      paid: true,
      kept: { where: 'journal' },
    });
    // What was sent is the checked input itself, not a copy checked again.
    expect(first.kind === 'answered' && sent[0]).toBe(first.kind === 'answered' && first.input);
    const again = await calls.ask(op, { Phone: '555.010.2030' }, prepare);
    expect(again).toMatchObject({ kind: 'answered', source: 'cache', paid: false });
    expect(at.server.sandbox.transactions()).toBe(1);
    expect(paid).toHaveLength(1);
    expect(store.count).toBe(1);
    store.close();
  });

  it('three spellings asked at once share one purchase', async () => {
    const { paid, prepare, store } = client();
    const calls = new OneCalls();
    const asked = await Promise.all(
      ['5550102030', '(555) 010-2030', '+1 555 010 2030'].map((Phone) => calls.ask(op, { Phone }, prepare)),
    );
    expect(asked.map((a) => a.kind === 'answered' && a.source).sort()).toEqual([
      'bought',
      'shared',
      'shared',
    ]);
    expect(at.server.sandbox.transactions()).toBe(1);
    expect(paid).toHaveLength(1);
    store.close();
  });

  it('refuses a forgotten person before the cache; a ceiling that refuses sends nothing', async () => {
    const { prepare, store } = client();
    const forgotten = await new OneCalls().ask(op, { Phone: '5550102030' }, async () => ({
      ...(await prepare()),
      refuse: () => 'forgotten at their request',
    }));
    expect(forgotten).toMatchObject({ kind: 'forgotten', reason: 'forgotten at their request' });
    const refused = await new OneCalls().ask(op, { Phone: '5550102030' }, async () => ({
      ...(await prepare()),
      ceiling: async () => ({ refused: 'over budget', reason: 'budget' }),
    }));
    expect(refused).toMatchObject({ kind: 'refused', message: 'over budget', reason: 'budget' });
    expect(at.server.sandbox.requests()).toBe(0);
    store.close();
  });

  it('settles the ceiling with what came back; an unpaid answer is neither recorded nor kept', async () => {
    const settled: (Outcome | undefined)[] = [];
    const held: Held = { settle: (outcome) => settled.push(outcome) };
    const { paid, store, prepare } = client(
      { ceiling: async () => held },
      { apiKey: 'not-a-key-of-the-sandbox' },
    );
    const asked = await new OneCalls().ask(op, { Phone: '5550102030' }, prepare);
    expect(asked).toMatchObject({
      kind: 'answered',
      source: 'bought',
      paid: false,
      outcome: { kind: 'error' },
    });
    expect(settled).toHaveLength(1);
    expect(settled[0]?.kind).toBe('error');
    expect(paid).toHaveLength(0);
    expect(store.count).toBe(0);
    store.close();
  });
});

describe('one call with a shared store', () => {
  it("takes another client's answer free (and journals it); buys and keeps what the store lacks", async () => {
    const schema = freshSchema();
    const front = await openFront(pg.cluster, { schema });
    const { paid, prepare, store } = client({ shared: async () => ({ front }) });
    const bought = await new OneCalls().ask(op, { Phone: '5550102030' }, prepare);
    expect(bought).toMatchObject({ kind: 'answered', source: 'bought', paid: true });
    // Another client of the team, its own journal: the store's answer, free.
    const otherFront = await openFront(pg.cluster, { schema });
    const other = client({ shared: async () => ({ front: otherFront }) }, { journal: 'other.jsonl' });
    const fromStore = await new OneCalls().ask(op, { Phone: '5550102030' }, other.prepare);
    expect(fromStore).toMatchObject({
      kind: 'answered',
      source: 'store',
      paid: false,
      kept: { where: 'journal' },
    });
    expect(other.store.count).toBe(1);
    expect(at.server.sandbox.transactions()).toBe(1);
    expect(paid).toHaveLength(1);
    expect(other.paid).toHaveLength(0);
    for (const s of [store, other.store]) s.close();
  });

  it("refuses past the store's monthly cap, sending nothing; a store that cannot be opened sends nothing", async () => {
    const front = await openFront(pg.cluster, { schema: freshSchema(), maxTransactionsPerMonth: 1 });
    const { prepare, store } = client({ shared: async () => ({ front }) });
    const calls = new OneCalls();
    expect(await calls.ask(op, { Phone: '5550102030' }, prepare)).toMatchObject({ paid: true });
    const capped = await calls.ask(op, { Phone: '5550102031' }, prepare);
    expect(capped).toMatchObject({ kind: 'store-refused', where: front.where });
    const closed = await calls.ask(op, { Phone: '5550102032' }, async () => ({
      ...(await prepare()),
      shared: async () => ({ problem: 'the shared answer store could not be opened: refused' }),
    }));
    expect(closed).toMatchObject({
      kind: 'store-failed',
      message: expect.stringMatching(/could not be opened/),
    });
    expect(at.server.sandbox.requests()).toBe(1);
    store.close();
  });
});
