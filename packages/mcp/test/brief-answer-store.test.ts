// The MCP server's answer cache on its own, on real files: a paid answer is on disk (in the journal,
// or set aside when another process holds the journal) before put() resolves, and a later lookup,
// by this server or another, finds it free. Kept nowhere, it is at least kept in memory.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnswerStore } from '@enrich/bulk';
import { getOperation, type Outcome, readResponse } from '@enrich/core';
import { createSandbox } from '@enrich/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { BriefAnswerStore, type BriefStoreOptions } from '../src/brief-answer-store.js';

const NS = 'sandbox';
const DAY = 86_400_000;

function answer(phone: string): Outcome {
  const op = getOperation('phone-lookup');
  const response = createSandbox().handle({
    method: 'POST',
    path: op.path,
    headers: { 'x-api-key': 'sandbox-demo-key', 'content-type': 'application/json' },
    body: JSON.stringify({ Phone: phone }),
  });
  return readResponse(op, response);
}

const key = (phone: string) => `phone-lookup:[["Phone","${phone}"]]`;

let logged: string[] = [];
const open: AnswerStore[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  logged = [];
});

function cacheAt(dir: string, more: Partial<BriefStoreOptions> = {}): BriefAnswerStore {
  return new BriefAnswerStore({
    path: join(dir, 'cache.jsonl'),
    maxAgeMs: DAY,
    scrub: (text) => text,
    log: (text) => logged.push(text),
    rescueDir: join(dir, 'aside'),
    ...more,
  });
}

/** Another process's hold on the journal: an AnswerStore opened for writing keeps its lock. */
function holdLock(dir: string): AnswerStore {
  const store = AnswerStore.open({ path: join(dir, 'cache.jsonl'), namespace: NS, maxAgeMs: DAY });
  open.push(store);
  return store;
}

const fresh = () => mkdtempSync(join(tmpdir(), 'enrich-mcp-cache-'));

describe('BriefAnswerStore', () => {
  it('journals a paid answer before put resolves; another server finds it, under its namespace only', async () => {
    const dir = fresh();
    const outcome = answer('5550102030');
    expect(outcome.kind).toBe('record');
    await expect(cacheAt(dir).put(NS, key('5550102030'), outcome)).resolves.toEqual({ where: 'journal' });
    const other = cacheAt(dir);
    expect(other.get(NS, key('5550102030'))).toEqual(outcome);
    expect(other.get(NS, key('5550102031'))).toBeUndefined();
    expect(other.get('https://api.example.com', key('5550102030'))).toBeUndefined();
    expect(logged).toEqual([]);
  });

  it('keeps every one of many answers put at once, each once', async () => {
    const dir = fresh();
    const cache = cacheAt(dir);
    const phones = Array.from({ length: 20 }, (_, i) => `55501020${String(i).padStart(2, '0')}`);
    const kept = await Promise.all(phones.map((p) => cache.put(NS, key(p), answer(p))));
    expect(kept).toEqual(phones.map(() => ({ where: 'journal' })));
    const other = cacheAt(dir);
    for (const p of phones) expect(other.get(NS, key(p))).toEqual(answer(p));
  });

  it('sets an answer aside when another process holds the journal past the wait; lookups read it; the next write moves it in', async () => {
    const dir = fresh();
    const held = holdLock(dir);
    const kept = await cacheAt(dir, { lockWaitMs: 100 }).put(NS, key('5550102030'), answer('5550102030'));
    expect(kept).toMatchObject({
      where: 'aside',
      reason: expect.stringContaining('another process holds it'),
    });
    if (kept.where === 'aside') expect(kept.path.startsWith(join(dir, 'aside'))).toBe(true);
    expect(logged.join('\n')).toMatch(/could not go into the answer cache .* set aside in /);
    expect(cacheAt(dir).get(NS, key('5550102030'))).toEqual(answer('5550102030'));
    held.close();
    await expect(cacheAt(dir).put(NS, key('5550102031'), answer('5550102031'))).resolves.toEqual({
      where: 'journal',
    });
    expect(readdirSync(join(dir, 'aside'))).toEqual([]);
    const reader = AnswerStore.open({ path: join(dir, 'cache.jsonl'), namespace: NS, maxAgeMs: DAY });
    open.push(reader);
    expect(reader.get(key('5550102030'))).toEqual(answer('5550102030'));
  });

  it('waits for a lock released within the wait, and journals', async () => {
    const dir = fresh();
    const held = holdLock(dir);
    setTimeout(() => held.close(), 150);
    await expect(
      cacheAt(dir, { lockWaitMs: 5000 }).put(NS, key('5550102030'), answer('5550102030')),
    ).resolves.toEqual({ where: 'journal' });
  });

  it('once stopping, does not wait for a lock: the answer is set aside at once', async () => {
    const dir = fresh();
    holdLock(dir);
    const cache = cacheAt(dir, { lockWaitMs: 60_000 });
    void cache.stop();
    const kept = cache.put(NS, key('5550102030'), answer('5550102030'));
    const first = await Promise.race([
      kept.then((k) => k.where),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
    ]);
    expect(first).toBe('aside');
  });

  it('keeps an answer that no disk will take in memory: this server does not pay for it twice', async () => {
    const dir = fresh();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const cache = cacheAt(dir, { path: join(file, 'cache.jsonl'), rescueDir: join(file, 'aside') });
    const kept = await cache.put(NS, key('5550102030'), answer('5550102030'));
    expect(kept.where).toBe('nowhere');
    // Both failures named: the cache's folder, and the side file's.
    if (kept.where === 'nowhere') expect(kept.reason).toMatch(/^.+; .+$/);
    expect(logged.join('\n')).toContain('only this session remembers it');
    expect(cache.get(NS, key('5550102030'))).toEqual(answer('5550102030'));
    expect(cache.get('elsewhere', key('5550102030'))).toBeUndefined();
  });

  it('names its file, and closes what each lookup opens', async () => {
    const dir = fresh();
    const cache = cacheAt(dir);
    expect(cache.path).toBe(join(dir, 'cache.jsonl'));
    await cache.put(NS, key('5550102030'), answer('5550102030'));
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 100; i++) cache.get(NS, key('5550102030'));
    expect(open()).toBe(before);
  });

  it('answers nothing, and says why, when the cache cannot be read', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'cache.jsonl'));
    expect(cacheAt(dir).get(NS, key('5550102030'))).toBeUndefined();
    expect(logged.join('\n')).toMatch(/^The answer cache .*cache\.jsonl could not be read: /);
  });

  it("gives up on another process's lock after its wait, not the default two seconds", async () => {
    const dir = fresh();
    holdLock(dir);
    const kept = cacheAt(dir, { lockWaitMs: 100 }).put(NS, key('5550102030'), answer('5550102030'));
    // The default wait would end 2 s from now at the earliest.
    const first = await Promise.race([
      kept.then((k) => k.where),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 1900)),
    ]);
    expect(first).toBe('aside');
  });

  it('on a full disk (the journal on /dev/full): the answer is set aside, or else kept in memory', async () => {
    const dir = fresh();
    symlinkSync('/dev/full', join(dir, 'cache.jsonl'));
    const kept = await cacheAt(dir).put(NS, key('5550102030'), answer('5550102030'));
    expect(kept).toMatchObject({ where: 'aside', reason: 'the disk is full (ENOSPC)' });
    expect(cacheAt(dir).get(NS, key('5550102030'))).toEqual(answer('5550102030'));
    const nowhere = fresh();
    symlinkSync('/dev/full', join(nowhere, 'cache.jsonl'));
    writeFileSync(join(nowhere, 'file'), 'x');
    const cache = cacheAt(nowhere, { rescueDir: join(nowhere, 'file') });
    expect(await cache.put(NS, key('5550102030'), answer('5550102030'))).toMatchObject({
      where: 'nowhere',
      reason: 'the disk is full (ENOSPC)',
    });
    expect(cache.get(NS, key('5550102030'))).toEqual(answer('5550102030'));
  });

  it('does not answer from an answer older than its age limit', async () => {
    const dir = fresh();
    await cacheAt(dir).put(NS, key('5550102030'), answer('5550102030'));
    expect(cacheAt(dir, { maxAgeMs: -1 }).get(NS, key('5550102030'))).toBeUndefined();
  });

  it('serves a single call of one service through for(): what it keeps there, it finds there only', async () => {
    const dir = fresh();
    const calls = cacheAt(dir).for(NS);
    await expect(calls.keep(key('5550102030'), answer('5550102030'))).resolves.toEqual({ where: 'journal' });
    expect(calls.get(key('5550102030'))).toEqual(answer('5550102030'));
    expect(cacheAt(dir).for('https://api.example.com').get(key('5550102030'))).toBeUndefined();
  });

  it('keeps nothing of a person forgotten while the call was under way, says so, and lets the journal go', async () => {
    const dir = fresh();
    const reason = 'forgotten at their request';
    const cache = cacheAt(dir, { forgotten: (k) => (k === key('5550102030') ? reason : undefined) });
    await expect(cache.put(NS, key('5550102030'), answer('5550102030'))).resolves.toEqual({
      where: 'forgotten',
      reason,
    });
    expect(logged).toEqual([
      'A paid answer was not kept: its person was forgotten while the call was under way.',
    ]);
    // The journal's lock is let go: another writer opens it, and it holds nothing of them.
    const writer = AnswerStore.open({ path: join(dir, 'cache.jsonl'), namespace: NS, maxAgeMs: DAY });
    open.push(writer);
    expect(writer.get(key('5550102030'))).toBeUndefined();
    writer.close();
    // Anyone else is kept as ever.
    await expect(cache.put(NS, key('5550102031'), answer('5550102031'))).resolves.toEqual({
      where: 'journal',
    });
    // With the journal held by another process, the same: nothing set aside either.
    const held = holdLock(dir);
    const waiting = cacheAt(dir, { lockWaitMs: 100, forgotten: () => reason });
    await expect(waiting.put(NS, key('5550102032'), answer('5550102032'))).resolves.toEqual({
      where: 'forgotten',
      reason,
    });
    held.close();
    expect(existsSync(join(dir, 'aside')) ? readdirSync(join(dir, 'aside')) : []).toEqual([]);
  });
});
