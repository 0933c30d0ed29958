// The answer store at its edges (answer-store.ts): an answer's age, a journal left torn by a kill,
// a read-only open, answers set aside beside a cache that cannot be written, and a failed sync whose
// answers are saved once each. Each is a paid answer found again, or bought twice.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { AnswerStore, type AnswerStoreOptions } from '../src/store/answer-store.js';
import { tempDir } from './fixtures.js';

const noMatch: Outcome = { kind: 'no-match', status: 204 };
const line = (key: string, at: number, ns = 'test') =>
  JSON.stringify({ v: 1, ns, key, at, outcome: noMatch });

function opened(options: Partial<AnswerStoreOptions> & { path: string }): AnswerStore {
  return AnswerStore.open({ namespace: 'test', maxAgeMs: Number.POSITIVE_INFINITY, ...options });
}

function withStore<T>(
  options: Partial<AnswerStoreOptions> & { path: string },
  use: (s: AnswerStore) => T,
): T {
  const store = opened(options);
  try {
    return use(store);
  } finally {
    store.close();
  }
}

describe('the age of an answer', () => {
  it('uses an answer exactly as old as the limit, not one a millisecond older; any age without a limit', () => {
    const path = join(tempDir(), 'c.jsonl');
    writeFileSync(path, `${line('edge', 1000)}\n${line('old', 999)}\n`);
    withStore({ path, maxAgeMs: 500, now: () => 1500 }, (store) => {
      expect(store.get('edge')).toEqual(noMatch);
      expect(store.get('old')).toBeUndefined();
      expect(store.count).toBe(1);
    });
    withStore({ path, now: () => 1e15 }, (store) => expect(store.count).toBe(2));
  });

  it('skips blank lines without counting them unreadable, and answers of another service', () => {
    const path = join(tempDir(), 'c.jsonl');
    writeFileSync(path, `${line('a', 1)}\n\n   \n${line('b', 1, 'elsewhere')}\n`);
    withStore({ path }, (store) => {
      expect(store.unreadableLines).toBe(0);
      expect(store.has('a')).toBe(true);
      expect(store.has('b')).toBe(false);
    });
  });
});

describe('a journal left torn by a kill', () => {
  it('starts the next answer on a line of its own: both the old answers and the new are found again', async () => {
    const path = join(tempDir(), 'c.jsonl');
    writeFileSync(path, `${line('before', 1)}\n${line('torn', 1).slice(0, 25)}`);
    const store = opened({ path });
    try {
      expect(store.unreadableLines).toBe(1);
      expect(await store.put('after', noMatch)).toBe(true);
      expect(await store.put('later', noMatch)).toBe(true);
      // Read back from the file at the offsets the store keeps.
      expect(store.get('after')).toEqual(noMatch);
      expect(store.get('later')).toEqual(noMatch);
    } finally {
      store.close();
    }
    withStore({ path }, (again) => {
      expect(again.unreadableLines).toBe(1);
      expect(['before', 'after', 'later'].map((k) => again.get(k))).toEqual([noMatch, noMatch, noMatch]);
    });
    expect(readFileSync(path, 'utf8').split('\n').at(-1)).toBe('');
  });
});

describe('a read-only open', () => {
  it('of a cache that does not exist: no answer, no file made, and no put', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    const store = opened({ path, readOnly: true });
    try {
      expect(store.get('a')).toBeUndefined();
      await expect(store.put('a', noMatch)).rejects.toThrow('The answer cache is open read-only');
    } finally {
      store.close();
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('of a cache another process writes: its answers, read from the file', () => {
    const path = join(tempDir(), 'c.jsonl');
    writeFileSync(path, `${line('a', 1)}\n`);
    withStore({ path, readOnly: true }, (store) => expect(store.get('a')).toEqual(noMatch));
  });
});

describe('answers set aside', () => {
  it('beside a cache that cannot be written now: read by every later open, moved in by the next writer', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    const rescueDir = join(dir, 'aside');
    const saved = AnswerStore.setAside({ path, namespace: 'test', rescueDir }, [
      { key: 'a', outcome: noMatch },
    ]);
    expect(saved).toMatchObject({
      count: 1,
      where: 'rescue',
      reason: 'the answer cache could not be written now',
    });
    withStore({ path, rescueDir, readOnly: true }, (store) => {
      expect(store.get('a')).toEqual(noMatch);
      expect(store.count).toBe(1);
    });
    withStore({ path, rescueDir }, (store) => {
      expect(store.imported).toBe(1);
      expect(store.count).toBe(1);
    });
    expect(readFileSync(path, 'utf8')).toContain('"key":"a"');
    withStore({ path, rescueDir, readOnly: true }, (store) => expect(store.get('a')).toEqual(noMatch));
  });

  it('nowhere when the rescue folder cannot be made either, saying why', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    const saved = AnswerStore.setAside(
      { path: join(dir, 'c.jsonl'), namespace: 'test', rescueDir: join(dir, 'file') },
      [
        { key: 'a', outcome: noMatch },
        { key: 'b', outcome: noMatch },
      ],
    );
    expect(saved.where).toBe('nowhere');
    expect(saved.count).toBe(2);
    // mkdir of a folder where a file is: the failure's code and message, not a guess.
    expect(saved.reason).toMatch(/^EEXIST: .*file already exists/);
  });
});

describe('a sync that fails', () => {
  it('holds the answers not yet durable, and saves each once: those synced before are not saved again', async () => {
    const path = join(tempDir(), 'c.jsonl');
    let failing = false;
    const store = opened({
      path,
      syncIntervalMs: 0,
      syncFile: async () => {
        if (failing) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    });
    try {
      expect(store.saveUnsaved()).toBeUndefined();
      expect(await store.put('synced', noMatch)).toBe(true);
      failing = true;
      expect(await store.put('held', noMatch)).toBe(false);
      expect(store.unsavedCount).toBe(1);
      // Once failed, nothing more is written; the answer is held too.
      expect(await store.put('later', noMatch)).toBe(false);
      expect(store.unsavedCount).toBe(2);
      expect(store.get('later')).toEqual(noMatch);
      expect(store.saveUnsaved()).toEqual({
        count: 2,
        where: 'journal',
        reason: 'the disk is full (ENOSPC)',
      });
      expect(store.unsavedCount).toBe(0);
      // Asked again: nothing left to save, and it says so (still naming what failed).
      expect(store.saveUnsaved()).toEqual({
        count: 0,
        where: 'journal',
        reason: 'the disk is full (ENOSPC)',
      });
    } finally {
      store.close();
    }
    const keys = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((text) => (JSON.parse(text) as { key: string }).key);
    // Every answer is in the journal; the one synced before the failure only once. (The held one
    // may be there twice: written before the sync failed, and again by saveUnsaved; a later line
    // of the same key wins when the journal is read.)
    expect(new Set(keys)).toEqual(new Set(['synced', 'held', 'later']));
    expect(keys.filter((k) => k === 'synced')).toHaveLength(1);
  });
});

describe('a journal on a full disk (/dev/full: every write fails with ENOSPC)', () => {
  it('holds the answer, and saves it in the rescue file, which the next open imports', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    symlinkSync('/dev/full', path);
    const rescueDir = join(dir, 'aside');
    const store = opened({ path, rescueDir });
    try {
      expect(await store.put('a', noMatch)).toBe(false);
      expect(await store.put('b', noMatch)).toBe(false);
      expect(store.get('a')).toEqual(noMatch);
      const saved = store.saveUnsaved();
      expect(saved).toMatchObject({ count: 2, where: 'rescue', reason: 'the disk is full (ENOSPC)' });
      expect(saved?.rescuePath?.startsWith(rescueDir)).toBe(true);
      expect(store.unsavedCount).toBe(0);
    } finally {
      store.close();
    }
    withStore({ path: join(dir, 'elsewhere.jsonl'), rescueDir }, (other) => expect(other.count).toBe(0));
    withStore({ path, rescueDir, readOnly: true }, (again) => {
      expect(again.get('a')).toEqual(noMatch);
      expect(again.get('b')).toEqual(noMatch);
    });
  });

  it('says the answers are lost when the rescue file cannot be written either', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    symlinkSync('/dev/full', path);
    writeFileSync(join(dir, 'file'), 'x');
    const store = opened({ path, rescueDir: join(dir, 'file', 'aside') });
    try {
      expect(await store.put('a', noMatch)).toBe(false);
      expect(store.saveUnsaved()).toEqual({
        count: 1,
        where: 'nowhere',
        reason: 'the disk is full (ENOSPC)',
      });
      expect(store.unsavedCount).toBe(1);
    } finally {
      store.close();
    }
  });
});

describe('opening', () => {
  it('names the answer cache when another process holds it', () => {
    const path = join(tempDir(), 'c.jsonl');
    withStore({ path }, () => {
      expect(() => opened({ path })).toThrow(/answer cache/);
    });
  });

  it('lets go of its lock when the journal cannot be read: the next open, once it can, succeeds', () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    mkdirSync(path);
    expect(() => opened({ path })).toThrow(/EISDIR/);
    expect(existsSync(`${path}.lock`)).toBe(false);
    rmdirSync(path);
    withStore({ path }, (store) => expect(store.count).toBe(0));
  });

  it('imports only the rescued answers the journal lacks, and counts each answer once', () => {
    const dir = tempDir();
    const path = join(dir, 'c.jsonl');
    const rescueDir = join(dir, 'aside');
    writeFileSync(path, `${line('a', 1)}\n`);
    AnswerStore.setAside({ path, namespace: 'test', rescueDir }, [
      { key: 'a', outcome: noMatch },
      { key: 'b', outcome: noMatch },
    ]);
    withStore({ path, rescueDir, readOnly: true }, (store) => expect(store.count).toBe(2));
    withStore({ path, rescueDir }, (store) => {
      expect(store.imported).toBe(1);
      expect(store.count).toBe(2);
    });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });
});
