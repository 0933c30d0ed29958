// A forget killed at any moment of its rewrite (SIGKILL of a child process at random points, and
// right before the rename): the journal is the old one or the new one, readable whole, with every
// answer that was not to be removed; the next forget finishes the work and deletes what the killed
// one left aside. Then a byte scan finds none of the forgotten phones.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IdentityMatcher } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { AnswerStore, parseLine, rewriteJournal } from '../src/index.js';
import { byteScan } from './byte-scan.js';
import { tempDir } from './fixtures.js';
import { madePhone, makeJournal } from './journal-maker.js';

const CHILD = fileURLToPath(new URL('./forget-child.mjs', import.meta.url));
const ANSWERS = 30_000;
// 50 people spread over the journal.
const FORGOTTEN = Array.from({ length: 50 }, (_, i) => madePhone(i * 599 + 7));

function startChild(
  journal: string,
  hold = false,
): {
  child: ChildProcess;
  said: (word: string) => Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      ...process.env,
      ENRICH_TEST_JOURNAL: journal,
      ENRICH_TEST_PHONES: FORGOTTEN.join(','),
      ENRICH_TEST_HOLD: hold ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const waiting: { word: string; resolve: () => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiting.splice(0)) {
      if (out.includes(w.word)) w.resolve();
      else waiting.push(w);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const said = (word: string) =>
    new Promise<void>((resolve) => {
      if (out.includes(word)) resolve();
      else waiting.push({ word, resolve });
    });
  return { child, said, exited };
}

/** The journal's keys; every line must be an answer (no torn or mixed line). */
function readWhole(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const keys: string[] = [];
  let unreadable = 0;
  for (const line of text.slice(0, -1).split('\n')) {
    const parsed = parseLine(line);
    if (parsed) keys.push(parsed.key);
    else unreadable++;
  }
  expect(unreadable).toBe(0);
  return keys;
}

describe('a forget killed mid-rewrite', () => {
  it('leaves the old journal or the new one, each whole, at every kill point', async () => {
    const dir = tempDir();
    const journal = join(dir, '.enrich-cache.jsonl');
    makeJournal(journal, ANSWERS);
    const all = readWhole(journal);
    const forgottenKeys = new Set(FORGOTTEN.map((p) => `phone-lookup:[["Phone","${p}"]]`));
    const others = all.filter((key) => !forgottenKeys.has(key));
    expect(others).toHaveLength(ANSWERS - FORGOTTEN.length);

    // Kill points: at random times after the child starts reading, and right before its rename.
    const kills = [...Array.from({ length: 6 }, () => Math.random() * 400), 'renaming' as const];
    let states = { old: 0, new: 0 };
    for (const when of kills) {
      const { child, said, exited } = startChild(journal, true);
      await said(typeof when === 'string' ? when : 'reading');
      if (typeof when === 'number') await new Promise((r) => setTimeout(r, when));
      child.kill('SIGKILL');
      await exited;
      const keys = readWhole(journal);
      // Compared as one text: a deep equality of 60,000 strings takes seconds.
      if (keys.length === all.length) {
        expect(keys.join('\n') === all.join('\n')).toBe(true);
        states = { ...states, old: states.old + 1 };
      } else {
        expect(keys.join('\n') === others.join('\n')).toBe(true);
        states = { ...states, new: states.new + 1 };
      }
      // The journal opens as the engine opens it, with every answer.
      const store = AnswerStore.open({
        path: journal,
        namespace: 'sandbox',
        maxAgeMs: Number.POSITIVE_INFINITY,
      });
      expect(store.count).toBe(keys.length);
      expect(store.unreadableLines).toBe(0);
      store.close();
      if (keys.length !== all.length) makeJournal(journal, ANSWERS); // back to the old, for the next kill
    }
    // Killed before its rename, a rewrite leaves the old journal whole.
    expect(states.old).toBeGreaterThanOrEqual(1);

    // The next forget finishes and removes what killed rewrites left aside.
    expect(readdirSync(dir).some((name) => name.includes('.aside-'))).toBe(true);
    const matcher = new IdentityMatcher(FORGOTTEN.map((value) => ({ kind: 'phone' as const, value })));
    const done = await rewriteJournal(journal, (line) => matcher.find(line) !== undefined);
    expect(done.removed).toBe(FORGOTTEN.length);
    expect(readWhole(journal).join('\n') === others.join('\n')).toBe(true);
    expect(readdirSync(dir).filter((name) => name !== '.enrich-cache.jsonl')).toEqual([]);
    for (const phone of FORGOTTEN.slice(0, 5)) expect(byteScan([dir], { phone })).toEqual([]);
  }, 120_000);

  it('a child left to finish removes exactly the forgotten answers', async () => {
    const dir = tempDir();
    const journal = join(dir, '.enrich-cache.jsonl');
    makeJournal(journal, 5_000);
    const { exited } = startChild(journal);
    expect(await exited).toBe(0);
    const kept = readWhole(journal);
    expect(kept).toHaveLength(5_000 - FORGOTTEN.filter((p) => Number(p.slice(3)) < 5_000).length);
  }, 60_000);
});
