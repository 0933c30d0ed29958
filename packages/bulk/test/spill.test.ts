import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPLETE, SpillFile } from '../src/run/spill.js';
import { useTempDir } from './fixtures.js';

const at = useTempDir();

describe('SpillFile', () => {
  it('gives back every record in order, across the write buffer and the file, interleaved', () => {
    const { dir } = at;
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
        if (record) taken.push([record.tag, record.bytes.toString('utf8')]);
      }
    }
    expect(existsSync(spill.path)).toBe(true);
    for (let record = spill.take(); record; record = spill.take()) {
      taken.push([record.tag, record.bytes.toString('utf8')]);
    }
    expect(spill.isEmpty).toBe(true);
    expect(taken.length).toBe(expected.length);
    expect(taken.filter(([tag, text], i) => tag !== expected[i]?.[0] || text !== expected[i]?.[1])).toEqual(
      [],
    );
    spill.close();
    expect(existsSync(spill.path)).toBe(false);
  });

  it('starts again from the top once emptied', () => {
    const { dir } = at;
    const spill = new SpillFile(join(dir, 'spill'));
    for (let round = 0; round < 3; round++) {
      // 100,000 records: more than the 1 MB write buffer, so they go through the file.
      for (let i = 0; i < 100_000; i++) spill.append(i, `r${round}-${i}`);
      let wrong = 0;
      for (let i = 0; i < 100_000; i++) {
        const record = spill.take();
        if (record?.tag !== i || record.bytes.toString('utf8') !== `r${round}-${i}`) wrong++;
      }
      expect(wrong).toBe(0);
      expect(spill.take()).toBeUndefined();
    }
    spill.close();
  });
});
