// Issue 34, the assistant's doors: each scenario of door-scenarios.ts (the built server, the MCP
// SDK's client, a real service on 127.0.0.1), asserted on what the service counted, the answer
// cache's lines and the spend ledger.
import { describe, expect, it } from 'vitest';
import { DOOR_SCENARIOS, type DoorMeasured } from './door-scenarios.js';

function run(id: string): Promise<DoorMeasured> {
  const scenario = DOOR_SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(`no scenario ${id}`);
  return scenario.run();
}

describe('one purchase per question', () => {
  it('three spellings of one phone asked at once: one transaction, one journal line, one ledger line', async () => {
    const m = await run('mcp-at-once');
    expect(m).toMatchObject({ requests: 1, counted: 1, journal: 1, ledger: 1 });
    expect(m.said.split('+').sort()).toEqual(['0', '0', '1']);
    expect(m.more).toEqual({ shared: 2, sameRecord: true, sharedText: true });
  });

  it('twenty different questions at once: each answer journaled once', async () => {
    const m = await run('mcp-journal-once');
    expect(m).toMatchObject({ counted: 20, journal: 20, ledger: 20 });
    expect(m.more.distinctKeys).toBe(20);
  });

  it('Phone and phone with different values: refused, nothing sent; with the same value: one call', async () => {
    const m = await run('mcp-phone-twice');
    expect(m.more).toEqual({ refused: true, refusedNamesBoth: true, sameAccepted: true });
    expect(m).toMatchObject({ requests: 1, counted: 1 });
  });
});

describe('a paid answer is kept, whatever holds the cache', () => {
  it('while another process holds the cache (a CLI run), the answer is set aside and the next session is free', async () => {
    const m = await run('mcp-lock-held');
    expect(m).toMatchObject({ counted: 2, said: '1 then 0', journal: 2, ledger: 2 });
    expect(m.more).toEqual({ firstKept: true, againFromCache: true, journaledOnce: 1 });
  });

  it('with an unusable cache folder, the answer is set aside: two sessions, one purchase', async () => {
    const m = await run('mcp-cache-unusable');
    expect(m).toMatchObject({ counted: 1, said: '1 then 0', ledger: 1 });
  });

  it('when it can be kept nowhere, the result says so (asking again in another session pays again)', async () => {
    const m = await run('mcp-kept-nowhere');
    expect(m).toMatchObject({ counted: 1, said: 'could not be kept' });
    expect(m.more).toEqual({ kept: false, spent: 1 });
  });
});

describe('the file tools use only the files they may', () => {
  it('never replaces the answer cache, the ledger, the input or a lock', async () => {
    const m = await run('mcp-out-protected');
    expect(m.more).toEqual({ refused: 5, unchanged: true });
    expect(m).toMatchObject({ counted: 1, journal: 1, ledger: 1 });
  });

  it('reads nothing outside the allowed folders, links resolved; the client roots replace the default', async () => {
    const m = await run('mcp-outside-roots');
    expect(m.more).toEqual({ refused: 4, readOutside: 0, insideOk: true, rootsReplace: true });
    expect(m.requests).toBe(0);
  });

  it('the key in a cell, with its dashes removed, never reaches the model; a long cell is masked', async () => {
    const m = await run('mcp-key-in-cell');
    // Four characters of a cell are quoted ("5d2e…"): no longer run of the key's digits.
    expect(m.more.longestRun).toBeLessThanOrEqual(4);
    expect(m.more.masked).toBe(2);
    expect(m.requests).toBe(0);
  });

  it('a FIFO, a socket, /dev/stdin or /proc/self/fd/1: refused at once, and the server goes on', async () => {
    const m = await run('mcp-fifo-socket-device');
    expect(m.more).toEqual({ refused: 7, spendAnswered: 6 });
    expect(m.ms).toBeLessThan(20_000);
  });
});

describe('stopping', () => {
  it('Ctrl-C while a call waits on Retry-After: the server exits within 2 s', async () => {
    const m = await run('mcp-sigint-retry-after');
    expect(m.more.code).toBe('130');
    expect(m.more.exitMs).toBeLessThan(2000);
    expect(m.more.asked).toBe(1);
  });
});
