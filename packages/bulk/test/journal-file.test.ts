// The journal's lines on disk (journal-file.ts) on their own: what counts as one of our lines, each
// line found at its byte offset across 1 MB reads, the rescue file's name, the words for a failure.
import { closeSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeFailure,
  fdatasyncAsync,
  parseLine,
  readLineAt,
  rescuePathFor,
  scanLines,
} from '../src/store/journal-file.js';
import { tempDir } from './fixtures.js';

const outcome = { kind: 'no-match', status: 204 } as const;
const good = { v: 1, ns: 'sandbox', key: 'k', at: 5, outcome };

describe('parseLine', () => {
  it('reads a line of ours', () => {
    expect(parseLine(JSON.stringify(good))).toEqual(good);
  });

  it.each([
    ['another version', { ...good, v: 2 }],
    ['no namespace', { ...good, ns: 7 }],
    ['no key', { ...good, key: null }],
    ['a time that is no number', { ...good, at: '5' }],
    ['no time', { ...good, at: null }],
    ['no outcome of ours', { ...good, outcome: { kind: 'record' } }],
  ])('refuses %s', (_, value) => {
    expect(parseLine(JSON.stringify(value))).toBeUndefined();
  });

  it('refuses what is not an object: null, an array, a number, garbage', () => {
    for (const text of ['null', '[1]', '42', '"text"', 'garbage', ''])
      expect(parseLine(text)).toBeUndefined();
  });
});

describe('describeFailure', () => {
  const failure = (code: string | undefined, message: string) => Object.assign(new Error(message), { code });

  it('names a full disk and a used-up quota in words, and any other failure by its code', () => {
    expect(describeFailure(failure('ENOSPC', 'no space left'))).toBe('the disk is full (ENOSPC)');
    expect(describeFailure(failure('EDQUOT', 'quota'))).toBe('the disk quota is used up (EDQUOT)');
    expect(describeFailure(failure('EACCES', 'permission denied'))).toBe('EACCES: permission denied');
    expect(describeFailure(failure(undefined, 'it broke'))).toBe('it broke');
    expect(describeFailure(undefined)).toBe('unknown');
  });
});

/** A journal file of `lines`, each ending in a newline unless `torn`; the fd open for reading. */
function fileOf(lines: string[], torn = false): { fd: number; offsets: number[] } {
  const path = join(tempDir(), 'c.jsonl');
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += Buffer.byteLength(line) + 1;
  }
  writeFileSync(path, lines.join('\n') + (torn ? '' : '\n'));
  return { fd: openSync(path, 'r'), offsets };
}

describe('scanLines and readLineAt', () => {
  it('find every line at its byte offset, across the 1 MB reads, and say whether the last is torn', () => {
    // Lines of 1000 to 9000 bytes, some multi-byte, about 3 MB in all: many lines cross a read.
    const lines = Array.from({ length: 600 }, (_, i) => `${i}:${'é'.repeat(500 + ((i * 37) % 4000))}`);
    const { fd, offsets } = fileOf(lines);
    try {
      const seen: [string, number][] = [];
      const { size, torn } = scanLines(fd, (text, offset) => seen.push([text, offset]));
      expect(torn).toBe(false);
      expect(size).toBe(Buffer.byteLength(`${lines.join('\n')}\n`));
      expect(seen.map(([, offset]) => offset)).toEqual(offsets);
      expect(seen.map(([text]) => text)).toEqual(lines);
      for (const i of [0, 1, 299, 599]) expect(readLineAt(fd, offsets[i] ?? -1)).toBe(lines[i]);
    } finally {
      closeSync(fd);
    }
  });

  it('leave out a torn last line, and read one to the end of the file', () => {
    const { fd, offsets } = fileOf(['first', '', 'x'.repeat(5000), 'torn'], true);
    try {
      const seen: string[] = [];
      expect(scanLines(fd, (text) => seen.push(text)).torn).toBe(true);
      expect(seen).toEqual(['first', '', 'x'.repeat(5000)]);
      expect(readLineAt(fd, offsets[1] ?? -1)).toBe('');
      expect(readLineAt(fd, offsets[2] ?? -1)).toBe('x'.repeat(5000));
      expect(readLineAt(fd, offsets[3] ?? -1)).toBe('torn');
    } finally {
      closeSync(fd);
    }
  });

  it('find an empty first line, at offset 0', () => {
    const { fd } = fileOf(['', 'a', '', 'b']);
    try {
      const seen: [string, number][] = [];
      scanLines(fd, (text, offset) => seen.push([text, offset]));
      expect(seen).toEqual([
        ['', 0],
        ['a', 1],
        ['', 3],
        ['b', 4],
      ]);
    } finally {
      closeSync(fd);
    }
  });

  it('read an empty file as no line, not torn', () => {
    const { fd } = fileOf([], true);
    try {
      const seen: string[] = [];
      expect(scanLines(fd, (text) => seen.push(text))).toEqual({ size: 0, torn: false });
      expect(seen).toEqual([]);
    } finally {
      closeSync(fd);
    }
  });
});

describe('rescuePathFor', () => {
  it('names the rescue file for the real path of the cache: the same through a link, another for another cache', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const rescue = tempDir();
    const named = rescuePathFor(join(dir, 'real', 'c.jsonl'), rescue);
    expect(named).toMatch(new RegExp(`^${rescue}/enrich-unsaved-[0-9a-f]{16}\\.jsonl$`));
    expect(rescuePathFor(join(dir, 'link', 'c.jsonl'), rescue)).toBe(named);
    expect(rescuePathFor(join(dir, 'real', 'd.jsonl'), rescue)).not.toBe(named);
    // A folder that does not exist yet: the path as given names it, the same each time.
    const missing = join(dir, 'missing', 'c.jsonl');
    expect(rescuePathFor(missing, rescue)).toBe(rescuePathFor(missing, rescue));
    expect(rescuePathFor(missing, rescue)).not.toBe(named);
  });
});

describe('fdatasyncAsync', () => {
  it('resolves for an open file and rejects for a closed one', async () => {
    const path = join(tempDir(), 'f');
    writeFileSync(path, 'x');
    const fd = openSync(path, 'r+');
    await expect(fdatasyncAsync(fd)).resolves.toBeUndefined();
    closeSync(fd);
    await expect(fdatasyncAsync(fd)).rejects.toThrow();
  });
});
