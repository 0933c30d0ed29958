import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPLETE, SpillFile } from '../src/spill.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'enrich-spill-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SpillFile', () => {
  it('gives back every record in order, across the write buffer and the file, interleaved', () => {
    const spill = new SpillFile(join(dir, 'out.csv.spill'));
    const expected: [number, string][] = [];
    const taken: [number, string][] = [];
    for (let i = 0; i < 60_000; i++) {
      // Some text is multi-byte, some holds line breaks and commas, every 10,000th is big.
      const text = i % 10_000 === 5 ? 'x'.repeat(1_500_000) : `row ${i},"é ${'😀'.repeat(i % 4)}"\n`;
      const tag = i % 3 === 0 ? COMPLETE | (i % 7) : i;
      spill.append(tag, text);
      expected.push([tag, text]);
      if (i % 5 === 0) {
        const record = spill.take();
        if (record) taken.push([record.tag, record.text]);
      }
    }
    expect(existsSync(spill.path)).toBe(true);
    for (let record = spill.take(); record; record = spill.take()) taken.push([record.tag, record.text]);
    expect(spill.isEmpty).toBe(true);
    expect(taken.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) expect(taken[i]).toEqual(expected[i]);
    spill.close();
    expect(existsSync(spill.path)).toBe(false);
  });

  it('starts again from the top once emptied', () => {
    const spill = new SpillFile(join(dir, 'spill'));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 100_000; i++) spill.append(i, `r${round}-${i}`);
      for (let i = 0; i < 100_000; i++) expect(spill.take()).toEqual({ tag: i, text: `r${round}-${i}` });
      expect(spill.take()).toBeUndefined();
    }
    spill.close();
  });
});
